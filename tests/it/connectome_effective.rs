//! Effective connectivity (`docs/connectome-effective.md`): goldens, a second derivation of
//! the bytes from the page alone (plain maps, serde_jcs, sha2), and the partitions, identities
//! and order independence on random graphs.

use beam_mcp::connectome::canonical::{verify, DigestAlgorithm};
use beam_mcp::connectome::effective::{effective_export, federated_effective_export, Effective};
use beam_mcp::connectome::federation::Federation;
use beam_mcp::connectome::model::{EdgeKey, EdgeKind, Graph};
use proptest::prelude::*;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

fn golden(name: &str, bytes: &[u8]) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, bytes).unwrap();
    }
    let want = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(
        String::from_utf8_lossy(&want),
        String::from_utf8_lossy(bytes),
        "{name} drifted from its golden file"
    );
}

fn serves(tool: &str, f: &str) -> EdgeKey {
    EdgeKey::new(EdgeKind::Serves, format!("tool:{tool}"), format!("fn:{f}"))
}

/// The worked example's declared graph (`tests/golden/inputs/effective_declared.json`).
fn declared() -> Graph {
    let mut d = Graph::new();
    d.add_dispatch_edge("a");
    d.add_dispatch_edge("b");
    d.add_edge(serves("a", "host::a"));
    d.add_edge(EdgeKey::new(
        EdgeKind::ModuleCall,
        "module:host",
        "module:host::db",
    ));
    d
}

fn observed(counts: &[(&str, u64)]) -> Graph {
    let mut o = Graph::new();
    for (tool, n) in counts {
        o.add_count(EdgeKey::dispatch(tool), *n);
    }
    o
}

/// The bytes from docs/connectome-effective.md and connectome-canonical.md alone.
fn derived(declared: &Graph, observed: &Graph, contributors: Option<Vec<&str>>) -> Vec<u8> {
    let rank = |k: EdgeKind| {
        ["dispatch", "serves", "call", "module_call"]
            .iter()
            .position(|x| *x == k.as_str())
            .unwrap_or(usize::MAX)
    };
    type Key = (usize, String, String);
    let name = |k: &EdgeKey| -> Key { (rank(k.kind), k.from.clone(), k.to.clone()) };
    let mut kinds: BTreeMap<Key, &str> = BTreeMap::new();
    let mut d: BTreeMap<Key, String> = BTreeMap::new();
    for (k, a) in declared.edges() {
        kinds.insert(name(k), k.kind.as_str());
        d.insert(name(k), a.sign.as_str().to_owned());
    }
    let mut o: BTreeMap<Key, u64> = BTreeMap::new();
    for (k, a) in observed.edges() {
        kinds.insert(name(k), k.kind.as_str());
        o.insert(name(k), a.count.unwrap_or(0));
    }
    let (mut weighted, mut unseen, mut undeclared) = (Vec::new(), Vec::new(), Vec::new());
    let (mut weighted_calls, mut undeclared_calls, mut observed_calls) = (0u64, 0u64, 0u64);
    for (key, sign) in &d {
        let (_, from, to) = key;
        let kind = kinds[key];
        match o.get(key).copied().unwrap_or(0) {
            0 => unseen.push(json!({"from": from, "kind": kind, "sign": sign, "to": to})),
            n => {
                weighted_calls += n;
                weighted
                    .push(json!({"count": n, "from": from, "kind": kind, "sign": sign, "to": to}));
            }
        }
    }
    for (key, n) in &o {
        observed_calls += n;
        if *n > 0 && !d.contains_key(key) {
            let (_, from, to) = key;
            undeclared_calls += n;
            undeclared.push(json!({"count": n, "from": from, "kind": kinds[key], "to": to}));
        }
    }
    let nodes: Vec<Value> = declared
        .nodes()
        .map(|n| json!({"id": n.id, "kind": n.kind.as_str(), "module": n.module, "package": n.package}))
        .collect();
    let contributors = match contributors {
        Some(mut names) => {
            names.sort();
            names.dedup();
            json!(names)
        }
        None => Value::Null,
    };
    let mut doc = json!({
        "body": {
            "contributors": contributors,
            "counts": {
                "declared_edges": d.len(),
                "weighted_edges": weighted.len(),
                "unseen_edges": unseen.len(),
                "undeclared_edges": undeclared.len(),
                "observed_calls": observed_calls,
                "weighted_calls": weighted_calls,
                "undeclared_calls": undeclared_calls,
            },
            "graph": {"edges": weighted, "nodes": nodes},
            "undeclared": undeclared,
            "unseen": unseen,
        },
        "digest_algorithm": "sha256",
        "kind": "effective",
        "schema_version": 2,
    });
    let unsealed = serde_jcs::to_vec(&doc).unwrap();
    let digest: String = Sha256::digest(&unsealed)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    doc["digest"] = Value::String(digest);
    serde_jcs::to_vec(&doc).unwrap()
}

#[test]
fn one_node_export_matches_golden_the_derivation_and_the_worked_example() {
    let (d, o) = (declared(), observed(&[("a", 3), ("c", 2)]));
    let sealed = effective_export(&d, &o, DigestAlgorithm::Sha256).unwrap();
    assert_eq!(
        String::from_utf8_lossy(&sealed.bytes),
        String::from_utf8_lossy(&derived(&d, &o, None))
    );
    golden("connectome_effective.json", &sealed.bytes);
    assert_eq!(verify(&sealed.bytes).unwrap().kind, "effective");
    let body = &serde_json::from_slice::<Value>(&sealed.bytes).unwrap()["body"];
    assert_eq!(body["contributors"], Value::Null);
    assert_eq!(
        body["counts"],
        json!({"declared_edges": 4, "observed_calls": 5, "undeclared_calls": 2,
               "undeclared_edges": 1, "unseen_edges": 3, "weighted_calls": 3, "weighted_edges": 1})
    );
    assert_eq!(
        body["undeclared"],
        json!([{"count": 2, "from": "mcp:dispatch", "kind": "dispatch", "to": "tool:c"}])
    );
    assert_eq!(body["unseen"][0]["to"], "tool:b");
}

#[test]
fn three_node_export_matches_golden_and_the_derivation_whatever_the_order() {
    let d = declared();
    let nodes = [
        ("node_a", observed(&[("a", 3)])),
        ("node_b", observed(&[("a", 1), ("c", 2)])),
        ("node_c", observed(&[])),
    ];
    let mut bytes = BTreeSet::new();
    // In order, reversed, rotated, and with a node answering twice.
    let orders: [&[usize]; 4] = [&[0, 1, 2], &[2, 1, 0], &[1, 2, 0], &[1, 0, 1, 2, 1]];
    for order in orders {
        let mut f = Federation::new();
        for &i in order {
            f.contribute(nodes[i].0, &nodes[i].1);
        }
        let sealed = federated_effective_export(&d, &f, DigestAlgorithm::Sha256).unwrap();
        bytes.insert(sealed.bytes);
    }
    assert_eq!(bytes.len(), 1, "one byte string whatever the order");
    let sealed = bytes.into_iter().next().unwrap();
    let summed = observed(&[("a", 4), ("c", 2)]);
    assert_eq!(
        String::from_utf8_lossy(&sealed),
        String::from_utf8_lossy(&derived(
            &d,
            &summed,
            Some(vec!["node_a", "node_b", "node_c"])
        ))
    );
    golden("connectome_effective_federated.json", &sealed);
}

fn graph_strategy() -> impl Strategy<Value = Graph> {
    let key = prop_oneof![
        (0..5u8).prop_map(|t| EdgeKey::dispatch(&format!("t{t}"))),
        (0..3u8, 0..3u8).prop_map(|(t, f)| serves(&format!("t{t}"), &format!("h::f{f}"))),
        (0..3u8, 0..3u8).prop_map(|(a, b)| EdgeKey::new(
            EdgeKind::ModuleCall,
            format!("module:m{a}"),
            format!("module:m{b}")
        )),
    ];
    prop::collection::vec((key, 0..50u64), 0..10).prop_map(|edges| {
        let mut g = Graph::new();
        for (k, n) in edges {
            g.add_count(k, n);
        }
        g
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// The partitions and identities of the page hold, and the derivation agrees.
    #[test]
    fn partitions_identities_and_derivation(declared in graph_strategy(), observed in graph_strategy()) {
        let e = Effective::new(&declared, &observed);
        let counts: BTreeMap<&str, u64> = e.counts().into_iter().collect();
        prop_assert_eq!(counts["weighted_edges"] + counts["unseen_edges"], counts["declared_edges"]);
        prop_assert_eq!(counts["weighted_calls"] + counts["undeclared_calls"], counts["observed_calls"]);
        prop_assert_eq!(counts["declared_edges"], declared.edge_count() as u64);
        for (k, _) in declared.edges() {
            let weighted = e.weighted().contains_edge(k);
            let unseen = e.unseen().contains(k);
            prop_assert!(weighted != unseen, "{k} in exactly one");
        }
        for (k, a) in observed.edges().filter(|(_, a)| a.count.unwrap_or(0) > 0) {
            let weighted = e.weighted().edge(k).map(|w| w.count) == Some(a.count);
            let undeclared = e.undeclared().iter().any(|(u, n)| u == k && Some(*n) == a.count);
            prop_assert!(weighted != undeclared, "{k} in exactly one");
        }
        let sealed = effective_export(&declared, &observed, DigestAlgorithm::Sha256).unwrap();
        prop_assert_eq!(sealed.bytes, derived(&declared, &observed, None));
    }
}
