//! The federated observed export (`docs/connectome.md`, "Federation"): merging is
//! commutative and idempotent per node, the bytes do not depend on the order the nodes
//! answered in, the contributors are named, and the bytes are re-derived here from the
//! documented rules alone (serde_jcs and sha2, not the crate's writer). Golden:
//! `tests/golden/connectome_federated_observed.json` (`UPDATE_GOLDEN=1` rewrites it; the python
//! recipe of `connectome_golden.rs` re-derives its digest too).

use beam_mcp::connectome::canonical::{verify, DigestAlgorithm};
use beam_mcp::connectome::federation::{federated_observed_export, Federation};
use beam_mcp::connectome::model::{EdgeKey, EdgeKind, Graph};
use proptest::prelude::*;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::Path;

/// One node's observations: (tool or module pair, count).
type Observations = Vec<(EdgeKey, u64)>;

/// An edge in the derivation's order: (kind rank, from, to, kind name).
type Ranked = (usize, String, String, String);

fn graph_of(observations: &Observations) -> Graph {
    let mut g = Graph::new();
    for (k, n) in observations {
        g.add_count(k.clone(), *n);
    }
    g
}

fn module(from: &str, to: &str) -> EdgeKey {
    EdgeKey::new(
        EdgeKind::ModuleCall,
        format!("module:{from}"),
        format!("module:{to}"),
    )
}

fn three_nodes() -> Vec<(&'static str, Observations)> {
    vec![
        (
            "node_a",
            vec![
                (EdgeKey::dispatch("get_weather"), 3),
                (EdgeKey::dispatch("get_forecast"), 1),
            ],
        ),
        (
            "node_b",
            vec![
                (EdgeKey::dispatch("get_weather"), 2),
                (module("host::api", "host::db"), 5),
            ],
        ),
        ("node_c", vec![]),
    ]
}

fn federation_of(contributions: &[(&str, Observations)]) -> Federation {
    let mut f = Federation::new();
    for (node, obs) in contributions {
        f.contribute(node, &graph_of(obs));
    }
    f
}

/// The export built from docs/connectome-canonical.md §2–3 and docs/connectome.md
/// "Federation" alone: sums per edge, edges by (kind order, from, to), nodes by id, the
/// contributors by name; RFC 8785 via serde_jcs (ASCII ids: NFC is the identity); SHA-256.
fn derived(contributions: &[(&str, Observations)]) -> Vec<u8> {
    let kind_rank = |k: &str| {
        ["dispatch", "serves", "call", "module_call"]
            .iter()
            .position(|x| *x == k)
            .unwrap_or(usize::MAX)
    };
    let mut sums: BTreeMap<Ranked, u64> = BTreeMap::new();
    let mut nodes: BTreeMap<String, String> = BTreeMap::new();
    let mut contributors: Vec<String> = Vec::new();
    // One contribution is one graph (repeated observations of an edge add up); per node,
    // each edge keeps the larger count of its contributions.
    let mut per_node: BTreeMap<String, BTreeMap<Ranked, u64>> = BTreeMap::new();
    for (node, obs) in contributions {
        let mut graph: BTreeMap<Ranked, u64> = BTreeMap::new();
        for (k, n) in obs {
            let kind = k.kind.as_str().to_owned();
            let key = (kind_rank(&kind), k.from.clone(), k.to.clone(), kind);
            *graph.entry(key).or_insert(0) += n;
        }
        let held = per_node.entry((*node).to_owned()).or_default();
        for (key, n) in graph {
            let slot = held.entry(key).or_insert(0);
            *slot = (*slot).max(n);
        }
    }
    for (node, edges) in &per_node {
        contributors.push(node.clone());
        for (key, n) in edges {
            *sums.entry(key.clone()).or_insert(0) += n;
        }
    }
    let prefix_kind = |id: &str| match id.split(':').next() {
        Some("mcp") => "dispatch",
        Some("tool") => "tool",
        Some("fn") => "function",
        Some("module") => "module",
        Some("package") => "package",
        _ => "function",
    };
    let mut edges = Vec::new();
    for ((_, from, to, kind), n) in sums.iter().filter(|(_, n)| **n > 0) {
        nodes.insert(from.clone(), prefix_kind(from).to_owned());
        nodes.insert(to.clone(), prefix_kind(to).to_owned());
        edges.push(json!({"count": n, "from": from, "kind": kind, "sign": "unset", "to": to}));
    }
    let nodes: Vec<Value> = nodes
        .iter()
        .map(|(id, kind)| json!({"id": id, "kind": kind, "module": null, "package": null}))
        .collect();
    let mut doc = json!({
        "body": {"contributors": contributors, "graph": {"edges": edges, "nodes": nodes}},
        "digest_algorithm": "sha256",
        "kind": "federated_observed",
        "schema_version": 2,
    });
    let unsealed = serde_jcs::to_vec(&doc).expect("jcs");
    let digest: String = Sha256::digest(&unsealed)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    doc["digest"] = Value::String(digest);
    serde_jcs::to_vec(&doc).expect("jcs")
}

#[test]
fn three_node_export_matches_golden_and_the_documented_derivation() {
    let nodes = three_nodes();
    let sealed =
        federated_observed_export(&federation_of(&nodes), DigestAlgorithm::Sha256).unwrap();
    assert_eq!(
        String::from_utf8_lossy(&sealed.bytes),
        String::from_utf8_lossy(&derived(&nodes))
    );
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden/connectome_federated_observed.json");
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, &sealed.bytes).unwrap();
    }
    let golden = std::fs::read(&path).unwrap();
    assert_eq!(golden, sealed.bytes, "drifted from its golden file");
    let verified = verify(&golden).unwrap();
    assert_eq!(verified.kind, "federated_observed");
    let doc: Value = serde_json::from_slice(&golden).unwrap();
    assert_eq!(
        doc["body"]["contributors"],
        json!(["node_a", "node_b", "node_c"])
    );
    // get_weather: 3 on node_a + 2 on node_b.
    let weather = doc["body"]["graph"]["edges"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["to"] == "tool:get_weather")
        .cloned()
        .unwrap();
    assert_eq!(weather["count"], 5);
}

#[test]
fn three_nodes_and_two_nodes_are_told_apart() {
    let three = three_nodes();
    let two: Vec<_> = three.iter().take(2).cloned().collect();
    let a = federated_observed_export(&federation_of(&three), DigestAlgorithm::Sha256).unwrap();
    let b = federated_observed_export(&federation_of(&two), DigestAlgorithm::Sha256).unwrap();
    // node_c observed nothing: the graphs are equal, the exports are not.
    assert_eq!(federation_of(&three).graph(), federation_of(&two).graph());
    assert_ne!(a.bytes, b.bytes);
}

#[test]
fn a_later_snapshot_of_a_node_replaces_its_earlier_one() {
    let mut f = Federation::new();
    f.contribute("a", &graph_of(&vec![(EdgeKey::dispatch("t"), 2)]));
    f.contribute("a", &graph_of(&vec![(EdgeKey::dispatch("t"), 7)]));
    f.contribute("a", &graph_of(&vec![(EdgeKey::dispatch("t"), 2)]));
    assert_eq!(
        f.graph().edge(&EdgeKey::dispatch("t")).unwrap().count,
        Some(7)
    );
    assert_eq!(f.contributors().collect::<Vec<_>>(), ["a"]);
}

fn observations() -> impl Strategy<Value = Observations> {
    let key = prop_oneof![
        (0..4u8).prop_map(|t| EdgeKey::dispatch(&format!("tool{t}"))),
        (0..3u8, 0..3u8).prop_map(|(a, b)| module(&format!("m{a}"), &format!("m{b}"))),
    ];
    prop::collection::vec((key, 0..1000u64), 0..6)
}

fn contributions() -> impl Strategy<Value = Vec<(String, Observations)>> {
    prop::collection::vec(
        ((0..4u8).prop_map(|n| format!("node{n}")), observations()),
        0..6,
    )
}

fn export(f: &Federation) -> Vec<u8> {
    federated_observed_export(f, DigestAlgorithm::Sha256)
        .unwrap()
        .bytes
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// Whatever order the nodes answer in, and however often one answers, the bytes are the
    /// same, and the documented derivation agrees.
    #[test]
    fn bytes_do_not_depend_on_arrival_order(
        nodes in contributions(),
        order in prop::collection::vec(any::<prop::sample::Index>(), 0..12),
    ) {
        let refs: Vec<(&str, Observations)> =
            nodes.iter().map(|(n, o)| (n.as_str(), o.clone())).collect();
        let in_order = export(&federation_of(&refs));
        prop_assert_eq!(&in_order, &derived(&refs));
        // Reversed, then with repeats at arbitrary places.
        let mut reordered = refs.clone();
        reordered.reverse();
        if !refs.is_empty() {
            for i in &order {
                reordered.push(refs[i.index(refs.len())].clone());
            }
        }
        prop_assert_eq!(&export(&federation_of(&reordered)), &in_order);
    }

    /// Merging is commutative, associative and idempotent.
    #[test]
    fn merge_is_a_semilattice(a in contributions(), b in contributions(), c in contributions()) {
        let f = |v: &Vec<(String, Observations)>| {
            let refs: Vec<(&str, Observations)> =
                v.iter().map(|(n, o)| (n.as_str(), o.clone())).collect();
            federation_of(&refs)
        };
        let (fa, fb, fc) = (f(&a), f(&b), f(&c));
        let mut ab = fa.clone();
        ab.merge(&fb);
        let mut ba = fb.clone();
        ba.merge(&fa);
        prop_assert_eq!(export(&ab), export(&ba));
        let mut ab_c = ab.clone();
        ab_c.merge(&fc);
        let mut bc = fb.clone();
        bc.merge(&fc);
        let mut a_bc = fa.clone();
        a_bc.merge(&bc);
        prop_assert_eq!(export(&ab_c), export(&a_bc));
        let mut twice = ab.clone();
        twice.merge(&ab);
        prop_assert_eq!(twice, ab);
    }
}
