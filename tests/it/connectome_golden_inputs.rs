//! The inputs of every golden export, committed beside it in `tests/golden/inputs/`, and each
//! golden built from them through `beam_mcp::connectome::import` (the path the `connectome`
//! command line takes; `connectome_cli` runs the binary on the same files).
//!
//! | golden | inputs |
//! |---|---|
//! | `connectome_effective.json` | `inputs/effective_declared.json`, `inputs/effective_observed.json` |
//! | `connectome_effective_federated.json` | `inputs/effective_declared.json`, `inputs/effective_federated_observed.json` (itself built from `inputs/effective_node_{a,b,c}.json`) |
//! | `connectome_federated_observed.json` | `inputs/federated_node_{a,b,c}.json` |
//! | `connectome_diff.json` | `connectome_declared.json`, `connectome_observed.json` |
//!
//! The inputs are themselves goldens of the graphs written here (`UPDATE_GOLDEN=1` rewrites
//! them).

use std::path::{Path, PathBuf};

use beam_mcp::connectome::canonical::DigestAlgorithm;
use beam_mcp::connectome::declared::{CompletenessBound, Declared};
use beam_mcp::connectome::diff::Diff;
use beam_mcp::connectome::effective::{contributed_effective_export, effective_export};
use beam_mcp::connectome::export::{declared_export, diff_export, observed_export};
use beam_mcp::connectome::federation::{federated_observed_export, Federation};
use beam_mcp::connectome::import::{import, Role};
use beam_mcp::connectome::model::{EdgeKey, EdgeKind, Graph};

fn golden_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name)
}

fn read(name: &str) -> Vec<u8> {
    let path = golden_path(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn check(name: &str, bytes: &[u8]) {
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(golden_path(name), bytes).unwrap();
    }
    assert_eq!(
        String::from_utf8_lossy(&read(name)),
        String::from_utf8_lossy(bytes),
        "{name} drifted"
    );
}

fn observed(counts: &[(EdgeKey, u64)]) -> Graph {
    let mut o = Graph::new();
    for (key, n) in counts {
        o.add_count(key.clone(), *n);
    }
    o
}

fn module(from: &str, to: &str) -> EdgeKey {
    EdgeKey::new(
        EdgeKind::ModuleCall,
        format!("module:{from}"),
        format!("module:{to}"),
    )
}

/// The effective goldens' declared graph: two dispatch edges, a serves edge, a module edge.
fn effective_declared() -> Graph {
    let mut d = Graph::new();
    d.add_dispatch_edge("a");
    d.add_dispatch_edge("b");
    d.add_edge(EdgeKey::new(EdgeKind::Serves, "tool:a", "fn:host::a"));
    d.add_edge(module("host", "host::db"));
    d
}

fn effective_nodes() -> [(&'static str, Graph); 3] {
    [
        ("node_a", observed(&[(EdgeKey::dispatch("a"), 3)])),
        (
            "node_b",
            observed(&[(EdgeKey::dispatch("a"), 1), (EdgeKey::dispatch("c"), 2)]),
        ),
        ("node_c", observed(&[])),
    ]
}

fn federated_nodes() -> [(&'static str, Graph); 3] {
    [
        (
            "node_a",
            observed(&[
                (EdgeKey::dispatch("get_weather"), 3),
                (EdgeKey::dispatch("get_forecast"), 1),
            ]),
        ),
        (
            "node_b",
            observed(&[
                (EdgeKey::dispatch("get_weather"), 2),
                (module("host::api", "host::db"), 5),
            ]),
        ),
        ("node_c", observed(&[])),
    ]
}

const SHA256: DigestAlgorithm = DigestAlgorithm::Sha256;

fn federation_of(files: &[(&str, String)]) -> Federation {
    let mut f = Federation::new();
    for (node, file) in files {
        f.contribute(node, &import(&read(file), Role::Observed).unwrap().graph);
    }
    f
}

#[test]
fn the_inputs_are_the_exports_of_the_documented_graphs() {
    let declared = Declared::from_parts(effective_declared(), CompletenessBound::default());
    check(
        "inputs/effective_declared.json",
        &declared_export(&declared, SHA256).unwrap().bytes,
    );
    let one = observed(&[(EdgeKey::dispatch("a"), 3), (EdgeKey::dispatch("c"), 2)]);
    check(
        "inputs/effective_observed.json",
        &observed_export(&one, SHA256).unwrap().bytes,
    );
    let mut federation = Federation::new();
    for (node, graph) in effective_nodes() {
        check(
            &format!("inputs/effective_{node}.json"),
            &observed_export(&graph, SHA256).unwrap().bytes,
        );
        federation.contribute(node, &graph);
    }
    check(
        "inputs/effective_federated_observed.json",
        &federated_observed_export(&federation, SHA256)
            .unwrap()
            .bytes,
    );
    for (node, graph) in federated_nodes() {
        check(
            &format!("inputs/federated_{node}.json"),
            &observed_export(&graph, SHA256).unwrap().bytes,
        );
    }
}

#[test]
fn every_golden_is_built_from_its_committed_inputs() {
    let declared = import(&read("inputs/effective_declared.json"), Role::Declared).unwrap();
    let one = import(&read("inputs/effective_observed.json"), Role::Observed).unwrap();
    assert_eq!(
        effective_export(&declared.graph, &one.graph, SHA256)
            .unwrap()
            .bytes,
        read("connectome_effective.json")
    );

    let nodes: Vec<(&str, String)> = ["node_a", "node_b", "node_c"]
        .into_iter()
        .map(|n| (n, format!("inputs/effective_{n}.json")))
        .collect();
    assert_eq!(
        federated_observed_export(&federation_of(&nodes), SHA256)
            .unwrap()
            .bytes,
        read("inputs/effective_federated_observed.json")
    );
    let federated = import(
        &read("inputs/effective_federated_observed.json"),
        Role::ObservedOrFederated,
    )
    .unwrap();
    let contributors = federated.contributors.clone().unwrap();
    assert_eq!(contributors, ["node_a", "node_b", "node_c"]);
    assert_eq!(
        contributed_effective_export(&declared.graph, &federated.graph, contributors, SHA256)
            .unwrap()
            .bytes,
        read("connectome_effective_federated.json")
    );

    let nodes: Vec<(&str, String)> = ["node_a", "node_b", "node_c"]
        .into_iter()
        .map(|n| (n, format!("inputs/federated_{n}.json")))
        .collect();
    assert_eq!(
        federated_observed_export(&federation_of(&nodes), SHA256)
            .unwrap()
            .bytes,
        read("connectome_federated_observed.json")
    );

    let declared = import(&read("connectome_declared.json"), Role::Declared).unwrap();
    let observed = import(&read("connectome_observed.json"), Role::Observed).unwrap();
    assert_eq!(
        diff_export(&Diff::run(&declared.graph, &observed.graph), SHA256)
            .unwrap()
            .bytes,
        read("connectome_diff.json")
    );
}

/// The worked example of `docs/connectome-canonical.md` §5 is the federated golden and its
/// three node snapshots, verbatim.
#[test]
fn the_canonical_page_s_worked_example_is_a_committed_golden() {
    let page = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/connectome-canonical.md"),
    )
    .unwrap();
    for file in [
        "inputs/federated_node_a.json",
        "inputs/federated_node_b.json",
        "inputs/federated_node_c.json",
        "connectome_federated_observed.json",
    ] {
        let bytes = String::from_utf8(read(file)).unwrap();
        assert!(
            page.contains(&format!("```json\n{bytes}\n```")),
            "the page lacks {file} verbatim"
        );
    }
}
