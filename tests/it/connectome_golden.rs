//! Golden exports: byte-stable across runs and platforms, and re-derivable from
//! `docs/connectome-canonical.md` alone (checked here by an independent python3 recipe).
//! Regenerate with `UPDATE_GOLDEN=1 cargo test --test it connectome_golden`.

use std::path::{Path, PathBuf};
use std::process::Command;

use beam_mcp::connectome::canonical::{verify, DigestAlgorithm, Sealed};
use beam_mcp::connectome::declared::{
    BoundEntry, BoundReason, CompletenessBound, Declared, DeclaredInput, ToolEntry,
};
use beam_mcp::connectome::diff::Diff;
use beam_mcp::connectome::export::{declared_export, diff_export, observed_export};
use beam_mcp::connectome::model::{EdgeKey, EdgeKind, Graph, Node, NodeKind, Sign};

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

fn check(name: &str, sealed: &Sealed) {
    let path = golden_dir().join(name);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, &sealed.bytes).unwrap();
    }
    let golden = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(
        String::from_utf8_lossy(&golden),
        String::from_utf8_lossy(&sealed.bytes),
        "{name} drifted from its golden file"
    );
    assert_eq!(verify(&golden).unwrap().digest, sealed.digest);
}

fn declared_graph() -> Graph {
    let mut g = Graph::new();
    // A decomposed "é" (e + U+0301) is written in NFC; quotes and newlines are escaped.
    for tool in ["get_weather", "cafe\u{301}", "say \"hi\"\n"] {
        g.add_dispatch_edge(tool);
    }
    let mut f = Node::new("fn:host::api::get_weather", NodeKind::Function);
    f.package = Some("host".into());
    f.module = Some("host::api".into());
    g.add_node(f);
    g.add_edge(EdgeKey::new(
        EdgeKind::Serves,
        "tool:get_weather",
        "fn:host::api::get_weather",
    ));
    g.add_edge(EdgeKey::new(
        EdgeKind::Call,
        "fn:host::api::get_weather",
        "fn:host::db::read",
    ));
    g.add_edge(EdgeKey::new(
        EdgeKind::ModuleCall,
        "module:host::api",
        "module:host::db",
    ));
    g
}

fn declared() -> Declared {
    let mut bound = CompletenessBound::default();
    bound.push(BoundEntry {
        file: Some("src/api.rs".into()),
        line: 12,
        column: 5,
        reason: BoundReason::TraitObjectMethod,
        caller: Some("fn:host::api::get_weather".into()),
        callee: "backend.temperature".into(),
    });
    bound.push(BoundEntry {
        file: Some("src/api.rs".into()),
        line: 14,
        column: 9,
        reason: BoundReason::ExternalPath,
        caller: Some("fn:host::api::get_weather".into()),
        callee: "serde_json::to_string".into(),
    });
    bound.push(BoundEntry {
        file: Some("src/broken.rs".into()),
        line: 3,
        column: 1,
        reason: BoundReason::ParseError,
        caller: None,
        callee: "host::broken".into(),
    });
    Declared::from_parts(declared_graph(), bound)
}

fn observed_graph() -> Graph {
    let mut g = Graph::new();
    g.add_count(EdgeKey::dispatch("get_weather"), 41);
    g.add_count(EdgeKey::dispatch("undeclared_tool"), 2);
    g.add_count(
        EdgeKey::new(EdgeKind::ModuleCall, "module:host::api", "module:host::db"),
        40,
    );
    // A consumer's verdict, written by the consumer (this test), never by the crate.
    g.set_sign(
        &EdgeKey::new(EdgeKind::ModuleCall, "module:host::api", "module:host::db"),
        Sign::Allow,
    );
    g
}

fn host_crate_declared() -> Declared {
    let mut input = DeclaredInput::new(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/host_crate/Cargo.toml"),
    );
    input.tools = vec![
        ToolEntry::new("get_weather", Some("host_crate::weather::api::get_weather")),
        ToolEntry::new(
            "get_forecast",
            Some("host_crate::weather::api::get_forecast"),
        ),
    ];
    Declared::build(&input).unwrap()
}

#[test]
fn declared_export_matches_golden() {
    check(
        "connectome_declared.json",
        &declared_export(&declared(), DigestAlgorithm::Sha256).unwrap(),
    );
}

#[test]
fn observed_export_matches_golden() {
    check(
        "connectome_observed.json",
        &observed_export(&observed_graph(), DigestAlgorithm::Sha256).unwrap(),
    );
    check(
        "connectome_observed_sha512.json",
        &observed_export(&observed_graph(), DigestAlgorithm::Sha512).unwrap(),
    );
}

#[test]
fn diff_export_matches_golden() {
    let diff = Diff::run(&declared_graph(), &observed_graph());
    check(
        "connectome_diff.json",
        &diff_export(&diff, DigestAlgorithm::Sha256).unwrap(),
    );
}

#[test]
fn host_crate_declared_export_matches_golden() {
    check(
        "connectome_declared_host_crate.json",
        &declared_export(&host_crate_declared(), DigestAlgorithm::Sha384).unwrap(),
    );
}

#[test]
fn exports_are_byte_stable_across_runs() {
    let a = declared_export(&host_crate_declared(), DigestAlgorithm::Sha256).unwrap();
    let b = declared_export(&host_crate_declared(), DigestAlgorithm::Sha256).unwrap();
    assert_eq!(a, b);
}

/// The recipe of docs/connectome-canonical.md §"Re-deriving the digest", written
/// independently in Python (json + unicodedata + hashlib).
const RECIPE: &str = r#"
import hashlib, json, sys, unicodedata
def nfc(s): return unicodedata.normalize("NFC", s)
def enc(v):
    if v is None: return "null"
    if v is True: return "true"
    if v is False: return "false"
    if isinstance(v, int):
        assert abs(v) <= 2**53 - 1
        return str(v)
    if isinstance(v, float): raise SystemExit("no floats in exports")
    if isinstance(v, str): return json.dumps(nfc(v), ensure_ascii=False)
    if isinstance(v, list): return "[" + ",".join(enc(x) for x in v) + "]"
    items = sorted(((nfc(k), x) for k, x in v.items()), key=lambda kv: kv[0].encode("utf-16-be"))
    return "{" + ",".join(enc(k) + ":" + enc(x) for k, x in items) + "}"
for path in sys.argv[1:]:
    raw = open(path, "rb").read()
    def pairs(members):
        keys = [nfc(k) for k, _ in members]
        assert len(set(keys)) == len(keys), ("repeated key", path)
        return dict(members)
    doc = json.loads(raw.decode("utf-8"), object_pairs_hook=pairs)
    assert doc["schema_version"] == 2
    digest = doc.pop("digest")
    algo = {"sha256": hashlib.sha256, "sha384": hashlib.sha384, "sha512": hashlib.sha512}[doc["digest_algorithm"]]
    got = algo(enc(doc).encode("utf-8")).hexdigest()
    assert got == digest, (path, got, digest)
    doc["digest"] = digest
    assert enc(doc).encode("utf-8") == raw, path
    print("ok", path)
"#;

#[test]
fn python_rederives_every_golden_digest() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(golden_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("connectome_") && n.ends_with(".json"))
        })
        .collect();
    // The goldens' committed inputs (connectome_golden_inputs) are sealed exports too.
    files.extend(
        std::fs::read_dir(golden_dir().join("inputs"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "json")),
    );
    files.sort();
    assert!(files.len() >= 5, "golden files missing: {files:?}");
    let output = Command::new("python3")
        .arg("-c")
        .arg(RECIPE)
        .args(&files)
        .output()
        .expect("python3 runs");
    assert!(
        output.status.success(),
        "python recipe failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&output.stdout).lines().count(),
        files.len()
    );
}

/// The python block of docs/connectome-canonical.md §3, as written.
fn page_recipe() -> String {
    let page = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/connectome-canonical.md"),
    )
    .unwrap();
    let start = page
        .find("```python\n")
        .expect("the page has a python block")
        + 10;
    let len = page[start..].find("```").unwrap();
    page[start..start + len].to_owned()
}

fn run_python(script: &str) -> std::process::Output {
    Command::new("python3")
        .arg("-c")
        .arg(script)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("python3 runs")
}

#[test]
fn the_page_recipe_runs_and_refuses_outside_its_domain() {
    let recipe = page_recipe();
    let ok = run_python(&recipe);
    assert!(
        ok.status.success(),
        "the page's recipe fails on its own golden file: {}",
        String::from_utf8_lossy(&ok.stderr)
    );
    // The recipe's own functions, on documents outside the integer-only domain: each must
    // raise, where a recipe without the checks would write bytes.
    let (functions, _) = recipe
        .split_once("raw = open(")
        .expect("the recipe reads a file");
    let probe = format!(
        r#"{functions}
assert enc(load(b'{{"b":[1,"\u00e9"],"a":null}}')) == '{{"a":null,"b":[1,"\u00e9"]}}'
for bad in [b'{{"a":1,"a":2}}', b'{{"\u00e9":1,"e\u0301":2}}', b'[1.5]', b'[NaN]',
            b'[9007199254740992]', b'["\ud800"]']:
    try:
        enc(load(bad))
    except (ValueError, UnicodeError):
        print("refused", bad)
    else:
        raise SystemExit("accepted %r" % bad)
"#
    );
    let out = run_python(&probe);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 6);
}
