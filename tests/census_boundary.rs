//! The boundary, enforced: each test here is named by an entry of docs/will-not-implement.md
//! (tests/docs_boundary.rs holds the two to each other in both directions).

use std::path::{Path, PathBuf};

use beam_mcp::catalog::Mode;
use beam_mcp::connectome::model::{EdgeKey, EdgeKind, Graph, Sign};
use beam_mcp::connectome::reach::Reach;
use beam_mcp::ToolSpec;
use beam_mcp::{Answer, Carrier, Catalog, Server, ServerConfig, ToolCall, ToolError, ToolOutput};
use serde_json::{json, Value};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Every `.rs` file under `src/`, with its lines.
fn src_lines() -> Vec<(PathBuf, usize, String)> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    let mut files = Vec::new();
    walk(&root().join("src"), &mut files);
    files.sort();
    assert!(files.len() > 30, "found only {} source files", files.len());
    let mut out = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        for (i, line) in text.lines().enumerate() {
            out.push((
                file.strip_prefix(root()).unwrap().to_path_buf(),
                i + 1,
                line.to_owned(),
            ));
        }
    }
    out
}

/// The lines under src/ that contain any of `words`, case-insensitively.
fn naming(words: &[&str]) -> Vec<String> {
    src_lines()
        .into_iter()
        .filter(|(_, _, line)| {
            let lower = line.to_lowercase();
            words.iter().any(|w| lower.contains(w))
        })
        .map(|(f, n, line)| format!("{}:{n}: {}", f.display(), line.trim()))
        .collect()
}

fn modern(method: &str, params: Value) -> Vec<u8> {
    let mut params = params;
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}
    });
    serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}))
        .unwrap()
}

async fn ask(server: &Server, frame: &[u8]) -> Value {
    match server.answer(frame, Carrier::Stdio).await {
        Answer::Reply(r) => serde_json::from_slice(r.bytes()).unwrap(),
        other => panic!("no reply: {other:?}"),
    }
}

#[test]
fn no_line_under_src_writes_a_sign_other_than_unset() {
    let found: Vec<String> = src_lines()
        .into_iter()
        .filter(|(file, _, line)| {
            file != Path::new("src/connectome/model.rs")
                && [
                    "Sign::Allow",
                    "Sign::Deny",
                    "Sign::Hold",
                    "Sign::Ungoverned",
                ]
                .iter()
                .any(|s| line.contains(s))
        })
        .map(|(f, n, line)| format!("{}:{n}: {}", f.display(), line.trim()))
        .collect();
    assert!(found.is_empty(), "signs written under src/: {found:#?}");
    // Inside the model, the verdicts appear only in the enum and its own naming.
    let model = std::fs::read_to_string(root().join("src/connectome/model.rs")).unwrap();
    let uses = model.matches("Sign::Allow").count();
    assert_eq!(uses, 1, "Sign::Allow is used in model.rs beyond as_str");
}

#[test]
fn no_line_under_src_names_a_receipt() {
    let found = naming(&["receipt"]);
    assert!(found.is_empty(), "{found:#?}");
}

#[test]
fn no_line_under_src_names_an_approval() {
    let found = naming(&["approval", "approve"]);
    assert!(found.is_empty(), "{found:#?}");
}

#[test]
fn no_line_under_src_names_a_risk_tier() {
    let found = naming(&["risk", "tier"]);
    assert!(found.is_empty(), "{found:#?}");
}

#[test]
fn no_line_under_src_names_egress() {
    let found = naming(&["egress"]);
    assert!(found.is_empty(), "{found:#?}");
}

#[test]
fn no_line_under_src_names_a_multi_round_trip_request() {
    let found = naming(&["input_required", "inputrequired", "incomplete"]);
    assert!(found.is_empty(), "{found:#?}");
}

#[test]
fn no_tool_is_defined_under_src_outside_doc_examples() {
    let found: Vec<String> = src_lines()
        .into_iter()
        .filter(|(_, _, line)| {
            let t = line.trim_start();
            line.contains("ToolSpec::new(") && !t.starts_with("//")
        })
        .map(|(f, n, line)| format!("{}:{n}: {}", f.display(), line.trim()))
        .collect();
    assert!(found.is_empty(), "tools defined in the crate: {found:#?}");
}

#[test]
fn no_signing_or_key_dependency() {
    let manifest = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    let deps = manifest
        .split("[dependencies]")
        .nth(1)
        .and_then(|s| s.split("\n[").next())
        .unwrap();
    for name in [
        "ed25519",
        "ring",
        "rsa",
        "p256",
        "p384",
        "ecdsa",
        "openssl",
        "rustls",
        "jsonwebtoken",
        "josekit",
        "aws-lc",
    ] {
        assert!(
            !deps
                .lines()
                .any(|l| l.trim_start().starts_with(name) && l.contains('=')),
            "{name} is a dependency"
        );
    }
    let found = naming(&["signing_key", "private_key", "signature::"]);
    assert!(found.is_empty(), "{found:#?}");
}

#[tokio::test]
async fn an_empty_catalog_serves_no_tool_resource_or_prompt() {
    let server = Server::new(ServerConfig::new(Catalog::new())).unwrap();
    let discover = ask(&server, &modern("server/discover", json!({}))).await;
    let caps = discover["result"]["capabilities"].as_object().unwrap();
    for cap in ["tools", "resources", "prompts"] {
        assert!(caps.get(cap).is_none(), "{cap} advertised: {discover}");
    }
    let list = ask(&server, &modern("tools/list", json!({}))).await;
    assert_eq!(list["error"]["code"], -32601, "{list}");
}

#[tokio::test]
async fn modes_are_advertised_never_enforced() {
    let catalog =
        Catalog::new().tool(ToolSpec::new("wipe", "Changes things.").with_mode(Mode::ReadWrite));
    let server = Server::new(
        ServerConfig::new(catalog)
            .dispatch(|_c: ToolCall| async move { Ok::<_, ToolError>(ToolOutput::text("done")) }),
    )
    .unwrap();
    for carrier_frame in [
        modern("tools/call", json!({"name": "wipe", "arguments": {}})),
        serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "wipe", "arguments": {}}}))
        .unwrap(),
    ] {
        let reply = ask(&server, &carrier_frame).await;
        assert_eq!(reply["result"]["content"][0]["text"], "done", "{reply}");
    }
}

#[test]
fn signs_decide_nothing_reach_reads_every_edge_alike() {
    let mut g = Graph::new();
    g.add_dispatch_edge("pay");
    g.add_edge(EdgeKey::new(EdgeKind::Serves, "tool:pay", "fn:app::pay"));
    let unsigned = Reach::new(&g);
    for sign in [Sign::Deny, Sign::Hold, Sign::Allow, Sign::Ungoverned] {
        let mut signed = g.clone();
        for (key, _) in g.edges() {
            assert!(signed.set_sign(key, sign));
        }
        let reach = Reach::new(&signed);
        assert_eq!(
            reach.path_avoiding("mcp:dispatch", "fn:app::pay", &[]),
            unsigned.path_avoiding("mcp:dispatch", "fn:app::pay", &[])
        );
        assert!(reach.reaches("mcp:dispatch", "fn:app::pay").unwrap());
    }
}

#[tokio::test]
async fn no_server_to_client_traffic_is_advertised() {
    let catalog = Catalog::new()
        .tool(ToolSpec::new("t", "T."))
        .resource(beam_mcp::catalog::ResourceSpec::new("a://b", "b"))
        .reader(|uri: String| async move {
            Ok::<_, beam_mcp::catalog::ReadError>(vec![beam_mcp::catalog::ResourceContents::text(
                uri, "",
            )])
        });
    let server = Server::new(
        ServerConfig::new(catalog)
            .dispatch(|_c: ToolCall| async move { Ok::<_, ToolError>(ToolOutput::text("")) }),
    )
    .unwrap();
    let discover = ask(&server, &modern("server/discover", json!({}))).await;
    let caps = &discover["result"]["capabilities"];
    assert_eq!(caps["tools"]["listChanged"], false, "{caps}");
    assert_eq!(caps["resources"]["listChanged"], false, "{caps}");
    assert_eq!(caps["resources"]["subscribe"], false, "{caps}");
    let sub = ask(
        &server,
        &modern("resources/subscribe", json!({"uri": "a://b"})),
    )
    .await;
    assert_eq!(sub["error"]["code"], -32601, "{sub}");
    // Every tool result is complete: there is no second round trip to ask for.
    let call = ask(&server, &modern("tools/call", json!({"name": "t"}))).await;
    assert_eq!(call["result"]["resultType"], "complete", "{call}");
}
