//! The rules `docs/connectome-effective.md` §6 decides (issue 30's eleven points), one test
//! each, through the crate's entry points: the export functions and `import`, the path the
//! `connectome` command line reads its inputs by.

use std::path::Path;

use beam_mcp::connectome::canonical::{seal, CanonicalError, DigestAlgorithm, MAX_SAFE_INTEGER};
use beam_mcp::connectome::effective::{effective_export, federated_effective_export};
use beam_mcp::connectome::export::ExportKind;
use beam_mcp::connectome::federation::{
    federated_observed_export, Federation, FEDERATED_OBSERVED_KIND,
};
use beam_mcp::connectome::import::{import, ImportError, Role};
use beam_mcp::connectome::model::{EdgeKey, EdgeKind, Graph, Node, NodeKind, Sign};
use serde_json::{json, Value};

const SHA256: DigestAlgorithm = DigestAlgorithm::Sha256;

fn body(bytes: &[u8]) -> Value {
    serde_json::from_slice::<Value>(bytes).unwrap()["body"].clone()
}

fn page(name: &str) -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("docs")
            .join(name),
    )
    .unwrap()
}

fn golden(name: &str) -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/golden")
            .join(name),
    )
    .unwrap()
}

/// An observed export sealed around `edges` (nodes derived from the endpoints), whatever
/// the edges say: the crate's seal writes any body, `import` judges it.
fn sealed_observed(edges: Value) -> Vec<u8> {
    let mut ids: Vec<String> = Vec::new();
    for e in edges.as_array().unwrap() {
        for end in ["from", "to"] {
            let id = e[end].as_str().unwrap().to_owned();
            if !ids.contains(&id) {
                ids.push(id);
            }
        }
    }
    ids.sort();
    let nodes: Vec<Value> = ids
        .iter()
        .map(|id| {
            let kind = if id == "mcp:dispatch" {
                "dispatch"
            } else {
                "tool"
            };
            json!({"id": id, "kind": kind, "module": null, "package": null})
        })
        .collect();
    seal(
        "observed",
        json!({"graph": {"edges": edges, "nodes": nodes}}),
        SHA256,
    )
    .unwrap()
    .bytes
}

fn dispatch_edge(to: &str, count: Value) -> Value {
    json!({"count": count, "from": "mcp:dispatch", "kind": "dispatch", "sign": "unset", "to": to})
}

/// Point 1 and 4: the page's worked example is the committed inputs and the golden, verbatim.
#[test]
fn p1_the_worked_example_is_the_committed_inputs_and_golden() {
    let text = page("connectome-effective.md");
    for file in [
        "inputs/effective_declared.json",
        "inputs/effective_observed.json",
        "connectome_effective.json",
    ] {
        assert!(
            text.contains(&golden(file)),
            "the page lacks {file} verbatim"
        );
    }
}

/// Point 2: a node's kind is written as the declared export lists it; a node the declared
/// graph holds only as an edge endpoint has the kind its id's prefix names and null grouping.
#[test]
fn p2_node_kinds_and_grouping_are_the_declared_graph_s() {
    let mut d = Graph::new();
    let mut f = Node::new("fn:host::api::f", NodeKind::Function);
    f.module = Some("host::api".into());
    f.package = Some("host".into());
    d.add_node(f);
    d.add_edge(EdgeKey::new(EdgeKind::Serves, "tool:t", "fn:host::api::f"));
    d.add_edge(EdgeKey::new(
        EdgeKind::Call,
        "fn:host::api::f",
        "fn:host::db::g",
    ));
    let b = body(&effective_export(&d, &Graph::new(), SHA256).unwrap().bytes);
    assert_eq!(
        b["graph"]["nodes"],
        json!([
            {"id": "fn:host::api::f", "kind": "function", "module": "host::api", "package": "host"},
            {"id": "fn:host::db::g", "kind": "function", "module": null, "package": null},
            {"id": "tool:t", "kind": "tool", "module": null, "package": null},
        ])
    );
}

/// Point 3: `contributors` is `null` only for one node's observed graph; a federation, even of
/// one node, names its contributors.
#[test]
fn p3_a_federation_of_one_names_its_one_contributor() {
    let mut d = Graph::new();
    d.add_dispatch_edge("a");
    let mut o = Graph::new();
    o.add_count(EdgeKey::dispatch("a"), 1);
    let mut f = Federation::new();
    f.contribute("only", &o);
    let one = body(&effective_export(&d, &o, SHA256).unwrap().bytes);
    let fed = body(&federated_effective_export(&d, &f, SHA256).unwrap().bytes);
    assert_eq!(one["contributors"], Value::Null);
    assert_eq!(fed["contributors"], json!(["only"]));
    assert_eq!(one["graph"], fed["graph"]);
}

/// Point 4: an input count is an integer token 1..=2^53 − 1 (`3.0` is not canonical, `-1`
/// and `0` are refused by `import`), and a federated sum past 2^53 − 1 is refused when the
/// export is sealed.
#[test]
fn p4_counts_are_integers_from_1_to_2_53_minus_1() {
    for bad in [json!(-1), json!(0)] {
        let bytes = sealed_observed(json!([dispatch_edge("tool:a", bad)]));
        assert!(matches!(
            import(&bytes, Role::Observed),
            Err(ImportError::Count { .. })
        ));
    }
    let good = sealed_observed(json!([dispatch_edge("tool:a", json!(3))]));
    let float = String::from_utf8(good)
        .unwrap()
        .replace("\"count\":3", "\"count\":3.0");
    assert!(matches!(
        import(float.as_bytes(), Role::Observed),
        Err(ImportError::Seal(CanonicalError::NotCanonical))
    ));
    let mut big = Graph::new();
    big.add_count(EdgeKey::dispatch("a"), MAX_SAFE_INTEGER);
    let mut f = Federation::new();
    f.contribute("n1", &big);
    f.contribute("n2", &big);
    assert!(matches!(
        federated_observed_export(&f, SHA256),
        Err(CanonicalError::IntegerOutOfRange { .. })
    ));
    let mut d = Graph::new();
    d.add_dispatch_edge("a");
    assert!(matches!(
        federated_effective_export(&d, &f, SHA256),
        Err(CanonicalError::IntegerOutOfRange { .. })
    ));
}

/// Point 5: built in the crate, ids equal after NFC are one node and one edge — observed counts
/// add, the later sign set wins, the first node's kind stays and a missing grouping is filled;
/// read from a file, an identity listed twice is refused.
#[test]
fn p5_one_identity_after_nfc() {
    let mut o = Graph::new();
    o.add_count(EdgeKey::dispatch("caf\u{e9}"), 2);
    o.add_count(EdgeKey::dispatch("cafe\u{301}"), 3);
    assert_eq!(o.edge_count(), 1);
    assert_eq!(
        o.edge(&EdgeKey::dispatch("caf\u{e9}")).unwrap().count,
        Some(5)
    );

    let mut d = Graph::new();
    d.add_dispatch_edge("caf\u{e9}");
    d.set_sign(&EdgeKey::dispatch("caf\u{e9}"), Sign::Hold);
    d.add_dispatch_edge("cafe\u{301}");
    d.set_sign(&EdgeKey::dispatch("cafe\u{301}"), Sign::Deny);
    assert_eq!(
        d.edge(&EdgeKey::dispatch("caf\u{e9}")).unwrap().sign,
        Sign::Deny
    );
    let mut m = Node::new("fn:caf\u{e9}", NodeKind::Function);
    m.module = Some("m".into());
    d.add_node(Node::new("fn:cafe\u{301}", NodeKind::Function));
    d.add_node(m);
    let node = d.node("fn:caf\u{e9}").unwrap();
    assert_eq!(
        (node.kind, node.module.as_deref()),
        (NodeKind::Function, Some("m"))
    );

    // Sealing writes both spellings as one string: the file lists the identity twice.
    let bytes = sealed_observed(json!([
        dispatch_edge("tool:caf\u{e9}", json!(2)),
        dispatch_edge("tool:cafe\u{301}", json!(3)),
    ]));
    assert!(matches!(
        import(&bytes, Role::Observed),
        Err(ImportError::DuplicateNode { .. } | ImportError::DuplicateEdge { .. })
    ));
}

/// Point 6: what is sorted is the NFC form (a decomposed `é` would sort before `f`; its NFC
/// U+00E9 sorts after it).
#[test]
fn p6_the_nfc_form_is_sorted() {
    let mut d = Graph::new();
    d.add_dispatch_edge("cafe\u{301}");
    d.add_dispatch_edge("caff");
    let b = body(&effective_export(&d, &Graph::new(), SHA256).unwrap().bytes);
    let order: Vec<&str> = b["unseen"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["to"].as_str().unwrap())
        .collect();
    assert_eq!(order, ["tool:caff", "tool:caf\u{e9}"]);
}

/// Point 7: an edge kind, node kind or sign outside the vocabulary has no place: refused by
/// name on input (the crate's types cannot hold one).
#[test]
fn p7_an_unknown_kind_or_sign_is_refused_by_name() {
    let mut edge = dispatch_edge("tool:a", json!(1));
    edge["kind"] = json!("import");
    let refused = import(&sealed_observed(json!([edge])), Role::Observed).unwrap_err();
    assert!(refused.to_string().contains("\"import\""), "{refused}");
    let mut edge = dispatch_edge("tool:a", json!(1));
    edge["sign"] = json!("maybe");
    let refused = import(&sealed_observed(json!([edge])), Role::Observed).unwrap_err();
    assert!(matches!(
        refused,
        ImportError::UnknownName { member: "sign", .. }
    ));
}

/// Point 8 (the command line's side is `connectome_cli`): only sealed exports are inputs, their
/// digest and canonical form verified, an observed edge's count ≥ 1 checked, and the kind
/// must be the one the input takes.
#[test]
fn p8_inputs_are_verified_sealed_exports_of_their_kind() {
    let observed = golden("inputs/effective_observed.json");
    let tampered = observed.replacen("\"count\":3", "\"count\":4", 1);
    assert!(matches!(
        import(tampered.as_bytes(), Role::Observed),
        Err(ImportError::Seal(CanonicalError::DigestMismatch { .. }))
    ));
    assert!(matches!(
        import(observed.as_bytes(), Role::Declared),
        Err(ImportError::WrongKind { .. })
    ));
    let unsealed = serde_json::to_vec(&body(observed.as_bytes())).unwrap();
    assert!(matches!(
        import(&unsealed, Role::Observed),
        Err(ImportError::Seal(_))
    ));
}

/// Point 9: node names equal after NFC are one contributor, its counts the larger, not the sum.
#[test]
fn p9_node_names_equal_after_nfc_are_one_contributor() {
    let mut o = Graph::new();
    o.add_count(EdgeKey::dispatch("a"), 4);
    let mut f = Federation::new();
    f.contribute("n\u{e9}", &o);
    f.contribute("ne\u{301}", &o);
    let b = body(&federated_observed_export(&f, SHA256).unwrap().bytes);
    assert_eq!(b["contributors"], json!(["n\u{e9}"]));
    assert_eq!(b["graph"]["edges"][0]["count"], json!(4));
}

/// Point 10: the canonical page names every export kind the crate writes.
#[test]
fn p10_the_canonical_page_names_every_kind_written() {
    let text = page("connectome-canonical.md");
    let kinds = [
        ExportKind::Declared.as_str(),
        ExportKind::Observed.as_str(),
        ExportKind::Diff.as_str(),
        ExportKind::Effective.as_str(),
        FEDERATED_OBSERVED_KIND,
    ];
    for kind in kinds {
        assert!(
            text.contains(&format!("| `{kind}` ")),
            "no §4 row for {kind}"
        );
    }
}

/// Point 11: a code point the crate's Unicode 18.0.0 tables do not assign is written unchanged
/// — what an older verifier does with a code point new to it — while assigned ones normalize
/// as in every version since (normalization stability: `ḋ` + dot below → `ḍ` + dot above).
#[test]
fn p11_unassigned_code_points_are_written_unchanged() {
    use beam_mcp::connectome::canonical::canonicalize_json;
    let written = canonicalize_json("[\"\u{378}\u{379}\"]".as_bytes()).unwrap();
    assert_eq!(written, "[\"\u{378}\u{379}\"]".as_bytes());
    let written = canonicalize_json("[\"\u{1e0b}\u{323}\"]".as_bytes()).unwrap();
    assert_eq!(written, "[\"\u{1e0d}\u{307}\"]".as_bytes());
}

/// Point 8, the body's shape (`connectome-canonical.md` §6): an extra member, an edge endpoint
/// that is not a listed node, and a count on a declared edge are each refused by name.
#[test]
fn p8_the_body_shape_is_exact() {
    let mut edge = dispatch_edge("tool:a", json!(1));
    edge["weight"] = json!(1);
    let refused = import(&sealed_observed(json!([edge])), Role::Observed).unwrap_err();
    assert!(refused.to_string().contains("\"weight\""), "{refused}");

    let dangling = seal(
        "observed",
        json!({"graph": {"edges": [dispatch_edge("tool:a", json!(1))],
                          "nodes": [{"id": "mcp:dispatch", "kind": "dispatch", "module": null, "package": null}]}}),
        SHA256,
    )
    .unwrap();
    assert!(matches!(
        import(&dangling.bytes, Role::Observed),
        Err(ImportError::DanglingEndpoint { ref id, .. }) if id == "tool:a"
    ));

    let no_completeness = seal(
        "declared",
        json!({"completeness": {"dynamic_dispatch": []}, "graph": {"edges": [], "nodes": []}}),
        SHA256,
    )
    .unwrap();
    let refused = import(&no_completeness.bytes, Role::Declared).unwrap_err();
    assert!(refused.to_string().contains("outside_scope"), "{refused}");

    let counted = seal(
        "declared",
        json!({"completeness": {"dynamic_dispatch": [], "outside_scope": [], "unreadable": []},
               "graph": {"edges": [dispatch_edge("tool:a", json!(1))],
                         "nodes": [{"id": "mcp:dispatch", "kind": "dispatch", "module": null, "package": null},
                                   {"id": "tool:a", "kind": "tool", "module": null, "package": null}]}}),
        SHA256,
    )
    .unwrap();
    assert!(matches!(
        import(&counted.bytes, Role::Declared),
        Err(ImportError::Count { .. })
    ));
}
