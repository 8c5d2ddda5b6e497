//! Methods, paths and the status each core answer travels with, over HTTP/1.1 and h2c.

use crate::support::http as rig;
use crate::support::spec;

use bytes::Bytes;
use http_body_util::Full;
use rig::{call, rpc, set, spawn, Client, BOTH, MODERN};
use serde_json::{json, Value};
use spec::Spec;

async fn each(f: impl AsyncFn(&Client)) {
    let addr = spawn(rig::service()).await;
    for proto in BOTH {
        f(&Client::new(proto, addr)).await;
    }
}

fn raw(c: &Client, method: &str, path: &str, body: &'static [u8]) -> http::Request<Full<Bytes>> {
    c.builder(method, path, None)
        .header("MCP-Protocol-Version", MODERN)
        .header("Mcp-Method", "tools/list")
        .body(Full::new(Bytes::from_static(body)))
        .unwrap()
}

#[tokio::test]
async fn a_tool_call_is_answered_200_as_json() {
    let spec = Spec::load(MODERN);
    each(async |c| {
        let r = c
            .post_with(&call(json!({"place": "Oslo"})), |h| {
                h.push(("Mcp-Param-Place".into(), "Oslo".into()))
            })
            .await;
        assert_eq!(r.status.as_u16(), 200, "{:?}", c.proto);
        assert_eq!(r.headers["content-type"], "application/json");
        spec.check_response("CallToolResult", &r.json());
        let r = c.post(&rpc("tools/list", json!({}))).await;
        assert_eq!(r.status.as_u16(), 200);
        spec.check_response("ListToolsResult", &r.json());
        let d = c.post(&rpc("server/discover", json!({}))).await;
        spec.check_response("DiscoverResult", &d.json());
        assert_eq!(
            d.json()["result"]["supportedVersions"],
            json!([MODERN, "2025-11-25"])
        );
    })
    .await;
}

#[tokio::test]
async fn other_methods_are_405_with_allow_post() {
    each(async |c| {
        for m in ["GET", "PUT", "DELETE"] {
            let r = c.send(raw(c, m, "/mcp", b"")).await;
            assert_eq!(r.status.as_u16(), 405, "{m} {:?}", c.proto);
            assert_eq!(r.headers["allow"], "POST");
            assert!(r.json()["error"]["code"].is_i64());
        }
    })
    .await;
}

#[tokio::test]
async fn other_paths_are_404() {
    each(async |c| {
        let r = c.send(raw(c, "POST", "/other", b"{}")).await;
        assert_eq!(r.status.as_u16(), 404);
        assert!(r.json()["error"]["code"].is_i64());
    })
    .await;
}

#[tokio::test]
async fn legacy_lifecycle_at_2026_07_28_and_unknown_methods_are_404_method_not_found() {
    let spec = Spec::load(MODERN);
    each(async |c| {
        for m in ["initialize", "ping", "nope/nothing"] {
            let r = c.post(&rpc(m, json!({}))).await;
            assert_eq!((r.status.as_u16(), r.code()), (404, -32601), "{m}");
            spec.check("JSONRPCErrorResponse", &r.json());
        }
        // A notification is accepted whatever it names (tests/it/http_legacy.rs).
        let n = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        let r = c.post(&n).await;
        assert_eq!(r.status.as_u16(), 202);
    })
    .await;
}

#[tokio::test]
async fn an_unknown_tool_is_200_with_a_json_rpc_error() {
    let spec = Spec::load(MODERN);
    each(async |c| {
        let body = rpc("tools/call", json!({"name": "nope", "arguments": {}}));
        let r = c.post(&body).await;
        assert_eq!((r.status.as_u16(), r.code()), (200, -32602));
        spec.check("JSONRPCErrorResponse", &r.json());
    })
    .await;
}

#[tokio::test]
async fn a_tool_with_a_header_fault_is_500_internal_error() {
    each(async |c| {
        let body = rpc("tools/call", json!({"name": "broken", "arguments": {}}));
        let r = c.post(&body).await;
        assert_eq!((r.status.as_u16(), r.code()), (500, -32603));
        assert!(r.json()["error"].get("data").is_none(), "nothing said");
    })
    .await;
}

#[tokio::test]
async fn notifications_are_202_with_an_empty_body() {
    each(async |c| {
        let n = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": {"requestId": 1}});
        let r = c.post(&n).await;
        assert_eq!(r.status.as_u16(), 202);
        assert!(r.body.is_empty());
        let r = c.post_with(&n, |h| set(h, "Mcp-Method", "other")).await;
        assert_eq!((r.status.as_u16(), r.code()), (400, -32020));
    })
    .await;
}

#[tokio::test]
async fn undecodable_bodies_are_400() {
    let spec = Spec::load(MODERN);
    each(async |c| {
        let r = c.send(raw(c, "POST", "/mcp", b"{not json")).await;
        assert_eq!((r.status.as_u16(), r.code()), (400, -32700));
        spec.check("JSONRPCErrorResponse", &r.json());
        // Not UTF-8, even inside a member nobody reads: not JSON text (RFC 8259).
        let body = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"z\":\"\xff\"}";
        let r = c.send(raw(c, "POST", "/mcp", body)).await;
        assert_eq!((r.status.as_u16(), r.code()), (400, -32700));
        assert!(r.json().get("id").is_none());
        let r = c.send(raw(c, "POST", "/mcp", b"[]")).await;
        assert_eq!((r.status.as_u16(), r.code()), (400, -32600));
        let mut deep: Value = json!(1);
        for _ in 0..70 {
            deep = json!([deep]);
        }
        let r = c.post(&rpc("tools/list", json!({"x": deep}))).await;
        assert_eq!((r.status.as_u16(), r.code()), (400, -32600));
        spec.check("JSONRPCErrorResponse", &r.json());
    })
    .await;
}
