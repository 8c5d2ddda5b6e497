//! Refusals that must stay bounded and say something: echoed caller input capped, a request
//! that lost its id, media types, and `Mcp-Name` where nothing is named — over HTTP/1.1 and
//! h2c through a real listener.

use crate::support::http as rig;

use rig::{call, lrpc, rpc, set, spawn, Client, BOTH, LEGACY};
use serde_json::{json, Value};

const CAP: usize = 1024 * 1024;

async fn each(f: impl AsyncFn(&Client)) {
    let addr = spawn(rig::service()).await;
    for proto in BOTH {
        f(&Client::new(proto, addr)).await;
    }
}

/// A request of about `CAP - 1 KiB` bytes whose one unknown argument key is `key_char`
/// repeated: escaped in a JSON pointer (`~0`, `~1`) it would double in size.
fn amplifying(key_char: char) -> Value {
    let key: String = std::iter::repeat_n(key_char, CAP - 1024).collect();
    let mut args = serde_json::Map::new();
    args.insert("place".into(), json!("Oslo"));
    args.insert(key, json!(1));
    // `strict` admits no undeclared key: the refusal names the key's path.
    rpc(
        "tools/call",
        json!({"name": "strict", "arguments": Value::Object(args)}),
    )
}

#[tokio::test]
async fn a_cap_sized_request_gets_a_bounded_refusal() {
    each(async |c| {
        for ch in ['~', '/'] {
            let body = amplifying(ch);
            let sent = serde_json::to_vec(&body).unwrap().len();
            assert!(sent < CAP);
            let r = c.post(&body).await;
            assert_eq!((r.status.as_u16(), r.code()), (200, -32602), "{ch}");
            assert_eq!(r.json()["error"]["data"]["keyword"], "additionalProperties");
            assert!(
                r.body.len() < 4096,
                "{ch}: a {sent}-byte request got a {}-byte refusal",
                r.body.len()
            );
        }
        // An unknown tool named by a near-cap string (at 2025-11-25, where no Mcp-Name header
        // has to repeat it): the name is echoed, capped.
        let unknown = lrpc(
            "tools/call",
            json!({"name": "t".repeat(CAP - 2048), "arguments": {}}),
        );
        let r = c.post_plain(&unknown, &[]).await;
        assert_eq!((r.status.as_u16(), r.code()), (200, -32602));
        assert!(r.body.len() < 4096, "{}", r.body.len());
        // The same at 2025-11-25, where invalid arguments are an isError result.
        let mut legacy = amplifying('~');
        legacy["params"].as_object_mut().unwrap().remove("_meta");
        let r = c
            .post_plain(&legacy, &[("mcp-protocol-version", LEGACY)])
            .await;
        assert_eq!(r.json()["result"]["isError"], true);
        assert!(r.body.len() < 4096, "{}", r.body.len());
    })
    .await;
}

#[tokio::test]
async fn a_string_id_over_256_bytes_is_refused_without_being_echoed() {
    each(async |c| {
        let mut body = rpc("tools/list", json!({}));
        body["id"] = json!("i".repeat(257));
        let r = c.post(&body).await;
        assert_eq!((r.status.as_u16(), r.code()), (400, -32600));
        assert!(r.json().get("id").is_none());
        body["id"] = json!("i".repeat(256));
        let r = c.post(&body).await;
        assert_eq!(r.status.as_u16(), 200);
        assert_eq!(r.json()["id"].as_str().unwrap().len(), 256);
    })
    .await;
}

#[tokio::test]
async fn a_request_without_an_id_is_refused_and_its_headers_still_checked() {
    each(async |c| {
        let mut body = call(json!({"place": "Oslo"}));
        body.as_object_mut().unwrap().remove("id");
        // A wrong Mcp-Name: the header rule holds for it as for any request.
        let r = c
            .post_with(&body, |h| {
                set(h, "Mcp-Name", "other");
                h.push(("Mcp-Param-Place".into(), "Oslo".into()));
            })
            .await;
        assert_eq!((r.status.as_u16(), r.code()), (400, -32020));
        // Headers right: it is a request that lost its id, refused, not dropped silently.
        let r = c
            .post_with(&body, |h| h.push(("Mcp-Param-Place".into(), "Oslo".into())))
            .await;
        assert_eq!((r.status.as_u16(), r.code()), (400, -32600));
        assert_eq!(r.json()["error"]["data"]["method"], "tools/call");
        assert!(r.json().get("id").is_none());
        // At 2025-11-25 too.
        let legacy = json!({"jsonrpc": "2.0", "method": "tools/list"});
        let r = c.post_plain(&legacy, &[]).await;
        assert_eq!((r.status.as_u16(), r.code()), (400, -32600));
        // A notification is still accepted.
        let n = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": {"requestId": 1}});
        assert_eq!(c.post_plain(&n, &[]).await.status.as_u16(), 202);
    })
    .await;
}

#[tokio::test]
async fn content_type_and_accept_must_admit_json() {
    each(async |c| {
        let body = rpc("tools/list", json!({}));
        for ct in [
            "text/plain",
            "application/x-www-form-urlencoded",
            "multipart/form-data",
        ] {
            let r = c.post_with(&body, |h| set(h, "content-type", ct)).await;
            assert_eq!((r.status.as_u16(), r.code()), (415, -32600), "{ct}");
        }
        for ct in ["application/json", "Application/JSON; charset=utf-8"] {
            let r = c.post_with(&body, |h| set(h, "content-type", ct)).await;
            assert_eq!(r.status.as_u16(), 200, "{ct}");
        }
        let r = c
            .post_with(&body, |h| set(h, "accept", "text/event-stream"))
            .await;
        assert_eq!((r.status.as_u16(), r.code()), (406, -32600));
        for accept in [
            "application/json, text/event-stream",
            "text/event-stream, application/json;q=0.9",
            "*/*",
            "application/*",
        ] {
            let r = c.post_with(&body, |h| set(h, "accept", accept)).await;
            assert_eq!(r.status.as_u16(), 200, "{accept}");
        }
        // Neither header at all: taken as JSON (curl without -H).
        let r = c
            .post_with(&body, |h| h.retain(|(k, _)| k != "content-type"))
            .await;
        assert_eq!(r.status.as_u16(), 200);
    })
    .await;
}

#[tokio::test]
async fn mcp_name_on_a_method_that_names_nothing_is_a_mismatch() {
    each(async |c| {
        let r = c
            .post_with(&rpc("tools/list", json!({})), |h| {
                set(h, "Mcp-Name", "get_weather")
            })
            .await;
        assert_eq!((r.status.as_u16(), r.code()), (400, -32020));
        let r = c
            .post_plain(
                &lrpc("tools/list", json!({})),
                &[("mcp-name", "get_weather")],
            )
            .await;
        assert_eq!((r.status.as_u16(), r.code()), (400, -32020));
    })
    .await;
}
