//! A `CatalogView` that panics is the host's bug: it hides the item it was asked about (fails
//! closed), so every carrier answers the request as for an item that does not exist and serves
//! on, whether the view panicked in routing, in the HTTP `Mcp-Param-*` check, or under a host
//! dispatch.

use crate::support::http as rig;
use crate::support::tenant::{exchange, tenant_service, Tenant};

use beam_mcp::catalog::Item;
use beam_mcp::runtime::{Application, ApplicationConfig, CATALOG};
use beam_mcp::transport::stdio::{self, StdioOptions};
use beam_mcp::{
    Answer, Carrier, Catalog, Extensions, Server, ServerConfig, ToolCall, ToolOutput, ToolSpec,
};
use rig::{rpc, BOTH};
use serde_json::{json, Value};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

/// A safety net turning a hang into a failure; never a timing assertion.
const SAFETY: Duration = Duration::from_secs(60);

/// A server whose view panics for the tenant `mallory` (and shows everything to anyone else).
fn panicking_server() -> Server {
    let catalog = Catalog::new()
        .tool(ToolSpec::new("ping", "Ping."))
        .tool(ToolSpec::new("pong", "Pong."));
    Server::new(
        ServerConfig::new(catalog)
            .dispatch(
                |call: ToolCall| async move { Ok(ToolOutput::text(format!("ran {}", call.tool))) },
            )
            .view(|_item: Item<'_>, caller: &Extensions| {
                if caller.get::<Tenant>().is_some_and(|t| t.0 == "mallory") {
                    panic!("injected view panic");
                }
                true
            }),
    )
    .unwrap()
}

/// A view that panics hides what it was asked about, on both protocols: the list is empty, the
/// call is an unknown tool (its `Mcp-Param-*` check asks the view first); the endpoint then
/// serves the next request.
#[tokio::test]
async fn http_a_panicking_view_hides_the_item() {
    let addr = rig::spawn(tenant_service(panicking_server())).await;
    let probes = [
        rpc("tools/list", json!({})),
        rpc("tools/call", json!({"name": "ping", "arguments": {}})),
    ];
    for proto in BOTH {
        for body in &probes {
            let got = exchange(proto, addr, body, "mallory").await;
            let (status, v) = got.unwrap_or_else(|e| panic!("{proto:?} {body}: no answer: {e}"));
            assert_eq!((status, &v["id"]), (200, &json!(1)), "{proto:?} {v}");
            assert_hidden(&v);
        }
        let (status, v) = exchange(proto, addr, &probes[1], "alice").await.unwrap();
        assert_eq!(
            (status, &v["result"]["content"][0]["text"]),
            (200, &json!("ran ping"))
        );
    }
}

/// On stdio a panicking view hides the item and keeps the connection: the next request is
/// answered.
#[tokio::test]
async fn stdio_a_panicking_view_keeps_the_connection() {
    let (client, server_end) = tokio::io::duplex(1 << 16);
    let (read, write) = tokio::io::split(server_end);
    let serving = tokio::spawn(stdio::serve_with(
        panicking_server(),
        BufReader::new(read),
        write,
        StdioOptions::default(),
        Extensions::new().with(Tenant("mallory".into())),
    ));
    let (client_read, mut client_write) = tokio::io::split(client);
    let mut lines = BufReader::new(client_read).lines();
    for (id, method) in [(1, "tools/list"), (2, "tools/call"), (3, "tools/list")] {
        let mut body = rpc(method, json!({"name": "ping", "arguments": {}}));
        body["id"] = json!(id);
        let mut bytes = serde_json::to_vec(&body).unwrap();
        bytes.push(b'\n');
        client_write.write_all(&bytes).await.unwrap();
        let line = tokio::time::timeout(SAFETY, lines.next_line())
            .await
            .expect("answered within the safety net")
            .unwrap_or_else(|e| panic!("request {id}: {e}"));
        let line = line.unwrap_or_else(|| {
            panic!(
                "request {id}: the connection ended unanswered ({:?})",
                serving.is_finished()
            )
        });
        let v: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(v["id"], json!(id), "{v}");
        assert_hidden(&v);
    }
    client_write.shutdown().await.unwrap();
    tokio::time::timeout(SAFETY, serving)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
}

/// A bare server's `answer_with` turns a panicking view into a hidden item, not an unwind into
/// the host's task.
#[tokio::test]
async fn bare_a_panicking_view_hides_the_item() {
    let server = panicking_server();
    let frame = serde_json::to_vec(&rpc("tools/list", json!({}))).unwrap();
    let caller = Extensions::new().with(Tenant("mallory".into()));
    let s = server.clone();
    let answered = tokio::spawn(async move { s.answer_with(&frame, Carrier::Stdio, caller).await })
        .await
        .map_err(|e| e.is_panic());
    let Ok(Answer::Reply(r)) = answered else {
        panic!("not answered: panicked = {:?}", answered.err())
    };
    let v: Value = serde_json::from_slice(r.bytes()).unwrap();
    assert_hidden(&v);
}

/// A host dispatch whose caller the view panics on is refused as an unknown tool; the catalog
/// actor that routed it is not restarted, and the next dispatch is served.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn host_dispatch_under_a_panicking_view_is_an_unknown_tool() {
    let rt = Application::start(panicking_server(), ApplicationConfig::new())
        .await
        .unwrap();
    let mallory = Extensions::new().with(Tenant("mallory".into()));
    let refused = rt
        .dispatch_with("ping", json!({}), mallory)
        .await
        .unwrap_err();
    assert_eq!(
        (refused.code(), refused.message()),
        (-32602, "Unknown tool: ping"),
        "{refused}"
    );
    let ok = rt.dispatch("ping", json!({})).await.unwrap();
    assert_eq!(ok.texts(), ["ran ping"]);
    assert_eq!(rt.root().restart_count(CATALOG).await.unwrap(), Some(0));
    rt.stop(SAFETY).await.unwrap();
}

/// A list that shows nothing, or a call refused as an unknown tool: what a caller who sees no
/// item is answered.
fn assert_hidden(v: &Value) {
    match v.get("result") {
        Some(result) => assert_eq!(result["tools"], json!([]), "{v}"),
        None => assert_eq!(
            (&v["error"]["code"], &v["error"]["message"]),
            (&json!(-32602), &json!("Unknown tool: ping")),
            "{v}"
        ),
    }
}
