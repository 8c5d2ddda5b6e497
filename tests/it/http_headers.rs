//! The MCP request headers against the body, over HTTP/1.1 and h2c through a real listener.

use crate::support::http as rig;
use crate::support::spec;

use rig::{call, lrpc, remove, rpc, set, spawn, Client, BOTH, LEGACY, MODERN};
use serde_json::json;
use spec::Spec;

const HEADER_MISMATCH: i64 = -32020;
const UNSUPPORTED: i64 = -32022;

async fn each(f: impl AsyncFn(&Client)) {
    let addr = spawn(rig::service()).await;
    for proto in BOTH {
        f(&Client::new(proto, addr)).await;
    }
}

#[tokio::test]
async fn protocol_version_header_is_required_and_must_match() {
    let spec = Spec::load(MODERN);
    each(async |c| {
        let body = rpc("tools/list", json!({}));
        let r = c
            .post_with(&body, |h| remove(h, "MCP-Protocol-Version"))
            .await;
        assert_eq!(
            (r.status.as_u16(), r.code()),
            (400, HEADER_MISMATCH),
            "{:?}",
            c.proto
        );
        spec.check("JSONRPCErrorResponse", &r.json());
        let r = c
            .post_with(&body, |h| {
                h.push(("MCP-Protocol-Version".into(), "2025-11-25".into()))
            })
            .await;
        assert_eq!((r.status.as_u16(), r.code()), (400, HEADER_MISMATCH));
        let r = c
            .post_with(&body, |h| set(h, "MCP-Protocol-Version", "2024-11-05"))
            .await;
        assert_eq!((r.status.as_u16(), r.code()), (400, UNSUPPORTED));
        assert_eq!(
            r.json()["error"]["data"]["supported"],
            json!([MODERN, "2025-11-25"])
        );
        spec.check("JSONRPCErrorResponse", &r.json());
        // The header is fine, the body names another revision.
        let mut other = body.clone();
        other["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!("2025-11-25");
        let r = c.post(&other).await;
        assert_eq!(r.status.as_u16(), 400);
        assert!([HEADER_MISMATCH, UNSUPPORTED].contains(&r.code()));
    })
    .await;
}

#[tokio::test]
async fn mcp_method_must_equal_the_body_method() {
    each(async |c| {
        let body = rpc("tools/list", json!({}));
        let r = c.post_with(&body, |h| remove(h, "Mcp-Method")).await;
        assert_eq!((r.status.as_u16(), r.code()), (400, HEADER_MISMATCH));
        let r = c
            .post_with(&body, |h| set(h, "Mcp-Method", "prompts/list"))
            .await;
        assert_eq!((r.status.as_u16(), r.code()), (400, HEADER_MISMATCH));
        assert_eq!(r.json()["id"], 1);
        let r = c.post(&body).await;
        assert_eq!(r.status.as_u16(), 200);
    })
    .await;
}

#[tokio::test]
async fn mcp_name_must_equal_the_tool_or_uri() {
    each(async |c| {
        let body = call(json!({"place": "Oslo"}));
        let r = c
            .post_with(&body, |h| {
                set(h, "Mcp-Name", "other");
                h.push(("Mcp-Param-Place".into(), "Oslo".into()));
            })
            .await;
        assert_eq!((r.status.as_u16(), r.code()), (400, HEADER_MISMATCH));
        let r = c
            .post_with(&body, |h| {
                remove(h, "Mcp-Name");
                h.push(("Mcp-Param-Place".into(), "Oslo".into()));
            })
            .await;
        assert_eq!((r.status.as_u16(), r.code()), (400, HEADER_MISMATCH));
        let read = rpc("resources/read", json!({"uri": "weather://places"}));
        let r = c
            .post_with(&read, |h| set(h, "Mcp-Name", "weather://other"))
            .await;
        assert_eq!((r.status.as_u16(), r.code()), (400, HEADER_MISMATCH));
        let r = c.post(&read).await;
        assert_eq!(r.status.as_u16(), 200, "{:?}", r.json());
    })
    .await;
}

#[tokio::test]
async fn mcp_param_headers_mirror_annotated_arguments() {
    let spec = Spec::load(MODERN);
    each(async |c| {
        let body = call(json!({"place": "Oslo", "days": 42, "metric": true, "note": "x"}));
        let ok = |h: &mut Vec<(String, String)>| {
            h.push(("Mcp-Param-Place".into(), "Oslo".into()));
            h.push(("mcp-param-days".into(), "42.0".into()));
            h.push(("Mcp-Param-Metric".into(), "true".into()));
        };
        let r = c.post_with(&body, ok).await;
        assert_eq!(r.status.as_u16(), 200, "{:?}", r.json());
        spec.check_response("CallToolResult", &r.json());
        assert_eq!(r.json()["result"]["content"][0]["text"], "sunny in Oslo");

        let r = c
            .post_with(&body, |h| {
                ok(h);
                set(h, "Mcp-Param-Days", "43");
            })
            .await;
        assert_eq!((r.status.as_u16(), r.code()), (400, HEADER_MISMATCH));
        let r = c
            .post_with(&body, |h| {
                ok(h);
                set(h, "Mcp-Param-Metric", "True");
            })
            .await;
        assert_eq!((r.status.as_u16(), r.code()), (400, HEADER_MISMATCH));
        // Argument present, header absent.
        let r = c
            .post_with(&body, |h| {
                ok(h);
                remove(h, "Mcp-Param-Metric");
            })
            .await;
        assert_eq!((r.status.as_u16(), r.code()), (400, HEADER_MISMATCH));
        // Header present, argument absent.
        let only_place = call(json!({"place": "Oslo"}));
        let r = c
            .post_with(&only_place, |h| {
                h.push(("Mcp-Param-Place".into(), "Oslo".into()));
                h.push(("Mcp-Param-Days".into(), "1".into()));
            })
            .await;
        assert_eq!((r.status.as_u16(), r.code()), (400, HEADER_MISMATCH));
    })
    .await;
}

#[tokio::test]
async fn an_mcp_param_header_naming_no_annotated_argument_is_a_mismatch() {
    let spec = Spec::load(MODERN);
    let refused = |r: &rig::Resp, header: &str| {
        assert_eq!(
            (r.status.as_u16(), r.code()),
            (400, HEADER_MISMATCH),
            "{header}: {:?}",
            r.json()
        );
        let data = &r.json()["error"]["data"];
        assert_eq!(data["header"], header);
        assert!(data["reason"].as_str().unwrap().contains("x-mcp-header"));
    };
    each(async |c| {
        // `strict` annotates nothing: its `place` travels in the body alone. Before, a header
        // saying Lima was ignored and the call served as Oslo.
        let strict = rpc(
            "tools/call",
            json!({"name": "strict", "arguments": {"place": "Oslo"}}),
        );
        let r = c.post(&strict).await;
        assert_eq!(r.json()["result"]["content"][0]["text"], "sunny in Oslo");
        for value in ["Lima", "Oslo"] {
            let r = c
                .post_with(&strict, |h| {
                    h.push(("Mcp-Param-Place".into(), value.into()))
                })
                .await;
            refused(&r, "mcp-param-place");
            assert_eq!(r.json()["id"], 1);
            spec.check("JSONRPCErrorResponse", &r.json());
        }
        // `get_weather` annotates place, days and metric, not note.
        let body = call(json!({"place": "Oslo", "note": "x"}));
        let r = c
            .post_with(&body, |h| {
                h.push(("Mcp-Param-Place".into(), "Oslo".into()));
                h.push(("Mcp-Param-Note".into(), "x".into()));
            })
            .await;
        refused(&r, "mcp-param-note");
        // A header for a method that calls no tool, and for a tool that does not exist.
        let r = c
            .post_with(&rpc("tools/list", json!({})), |h| {
                h.push(("Mcp-Param-Place".into(), "Lima".into()))
            })
            .await;
        refused(&r, "mcp-param-place");
        let nope = rpc("tools/call", json!({"name": "nope", "arguments": {}}));
        let r = c
            .post_with(&nope, |h| h.push(("Mcp-Param-Place".into(), "Lima".into())))
            .await;
        refused(&r, "mcp-param-place");
        let r = c.post(&nope).await;
        assert_eq!((r.status.as_u16(), r.code()), (200, -32602), "unknown tool");
        // A tool whose own annotation is faulty stays a 500 whatever the caller's headers.
        let broken = rpc("tools/call", json!({"name": "broken", "arguments": {}}));
        let r = c
            .post_with(&broken, |h| h.push(("Mcp-Param-P".into(), "x".into())))
            .await;
        assert_eq!((r.status.as_u16(), r.code()), (500, -32603));
        // At 2025-11-25, where the headers are optional: present, they must name an
        // annotated argument too.
        let legacy = lrpc(
            "tools/call",
            json!({"name": "strict", "arguments": {"place": "Oslo"}}),
        );
        assert_eq!(c.post_plain(&legacy, &[]).await.status.as_u16(), 200);
        for headers in [&[][..], &[("mcp-protocol-version", LEGACY)][..]] {
            let mut with = headers.to_vec();
            with.push(("mcp-param-place", "Lima"));
            let r = c.post_plain(&legacy, &with).await;
            refused(&r, "mcp-param-place");
            let r = c.post_plain(&lrpc("tools/list", json!({})), &with).await;
            refused(&r, "mcp-param-place");
        }
        let n = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        let r = c.post_plain(&n, &[("mcp-param-place", "Lima")]).await;
        refused(&r, "mcp-param-place");
    })
    .await;
}

#[tokio::test]
async fn base64_values_are_decoded_and_markers_are_case_sensitive() {
    each(async |c| {
        let body = call(json!({"place": "Zürich"}));
        // base64("Zürich")
        let r = c
            .post_with(&body, |h| {
                h.push(("Mcp-Param-Place".into(), "=?base64?WsO8cmljaA==?=".into()))
            })
            .await;
        assert_eq!(r.status.as_u16(), 200, "{:?}", r.json());
        let r = c
            .post_with(&body, |h| {
                h.push(("Mcp-Param-Place".into(), "=?BASE64?WsO8cmljaA==?=".into()))
            })
            .await;
        assert_eq!((r.status.as_u16(), r.code()), (400, HEADER_MISMATCH));
    })
    .await;
}

#[tokio::test]
async fn duplicate_headers_that_disagree_are_refused() {
    each(async |c| {
        let body = call(json!({"place": "Oslo"}));
        let r = c
            .post_with(&body, |h| {
                h.push(("Mcp-Param-Place".into(), "Oslo".into()));
                h.push(("Mcp-Param-Place".into(), "Lima".into()));
            })
            .await;
        assert_eq!((r.status.as_u16(), r.code()), (400, HEADER_MISMATCH));
        let r = c
            .post_with(&body, |h| {
                h.push(("Mcp-Param-Place".into(), "Oslo".into()));
                h.push(("Mcp-Method".into(), "tools/list".into()));
            })
            .await;
        assert_eq!((r.status.as_u16(), r.code()), (400, HEADER_MISMATCH));
        let r = c
            .post_with(&body, |h| {
                h.push(("Mcp-Param-Place".into(), "Oslo".into()));
                h.push(("Mcp-Param-Place".into(), "=?base64?T3Nsbw==?=".into()));
            })
            .await;
        assert_eq!(r.status.as_u16(), 200, "agreeing duplicates pass");
    })
    .await;
}

#[tokio::test]
async fn missing_or_malformed_meta_is_400_invalid_params() {
    let spec = Spec::load(MODERN);
    each(async |c| {
        let bare = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}});
        let r = c.post(&bare).await;
        assert_eq!((r.status.as_u16(), r.code()), (400, -32602));
        spec.check("JSONRPCErrorResponse", &r.json());
        let mut no_caps = rpc("tools/list", json!({}));
        no_caps["params"]["_meta"]
            .as_object_mut()
            .unwrap()
            .remove("io.modelcontextprotocol/clientCapabilities");
        let r = c.post(&no_caps).await;
        assert_eq!((r.status.as_u16(), r.code()), (400, -32602));
        let mut top = rpc("tools/list", json!({}));
        top["_meta"] = rig::meta();
        let r = c.post(&top).await;
        assert_eq!((r.status.as_u16(), r.code()), (400, -32602));
    })
    .await;
}

#[tokio::test]
async fn version_refusals_echo_the_id_and_a_meta_disagreeing_with_the_header_is_a_mismatch() {
    let spec = Spec::load(MODERN);
    each(async |c| {
        let mut body = rpc("server/discover", json!({}));
        body["id"] = json!(301);
        body["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!("v999.0.0");
        // Header and body agree on a revision not served: unsupported, with the id.
        let r = c
            .post_with(&body, |h| set(h, "MCP-Protocol-Version", "v999.0.0"))
            .await;
        assert_eq!((r.status.as_u16(), r.code()), (400, UNSUPPORTED));
        assert_eq!(r.json()["id"], 301);
        assert_eq!(r.json()["error"]["data"]["requested"], "v999.0.0");
        spec.check("JSONRPCErrorResponse", &r.json());
        // The header names the served revision, the body another: a mismatch.
        let r = c.post(&body).await;
        assert_eq!((r.status.as_u16(), r.code()), (400, HEADER_MISMATCH));
        assert_eq!(r.json()["id"], 301);
        // A missing header is refused with the id too.
        let r = c
            .post_with(&body, |h| remove(h, "MCP-Protocol-Version"))
            .await;
        assert_eq!((r.status.as_u16(), r.code()), (400, HEADER_MISMATCH));
        assert_eq!(r.json()["id"], 301);
    })
    .await;
}

#[tokio::test]
async fn discover_over_http_needs_its_meta_like_every_request() {
    let spec = Spec::load(MODERN);
    each(async |c| {
        let full = rpc("server/discover", json!({}));
        let mut no_meta = full.clone();
        no_meta["params"] = json!({});
        let mut no_version = full.clone();
        no_version["params"]["_meta"]
            .as_object_mut()
            .unwrap()
            .remove("io.modelcontextprotocol/protocolVersion");
        let mut no_caps = full.clone();
        no_caps["params"]["_meta"]
            .as_object_mut()
            .unwrap()
            .remove("io.modelcontextprotocol/clientCapabilities");
        for body in [no_meta, no_version, no_caps] {
            let r = c.post(&body).await;
            assert_eq!((r.status.as_u16(), r.code()), (400, -32602), "{body}");
            assert_eq!(r.json()["id"], 1);
            spec.check("JSONRPCErrorResponse", &r.json());
        }
        let r = c.post(&full).await;
        assert_eq!(r.status.as_u16(), 200);
        spec.check_response("DiscoverResult", &r.json());
    })
    .await;
}
