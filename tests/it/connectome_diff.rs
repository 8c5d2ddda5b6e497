//! The diff partitions the edges of both graphs exactly, by construction on random graphs.

use std::collections::BTreeSet;

use beam_mcp::connectome::diff::{Diff, EdgeClass};
use beam_mcp::connectome::model::{EdgeKey, EdgeKind, Graph, Sign};
use proptest::prelude::*;

const SIGNS: [Sign; 5] = [
    Sign::Allow,
    Sign::Deny,
    Sign::Hold,
    Sign::Ungoverned,
    Sign::Unset,
];
const KINDS: [EdgeKind; 4] = [
    EdgeKind::Dispatch,
    EdgeKind::Serves,
    EdgeKind::Call,
    EdgeKind::ModuleCall,
];

fn key(kind: usize, from: u8, to: u8) -> EdgeKey {
    let k = KINDS[kind % 4];
    if k == EdgeKind::Dispatch {
        EdgeKey::dispatch(&format!("t{to}"))
    } else {
        EdgeKey::new(k, format!("fn:n{from}"), format!("fn:n{to}"))
    }
}

type Spec = Vec<(usize, u8, u8, usize, u64)>;

fn graph(spec: &Spec, counts: bool) -> Graph {
    let mut g = Graph::new();
    for &(kind, from, to, sign, count) in spec {
        let k = key(kind, from, to);
        if counts {
            g.add_count(k.clone(), count);
        } else {
            g.add_edge(k.clone());
        }
        g.set_sign(&k, SIGNS[sign % 5]);
    }
    g
}

fn spec() -> impl Strategy<Value = Spec> {
    prop::collection::vec((0usize..4, 0u8..6, 0u8..6, 0usize..5, 0u64..100), 0..40)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn every_edge_is_in_exactly_one_class(d in spec(), o in spec()) {
        let declared = graph(&d, false);
        let observed = graph(&o, true);
        let diff = Diff::run(&declared, &observed);
        let union: BTreeSet<EdgeKey> = declared.edges().chain(observed.edges()).map(|(k, _)| k.clone()).collect();

        let mut seen = Vec::new();
        seen.extend(diff.matched().iter().cloned());
        seen.extend(diff.dead_authority().iter().cloned());
        seen.extend(diff.drift().iter().cloned());
        seen.extend(diff.changed_sign().iter().map(|c| c.key.clone()));
        let as_set: BTreeSet<EdgeKey> = seen.iter().cloned().collect();
        prop_assert_eq!(seen.len(), as_set.len(), "an edge is in two classes");
        prop_assert_eq!(&as_set, &union, "an edge is in no class");

        for k in &union {
            let expected = match (declared.edge(k), observed.edge(k)) {
                (Some(a), Some(b)) if a.sign == b.sign => EdgeClass::Matched,
                (Some(_), Some(_)) => EdgeClass::ChangedSign,
                (Some(_), None) => EdgeClass::DeadAuthority,
                (None, Some(_)) => EdgeClass::Drift,
                (None, None) => unreachable!(),
            };
            prop_assert_eq!(diff.class_of(k), Some(expected));
        }

        let c = diff.coverage();
        prop_assert_eq!(c.matched_edges + c.dead_authority_edges + c.changed_sign_edges, c.declared_edges);
        prop_assert_eq!(c.matched_edges + c.changed_sign_edges + c.drift_edges, c.observed_edges);
        prop_assert!(c.exercised_tools <= c.declared_tools);
        prop_assert!(c.drift_calls <= c.observed_calls);
        let total: u64 = observed.edges().map(|(_, a)| a.count.unwrap_or(0)).sum();
        prop_assert_eq!(c.observed_calls, total);
    }
}

#[test]
fn an_edge_in_neither_graph_has_no_class() {
    let diff = Diff::run(&Graph::new(), &Graph::new());
    assert_eq!(diff.class_of(&EdgeKey::dispatch("x")), None);
    assert_eq!(diff.coverage().named().len(), 10);
}
