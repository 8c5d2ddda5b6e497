//! The boundary, enforced: each test here is named by an entry of docs/will-not-implement.md
//! (`docs_boundary` holds the two to each other in both directions).
//!
//! The checks on the crate's source read its tokens (`support::source`), never its lines:
//! identifiers, paths and literals, with comments and doc comments left out. A comment that
//! names a receipt cannot fail them, and one cannot make them pass.

use std::path::{Path, PathBuf};

use crate::support::source::{has_segments, paths, root, src_tokens, Token};
use beam_mcp::catalog::Mode;
use beam_mcp::connectome::model::{EdgeKey, EdgeKind, Graph, Sign};
use beam_mcp::connectome::reach::Reach;
use beam_mcp::ToolSpec;
use beam_mcp::{Answer, Carrier, Catalog, Server, ServerConfig, ToolCall, ToolError, ToolOutput};
use serde_json::{json, Value};

/// The identifiers and literals under src/ that contain any of `words`, case-insensitively.
fn naming(words: &[&str]) -> Vec<String> {
    let mut found = Vec::new();
    for (file, tokens) in src_tokens() {
        for token in tokens {
            let (Token::Ident(text) | Token::Literal(text)) = &token else {
                continue;
            };
            let lower = text.to_lowercase();
            if words.iter().any(|w| lower.contains(w)) {
                found.push(format!("{}: {text}", file.display()));
            }
        }
    }
    found
}

/// The paths under src/ holding any of `wanted` as consecutive segments, by file.
fn paths_naming(wanted: &[&[&str]]) -> Vec<(PathBuf, String)> {
    let mut found = Vec::new();
    for (file, tokens) in src_tokens() {
        for path in paths(&tokens) {
            if wanted.iter().any(|w| has_segments(&path, w)) {
                found.push((file.clone(), path.join("::")));
            }
        }
    }
    found
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
    let verdicts: [&[&str]; 4] = [
        &["Sign", "Allow"],
        &["Sign", "Deny"],
        &["Sign", "Hold"],
        &["Sign", "Ungoverned"],
    ];
    let found = paths_naming(&verdicts);
    let model = Path::new("src/connectome/model.rs");
    let outside: Vec<_> = found.iter().filter(|(f, _)| f != model).collect();
    assert!(outside.is_empty(), "signs written under src/: {outside:#?}");
    // Inside the model, the verdicts appear only in the enum's own naming: `as_str` (a sign's
    // name) and `from_name` (a consumer's verdict read back from an export).
    let uses = found
        .iter()
        .filter(|(f, p)| f == model && p.ends_with("Sign::Allow"))
        .count();
    assert_eq!(
        uses, 2,
        "Sign::Allow is used in model.rs beyond as_str and from_name"
    );
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
    let found = paths_naming(&[&["ToolSpec", "new"]]);
    assert!(found.is_empty(), "tools defined in the crate: {found:#?}");
}

/// The crate's own dependencies (normal and build, every target and feature), by package name,
/// as cargo reads the manifest.
fn dependencies() -> Vec<String> {
    let out = std::process::Command::new(env!("CARGO"))
        .args([
            "metadata",
            "--no-deps",
            "--offline",
            "--format-version",
            "1",
        ])
        .arg("--manifest-path")
        .arg(root().join("Cargo.toml"))
        .output()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let metadata: Value = serde_json::from_slice(&out.stdout).unwrap();
    let package = metadata["packages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "beam-mcp")
        .expect("the beam-mcp package");
    let deps: Vec<String> = package["dependencies"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["kind"] != "dev")
        .map(|d| d["name"].as_str().unwrap().to_owned())
        .collect();
    assert!(
        deps.iter().any(|d| d == "sha2"),
        "read no dependencies: {deps:?}"
    );
    deps
}

#[test]
fn no_signing_or_key_dependency() {
    let deps = dependencies();
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
            !deps.iter().any(|d| d.starts_with(name)),
            "{name} is a dependency"
        );
    }
    let found = naming(&["signing_key", "private_key"]);
    assert!(found.is_empty(), "{found:#?}");
    // `signature::…`: a path through a module or crate of that name.
    let found: Vec<_> = src_tokens()
        .into_iter()
        .flat_map(|(file, tokens)| {
            paths(&tokens)
                .into_iter()
                .filter(|p| p.iter().rev().skip(1).any(|s| *s == "signature"))
                .map(|p| format!("{}: {}", file.display(), p.join("::")))
                .collect::<Vec<_>>()
        })
        .collect();
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
