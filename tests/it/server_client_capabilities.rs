//! `ToolSpec::with_required_client_capability`: a 2026-07-28 call whose `clientCapabilities` lacks
//! a required capability is refused -32021 (HTTP 400) naming every missing one, before the
//! dispatch runs; a call that declares them is served; a 2025-11-25 call is not checked.

use crate::support::http as rig;

use beam_mcp::transport::http::{AllowedOrigins, HttpService};
use beam_mcp::{
    Answer, Carrier, Catalog, Server, ServerConfig, ToolCall, ToolError, ToolOutput, ToolSpec,
};
use rig::{spawn, Client, BOTH, MODERN};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

const MISSING: i64 = -32021;

fn server(calls: Arc<AtomicUsize>) -> Server {
    let catalog = Catalog::new()
        .tool(
            ToolSpec::new("summarise", "Needs sampling and roots.")
                .with_required_client_capability("sampling")
                .with_required_client_capability("roots")
                .with_required_client_capability("sampling"),
        )
        .tool(ToolSpec::new("plain", "Needs nothing."));
    let config = ServerConfig::new(catalog).dispatch(move |_: ToolCall| {
        calls.fetch_add(1, Ordering::SeqCst);
        async { Ok::<_, ToolError>(ToolOutput::text("done")) }
    });
    Server::new(config).unwrap()
}

fn call(name: &str, caps: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
        "name": name, "arguments": {},
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientCapabilities": caps
        }
    }})
}

async fn reply(server: &Server, body: &Value, carrier: Carrier) -> Value {
    match server
        .answer(&serde_json::to_vec(body).unwrap(), carrier)
        .await
    {
        Answer::Reply(r) => serde_json::from_slice(r.bytes()).unwrap(),
        other => panic!("no reply: {other:?}"),
    }
}

#[test]
fn the_spec_lists_each_capability_once_in_order() {
    let tool = ToolSpec::new("t", "d")
        .with_required_client_capability("sampling")
        .with_required_client_capability("roots")
        .with_required_client_capability("sampling");
    assert_eq!(tool.required_client_capabilities(), ["sampling", "roots"]);
    assert!(ToolSpec::new("t", "d")
        .required_client_capabilities()
        .is_empty());
}

#[tokio::test]
async fn a_modern_call_missing_a_capability_is_refused_before_the_dispatch() {
    let calls = Arc::new(AtomicUsize::new(0));
    let s = server(calls.clone());
    let r = reply(&s, &call("summarise", json!({})), Carrier::Stdio).await;
    assert_eq!(r["id"], 7);
    assert_eq!(r["error"]["code"], MISSING);
    assert_eq!(
        r["error"]["data"]["requiredCapabilities"],
        json!({"sampling": {}, "roots": {}})
    );
    let r = reply(
        &s,
        &call("summarise", json!({"sampling": {}})),
        Carrier::Stdio,
    )
    .await;
    assert_eq!(
        r["error"]["data"]["requiredCapabilities"],
        json!({"roots": {}})
    );
    assert_eq!(calls.load(Ordering::SeqCst), 0);
    let r = reply(
        &s,
        &call(
            "summarise",
            json!({"sampling": {}, "roots": {"listChanged": true}}),
        ),
        Carrier::Stdio,
    )
    .await;
    assert_eq!(r["result"]["content"][0]["text"], "done", "{r}");
    let r = reply(&s, &call("plain", json!({})), Carrier::Stdio).await;
    assert_eq!(r["result"]["content"][0]["text"], "done");
    assert_eq!(calls.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn a_legacy_call_is_not_checked() {
    let calls = Arc::new(AtomicUsize::new(0));
    let s = server(calls.clone());
    let legacy = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "summarise", "arguments": {}}});
    let r = reply(&s, &legacy, Carrier::Stdio).await;
    assert_eq!(r["result"]["content"][0]["text"], "done", "{r}");
    assert_eq!(calls.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn over_http_the_refusal_is_400_and_echoes_the_id() {
    let calls = Arc::new(AtomicUsize::new(0));
    let service = HttpService::new(
        server(calls.clone()),
        |_| Ok(()),
        AllowedOrigins::list(["http://localhost"]),
    )
    .path("/mcp");
    let addr = spawn(service).await;
    for proto in BOTH {
        let c = Client::new(proto, addr);
        let r = c.post(&call("summarise", json!({}))).await;
        assert_eq!((r.status.as_u16(), r.code()), (400, MISSING));
        assert_eq!(r.json()["id"], 7);
        let r = c
            .post(&call("summarise", json!({"sampling": {}, "roots": {}})))
            .await;
        assert_eq!(r.status.as_u16(), 200);
    }
    assert_eq!(calls.load(Ordering::SeqCst), 2);
}
