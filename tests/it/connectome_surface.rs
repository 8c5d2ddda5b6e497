//! The connectome on the wire: the four resources and the `observe` tool answer the file
//! exports byte for byte; reading changes nothing; adding the surface changes the five
//! advertising methods by exactly the three added entries, over stdio and over HTTP.

use crate::support::http as http_rig;

use std::path::Path;
use std::process::Command;

use beam_mcp::catalog::{
    Mode, PromptArgument, PromptMessage, PromptSpec, ReadError, RenderError, RenderedPrompt,
    ResourceContents, ResourceSpec, ResourceTemplateSpec, Role,
};
use beam_mcp::connectome::canonical::{verify, DigestAlgorithm};
use beam_mcp::connectome::declared::{Declared, DeclaredInput, ToolEntry};
use beam_mcp::connectome::export::ExportKind;
use beam_mcp::connectome::observed::Collector;
use beam_mcp::connectome::reporter::build_export;
use beam_mcp::connectome::surface::{
    Surface, DECLARED_URI, DIFF_URI, EFFECTIVE_URI, MIME_TYPE, OBSERVED_URI,
};
use beam_mcp::transport::http::{AllowedOrigins, HttpService};
use beam_mcp::transport::stdio::{serve, StdioOptions};
use beam_mcp::{
    Answer, Arguments, BoxFuture, Carrier, Catalog, Server, ServerConfig, ToolCall, ToolError,
    ToolOutput, ToolSpec,
};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

const MODERN: &str = "2026-07-28";
const URIS: [&str; 4] = [DECLARED_URI, OBSERVED_URI, DIFF_URI, EFFECTIVE_URI];
const ADVERTISING: [&str; 5] = [
    "server/discover",
    "tools/list",
    "resources/list",
    "resources/templates/list",
    "prompts/list",
];

fn manifest() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/host_crate/Cargo.toml")
}

fn tools() -> Vec<ToolEntry> {
    vec![
        ToolEntry::new("get_weather", Some("host_crate::weather::api::get_weather")),
        ToolEntry::new("bare", None),
    ]
}

fn declared() -> Declared {
    let mut input = DeclaredInput::new(manifest());
    input.tools = tools();
    Declared::build(&input).unwrap()
}

fn collector() -> Collector {
    let c = Collector::new();
    c.attach();
    for _ in 0..3 {
        c.record_dispatch("get_weather");
    }
    c.record_dispatch("undeclared");
    c.record_module_edge("host_crate::weather", "host_crate::db");
    c
}

fn rpc(id: u64, method: &str, mut params: Value) -> Value {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {}
    });
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

async fn ask(server: &Server, request: &Value) -> Value {
    match server
        .answer(&serde_json::to_vec(request).unwrap(), Carrier::Stdio)
        .await
    {
        Answer::Reply(r) => serde_json::from_slice(r.bytes()).unwrap(),
        other => panic!("no reply: {other:?}"),
    }
}

fn observe_spec() -> ToolSpec {
    // Copied from the module docs of `connectome::surface`, as a host would.
    ToolSpec::new(
        "observe",
        "Read one connectome export (declared, observed, diff or effective) as canonical bytes.",
    )
    .with_mode(Mode::ReadOnly)
    .with_input_schema(json!({
        "type": "object",
        "properties": {"export": {"type": "string", "description": "declared, observed, diff or effective"}},
        "required": ["export"],
        "additionalProperties": false
    }))
}

/// The host before the surface: a tool, a resource, a template, a prompt.
fn base_catalog() -> Catalog {
    Catalog::new()
        .tool(
            ToolSpec::new("get_weather", "Weather.").with_input_schema(json!({
                "type": "object",
                "properties": {"place": {"type": "string"}},
                "required": ["place"]
            })),
        )
        .resource(ResourceSpec::new("weather://places", "places").with_mime_type("text/plain"))
        .resource(ResourceTemplateSpec::new("weather://place/{name}", "place"))
        .prompt(
            PromptSpec::new("forecast")
                .with_description("Ask for a forecast.")
                .with_argument(PromptArgument::new("place").with_required(true)),
        )
        .renderer(|_name: String, _args: Arguments| async move {
            Ok::<_, RenderError>(RenderedPrompt::new(vec![PromptMessage::new(
                Role::User,
                "Forecast?",
            )]))
        })
}

fn weather_reader(
    surface: Option<Surface>,
) -> impl Fn(String) -> BoxFuture<Result<Vec<ResourceContents>, ReadError>> + Send + Sync + 'static
{
    move |uri: String| {
        let surface = surface.clone();
        Box::pin(async move {
            if let Some(answer) = surface.as_ref().and_then(|s| s.read(&uri)) {
                return answer;
            }
            Ok(vec![ResourceContents::text(uri, "Oslo")])
        })
    }
}

fn host(surface: Option<Surface>) -> Server {
    let catalog = match &surface {
        Some(s) => s.add_to(base_catalog()),
        None => base_catalog(),
    }
    .reader(weather_reader(surface.clone()));
    let config = ServerConfig::new(catalog)
        .server_name("surface-test")
        .dispatch(|_call: ToolCall| async move { Ok::<_, ToolError>(ToolOutput::text("sunny")) });
    Server::new(config).unwrap()
}

fn tools_only_host(surface: Surface) -> Server {
    let config = ServerConfig::new(Catalog::new().tool(observe_spec()))
        .server_name("tools-only")
        .dispatch(move |call: ToolCall| {
            let surface = surface.clone();
            async move { surface.call(&call) }
        });
    Server::new(config).unwrap()
}

#[tokio::test]
async fn resources_answer_the_file_export_bytes() {
    let dir = std::env::temp_dir().join(format!("connectome-surface-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let tools_file = dir.join("tools.json");
    std::fs::write(
        &tools_file,
        r#"[{"name":"get_weather","dispatch_target":"host_crate::weather::api::get_weather"},{"name":"bare"}]"#,
    )
    .unwrap();
    let out = dir.join("declared.json");
    let status = Command::new(env!("CARGO_BIN_EXE_connectome"))
        .args(["declared", "--manifest-path"])
        .arg(manifest())
        .arg("--tools")
        .arg(&tools_file)
        .args(["--digest", "sha384", "--out"])
        .arg(&out)
        .status()
        .unwrap();
    assert!(status.success());

    let (declared, collector) = (declared(), collector());
    // The observed and diff file exports, written as a host writes them.
    for kind in [
        ExportKind::Observed,
        ExportKind::Diff,
        ExportKind::Effective,
    ] {
        let sealed = build_export(kind, &declared, &collector, DigestAlgorithm::Sha384).unwrap();
        std::fs::write(dir.join(format!("{}.json", kind.as_str())), &sealed.bytes).unwrap();
    }
    let server = host(Some(Surface::new(
        declared,
        collector,
        DigestAlgorithm::Sha384,
    )));
    for (i, uri) in URIS.into_iter().enumerate() {
        let kind = Surface::kind_of(uri).unwrap();
        let reply = ask(
            &server,
            &rpc(i as u64, "resources/read", json!({"uri": uri})),
        )
        .await;
        let contents = reply["result"]["contents"].as_array().unwrap();
        assert_eq!(contents.len(), 1, "{reply}");
        assert_eq!(contents[0]["uri"], uri);
        assert_eq!(contents[0]["mimeType"], MIME_TYPE);
        let text = contents[0]["text"].as_str().unwrap();
        let file = std::fs::read(dir.join(format!("{}.json", kind.as_str()))).unwrap();
        assert_eq!(
            text.as_bytes(),
            &file[..],
            "{uri} differs from its file export"
        );
        let verified = verify(text.as_bytes()).unwrap();
        assert_eq!(verified.kind, kind.as_str());
        assert_eq!(verified.algorithm, DigestAlgorithm::Sha384);
    }
    // The host's own resource is still the host's.
    let reply = ask(
        &server,
        &rpc(9, "resources/read", json!({"uri": "weather://places"})),
    )
    .await;
    assert_eq!(reply["result"]["contents"][0]["text"], "Oslo");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test]
async fn observe_tool_answers_the_bytes_verbatim_with_their_hash() {
    for algorithm in [
        DigestAlgorithm::Sha256,
        DigestAlgorithm::Sha384,
        DigestAlgorithm::Sha512,
    ] {
        let (declared, collector) = (declared(), collector());
        let surface = Surface::new(declared.clone(), collector.clone(), algorithm);
        let server = tools_only_host(surface);
        for kind in [
            ExportKind::Declared,
            ExportKind::Observed,
            ExportKind::Diff,
            ExportKind::Effective,
        ] {
            let file = build_export(kind, &declared, &collector, algorithm).unwrap();
            let reply = ask(
                &server,
                &rpc(
                    1,
                    "tools/call",
                    json!({"name": "observe", "arguments": {"export": kind.as_str()}}),
                ),
            )
            .await;
            let result = &reply["result"];
            assert_ne!(result["isError"], json!(true), "{reply}");
            assert!(result["content"].is_array(), "{reply}");
            let text = result["content"][0]["text"].as_str().unwrap();
            let answer: Value = serde_json::from_str(text).unwrap();
            let keys: Vec<&str> = answer
                .as_object()
                .unwrap()
                .keys()
                .map(String::as_str)
                .collect();
            assert_eq!(keys, ["bytes", algorithm.name()]);
            assert_eq!(
                answer["bytes"].as_str().unwrap().as_bytes(),
                &file.bytes[..]
            );
            assert_eq!(
                answer[algorithm.name()].as_str().unwrap(),
                algorithm.hex_digest(&file.bytes)
            );
            // The answer is itself canonical.
            assert_eq!(
                beam_mcp::connectome::canonical::canonicalize_json(text.as_bytes()).unwrap(),
                text.as_bytes()
            );
        }
    }
}

#[tokio::test]
async fn observe_tool_refuses_an_unknown_export_as_a_tool_error() {
    let server = tools_only_host(Surface::new(
        Declared::default(),
        Collector::new(),
        DigestAlgorithm::Sha256,
    ));
    let reply = ask(
        &server,
        &rpc(
            1,
            "tools/call",
            json!({"name": "observe", "arguments": {"export": "receipts"}}),
        ),
    )
    .await;
    assert_eq!(reply["result"]["isError"], json!(true), "{reply}");
    let text = reply["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("\"receipts\""), "{text}");
}

#[test]
fn read_answers_none_for_any_other_uri() {
    let surface = Surface::new(
        Declared::default(),
        Collector::new(),
        DigestAlgorithm::Sha256,
    );
    for uri in [
        "connectome://",
        "connectome://declared/",
        "connectome://Declared",
        "weather://places",
    ] {
        assert!(surface.read(uri).is_none(), "{uri}");
    }
    assert_eq!(Surface::resources().map(|r| r.uri().to_owned()), URIS);
}

#[tokio::test]
async fn the_surface_is_read_only() {
    let declared = declared();
    let collector = collector();
    let before = (
        declared.clone(),
        collector.snapshot(),
        collector.is_attached(),
        collector.overflow(),
    );
    let surface = Surface::new(declared.clone(), collector.clone(), DigestAlgorithm::Sha256);
    let server = host(Some(surface.clone()));
    let tools = tools_only_host(surface.clone());
    let first: Vec<Vec<u8>> = URIS
        .iter()
        .map(|u| surface.export(Surface::kind_of(u).unwrap()).unwrap().bytes)
        .collect();
    for round in 0..50u64 {
        for uri in URIS {
            ask(&server, &rpc(round, "resources/read", json!({"uri": uri}))).await;
        }
        for kind in ["declared", "observed", "diff", "effective"] {
            ask(
                &tools,
                &rpc(
                    round,
                    "tools/call",
                    json!({"name": "observe", "arguments": {"export": kind}}),
                ),
            )
            .await;
        }
    }
    let after = (
        declared.clone(),
        collector.snapshot(),
        collector.is_attached(),
        collector.overflow(),
    );
    assert_eq!(before, after);
    let again: Vec<Vec<u8>> = URIS
        .iter()
        .map(|u| surface.export(Surface::kind_of(u).unwrap()).unwrap().bytes)
        .collect();
    assert_eq!(first, again);
}

/// The five advertising answers of a server, in order.
type Recording = Vec<Value>;

async fn record_stdio(server: Server) -> Recording {
    let (client, server_end) = tokio::io::duplex(1 << 20);
    let (server_read, server_write) = tokio::io::split(server_end);
    let task = tokio::spawn(serve(
        server,
        BufReader::new(server_read),
        server_write,
        StdioOptions::default(),
    ));
    let (client_read, mut client_write) = tokio::io::split(client);
    let mut lines = BufReader::new(client_read).lines();
    let mut out = Vec::new();
    for (i, method) in ADVERTISING.iter().enumerate() {
        let mut frame = serde_json::to_vec(&rpc(i as u64, method, json!({}))).unwrap();
        frame.push(b'\n');
        client_write.write_all(&frame).await.unwrap();
        let line = lines.next_line().await.unwrap().unwrap();
        out.push(serde_json::from_str(&line).unwrap());
    }
    client_write.shutdown().await.unwrap();
    drop(client_write);
    task.await.unwrap().unwrap();
    out
}

async fn record_http(server: Server) -> Recording {
    let service = HttpService::new(
        server,
        |_| Ok(()),
        AllowedOrigins::list(["http://localhost"]),
    )
    .path("/mcp");
    let addr = http_rig::spawn(service).await;
    let mut out = Vec::new();
    for proto in http_rig::BOTH {
        let client = http_rig::Client::new(proto, addr);
        let mut per_proto = Vec::new();
        for method in ADVERTISING {
            let resp = client.post(&http_rig::rpc(method, json!({}))).await;
            assert_eq!(resp.status, 200, "{method}: {:?}", resp.body);
            per_proto.push(resp.json());
        }
        if !out.is_empty() {
            assert_eq!(out, per_proto, "HTTP/1.1 and h2c advertise differently");
        }
        out = per_proto;
    }
    out
}

/// The list member of each advertising result.
fn list_key(method: &str) -> Option<&'static str> {
    match method {
        "tools/list" => Some("tools"),
        "resources/list" => Some("resources"),
        "resources/templates/list" => Some("resourceTemplates"),
        "prompts/list" => Some("prompts"),
        _ => None,
    }
}

/// What `after` adds to `before`, per method: entries added to its list, after checking that
/// nothing was removed and that everything outside the lists is identical.
fn added_entries(before: &Recording, after: &Recording) -> Vec<(String, Vec<Value>)> {
    assert_eq!(before.len(), ADVERTISING.len());
    assert_eq!(after.len(), ADVERTISING.len());
    let mut out = Vec::new();
    for ((method, b), a) in ADVERTISING.iter().zip(before).zip(after) {
        assert!(b.get("result").is_some(), "{method}: {b}");
        let (mut b, mut a) = (b.clone(), a.clone());
        let mut added = Vec::new();
        if let Some(key) = list_key(method) {
            let bl = b["result"][key].take();
            let al = a["result"][key].take();
            let (bl, al) = (bl.as_array().unwrap(), al.as_array().unwrap());
            for entry in bl {
                assert!(al.contains(entry), "{method}: {entry} was removed");
            }
            added = al.iter().filter(|e| !bl.contains(e)).cloned().collect();
            assert_eq!(bl.len() + added.len(), al.len(), "{method}: duplicates");
        }
        assert_eq!(b, a, "{method} changed outside its list");
        out.push(((*method).to_owned(), added));
    }
    out
}

fn assert_exactly_the_surface(added: Vec<(String, Vec<Value>)>) {
    let mut expected: Vec<Value> = Surface::resources()
        .iter()
        .map(|r| {
            let name = format!("connectome-{}", r.uri().trim_start_matches("connectome://"));
            assert_eq!(r.name(), name);
            r.uri().into()
        })
        .collect();
    // Lists are served in uri order.
    expected.sort_by(|a, b| a.as_str().cmp(&b.as_str()));
    for (method, entries) in added {
        if method == "resources/list" {
            let uris: Vec<Value> = entries.iter().map(|e| e["uri"].clone()).collect();
            assert_eq!(uris, expected, "resources/list added {entries:?}");
            for e in &entries {
                assert_eq!(e["mimeType"], MIME_TYPE);
            }
        } else {
            assert!(entries.is_empty(), "{method} added {entries:?}");
        }
    }
}

fn surface() -> Surface {
    Surface::new(
        Declared::default(),
        Collector::new(),
        DigestAlgorithm::Sha256,
    )
}

#[tokio::test]
async fn advertising_over_stdio_differs_by_exactly_the_added_resources() {
    let before = record_stdio(host(None)).await;
    let after = record_stdio(host(Some(surface()))).await;
    assert_exactly_the_surface(added_entries(&before, &after));
}

#[tokio::test]
async fn advertising_over_http_differs_by_exactly_the_added_resources() {
    let before = record_http(host(None)).await;
    let after = record_http(host(Some(surface()))).await;
    assert_exactly_the_surface(added_entries(&before, &after));
}

#[tokio::test]
async fn no_capability_is_invented() {
    let discover = |server: Server| async move {
        ask(&server, &rpc(1, "server/discover", json!({}))).await["result"]["capabilities"].clone()
    };
    let before = discover(host(None)).await;
    let after = discover(host(Some(surface()))).await;
    assert_eq!(before, after);
    assert!(after.get("resources").is_some(), "{after}");
    // A host with no resources of its own gains the resources capability and nothing else.
    let bare = |with: bool| {
        let catalog = Catalog::new().tool(ToolSpec::new("t", "T."));
        let catalog = if with {
            surface()
                .add_to(catalog)
                .reader(weather_reader(Some(surface())))
        } else {
            catalog
        };
        Server::new(
            ServerConfig::new(catalog)
                .dispatch(|_c: ToolCall| async move { Ok::<_, ToolError>(ToolOutput::text("")) }),
        )
        .unwrap()
    };
    let (b, a) = (discover(bare(false)).await, discover(bare(true)).await);
    let mut added: Vec<&String> = a
        .as_object()
        .unwrap()
        .keys()
        .filter(|k| b.get(k.as_str()).is_none())
        .collect();
    added.sort();
    assert_eq!(added, ["resources"], "{b} -> {a}");
    assert!(!a.to_string().contains("connectome"), "{a}");
}
