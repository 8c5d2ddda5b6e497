//! 2025-11-25 over stateless HTTP, beside 2026-07-28: the revision each request is served at,
//! the stateless lifecycle, and the same hardening as the modern path, over HTTP/1.1 and h2c
//! through a real listener.

use crate::support::http as rig;
use crate::support::spec;

use beam_mcp::transport::http::{AllowedOrigins, Forbidden, HttpService};
use rig::{call, lrpc, rpc, spawn, Client, BOTH, LEGACY, MODERN};
use serde_json::{json, Value};
use spec::Spec;
use std::net::SocketAddr;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const HEADER_MISMATCH: i64 = -32020;
const UNSUPPORTED: i64 = -32022;
const V: (&str, &str) = ("mcp-protocol-version", LEGACY);

async fn each(service: HttpService, f: impl AsyncFn(&Client)) {
    let addr = spawn(service).await;
    for proto in BOTH {
        f(&Client::new(proto, addr)).await;
    }
}

/// The opener of TS SDK 1.x, byte for byte what it sends: no `MCP-Protocol-Version` header.
fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": LEGACY, "capabilities": {},
        "clientInfo": {"name": "interop", "version": "1.0.0"}}})
}

/// The 2026-07-28-only members a legacy result must not carry.
fn assert_legacy_shape(result: &Value) {
    for member in ["resultType", "ttlMs", "cacheScope"] {
        assert!(result.get(member).is_none(), "{member} in {result}");
    }
}

#[tokio::test]
async fn initialize_without_a_header_is_answered_statelessly() {
    let spec = Spec::load(LEGACY);
    each(rig::service(), async |c| {
        let r = c.post_plain(&initialize(), &[]).await;
        assert_eq!(r.status.as_u16(), 200, "{:?}", c.proto);
        assert!(r.headers.get("mcp-session-id").is_none(), "no session");
        assert_eq!(r.headers["content-type"], "application/json");
        let v = r.json();
        spec.check_response("InitializeResult", &v);
        assert_eq!(v["id"], 0);
        assert_eq!(v["result"]["protocolVersion"], LEGACY);
        assert_eq!(v["result"]["serverInfo"]["name"], "http-test");
        assert_eq!(v["result"]["instructions"], "Ask for the weather.");
        assert!(v["result"]["capabilities"]["tools"].is_object());
        // An older requested revision is answered with the one this server speaks.
        let mut older = initialize();
        older["params"]["protocolVersion"] = json!("2025-03-26");
        let r = c.post_plain(&older, &[]).await;
        assert_eq!(r.json()["result"]["protocolVersion"], LEGACY);
        // The same opener with the legacy header, as a reconnecting client sends it.
        let r = c.post_plain(&initialize(), &[V]).await;
        assert_eq!(r.status.as_u16(), 200);
    })
    .await;
}

#[tokio::test]
async fn a_malformed_initialize_is_400_invalid_params_and_real_openers_are_answered() {
    let spec = Spec::load(LEGACY);
    let cap = 1024 * 1024;
    let with = |edit: &dyn Fn(&mut Value)| {
        let mut m = initialize();
        edit(&mut m["params"]);
        m
    };
    let without = |member: &'static str| {
        with(&move |p: &mut Value| {
            p.as_object_mut().unwrap().remove(member);
        })
    };
    let mut no_params = initialize();
    no_params.as_object_mut().unwrap().remove("params");
    let malformed = [
        (no_params, "params"),
        (
            with(&|p| p["protocolVersion"] = Value::Null),
            "params.protocolVersion",
        ),
        (
            with(&|p| p["protocolVersion"] = json!(20251125)),
            "params.protocolVersion",
        ),
        (without("protocolVersion"), "params.protocolVersion"),
        (without("capabilities"), "params.capabilities"),
        (
            with(&|p| p["capabilities"] = json!([])),
            "params.capabilities",
        ),
        (
            with(&|p| p["capabilities"] = json!({"sampling": "yes"})),
            "params.capabilities.sampling",
        ),
        (without("clientInfo"), "params.clientInfo"),
        (
            with(&|p| p["clientInfo"] = json!({"version": "1"})),
            "params.clientInfo.name",
        ),
        (
            with(&|p| p["clientInfo"] = json!({"name": "c", "version": 1})),
            "params.clientInfo.version",
        ),
    ];
    // A huge protocolVersion: of the wrong type it is refused, as a string it is a revision
    // this server does not know, answered with its own; neither is echoed.
    let huge = "9".repeat(cap - 4096);
    let huge_wrong = with(&|p| p["protocolVersion"] = json!([huge]));
    let huge_string = with(&|p| p["protocolVersion"] = json!(huge));
    // TS SDK 1.x's opener, and openers with what the schema allows beyond the required.
    let rich = with(&|p| {
        p["capabilities"] = json!({"roots": {"listChanged": true}, "sampling": {},
            "elicitation": {"form": {}, "url": {}}, "experimental": {}, "x-own": 1});
        p["clientInfo"] = json!({"name": "inspector", "version": "2.12.0",
            "title": "Inspector", "websiteUrl": "https://example.com", "x": true});
        p["_meta"] = json!({"progressToken": "t"});
        p["extra"] = json!(null);
    });
    each(rig::service(), async |c| {
        for headers in [&[][..], &[V][..]] {
            for (body, field) in &malformed {
                let r = c.post_plain(body, headers).await;
                assert_eq!(
                    (r.status.as_u16(), r.code()),
                    (400, -32602),
                    "{field} {headers:?} {:?}",
                    c.proto
                );
                assert_eq!(r.json()["error"]["data"]["field"], *field);
                assert_eq!(r.json()["id"], 0);
                spec.check("JSONRPCErrorResponse", &r.json());
            }
            let r = c.post_plain(&huge_wrong, headers).await;
            assert_eq!((r.status.as_u16(), r.code()), (400, -32602));
            assert!(r.body.len() < 4096, "{}", r.body.len());
            for ok in [&initialize(), &huge_string, &rich] {
                let r = c.post_plain(ok, headers).await;
                assert_eq!(r.status.as_u16(), 200, "{:?}", r.json());
                spec.check_response("InitializeResult", &r.json());
                assert_eq!(r.json()["result"]["protocolVersion"], LEGACY);
                assert!(r.body.len() < 4096, "{}", r.body.len());
            }
        }
    })
    .await;
}

#[tokio::test]
async fn every_notification_is_202_with_no_body() {
    each(rig::service(), async |c| {
        let n = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        for headers in [&[][..], &[V][..]] {
            let r = c.post_plain(&n, headers).await;
            assert_eq!(r.status.as_u16(), 202, "{headers:?} {:?}", c.proto);
            assert!(r.body.is_empty());
        }
        let cancelled = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": {"requestId": 3, "reason": "user"}});
        assert_eq!(c.post_plain(&cancelled, &[V]).await.status.as_u16(), 202);
        // At 2026-07-28 too: a notification is accepted, never answered.
        let modern = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        assert_eq!(c.post(&modern).await.status.as_u16(), 202);
        // Anything else without an id is a request that lost it: refused, never dropped
        // silently (tests/it/http_refusals.rs).
        // `exit` and `shutdown` included: on stdio an id-less `exit` ends the connection, here
        // it is refused, naming the method, and the endpoint serves on.
        for method in ["exit", "shutdown"] {
            let lost = json!({"jsonrpc": "2.0", "method": method});
            for headers in [&[][..], &[V][..]] {
                let r = c.post_plain(&lost, headers).await;
                assert_eq!(
                    (r.status.as_u16(), r.code()),
                    (400, -32600),
                    "{method} {headers:?}"
                );
                assert_eq!(r.json()["error"]["data"]["method"], method);
                assert!(r.json().get("id").is_none());
            }
        }
        assert_eq!(c.post_plain(&initialize(), &[]).await.status.as_u16(), 200);
    })
    .await;
}

#[tokio::test]
async fn ping_is_empty_at_2025_11_25_and_unknown_at_2026_07_28() {
    let spec = Spec::load(LEGACY);
    each(rig::service(), async |c| {
        for headers in [&[][..], &[V][..]] {
            let r = c.post_plain(&lrpc("ping", json!({})), headers).await;
            assert_eq!(r.status.as_u16(), 200);
            spec.check_response("EmptyResult", &r.json());
            assert_eq!(r.json()["result"], json!({}));
        }
        let r = c
            .post_plain(&json!({"jsonrpc": "2.0", "id": 4, "method": "ping"}), &[])
            .await;
        assert_eq!(r.json()["result"], json!({}));
        // With the 2026-07-28 header, both legacy lifecycle methods are unknown.
        for m in ["initialize", "ping"] {
            let r = c.post(&rpc(m, json!({}))).await;
            assert_eq!((r.status.as_u16(), r.code()), (404, -32601), "{m}");
            let r = c
                .post_plain(&lrpc(m, json!({})), &[("mcp-protocol-version", MODERN)])
                .await;
            assert_eq!(
                (r.status.as_u16(), r.code()),
                (404, -32601),
                "{m} without _meta"
            );
        }
        // shutdown and exit requests: a stateless endpoint has no connection to end.
        for m in ["shutdown", "exit"] {
            let r = c.post_plain(&lrpc(m, json!({})), &[]).await;
            assert_eq!((r.status.as_u16(), r.code()), (404, -32601), "{m}");
        }
    })
    .await;
}

#[tokio::test]
async fn the_method_table_is_the_legacy_one_with_legacy_results() {
    let spec = Spec::load(LEGACY);
    each(rig::service(), async |c| {
        for headers in [&[][..], &[V][..]] {
            let r = c.post_plain(&lrpc("tools/list", json!({})), headers).await;
            assert_eq!(r.status.as_u16(), 200);
            spec.check_response("ListToolsResult", &r.json());
            assert_legacy_shape(&r.json()["result"]);
            let body = lrpc(
                "tools/call",
                json!({"name": "get_weather", "arguments": {"place": "Lima"}}),
            );
            let r = c.post_plain(&body, headers).await;
            assert_eq!(r.status.as_u16(), 200);
            spec.check_response("CallToolResult", &r.json());
            assert_legacy_shape(&r.json()["result"]);
            assert_eq!(r.json()["result"]["content"][0]["text"], "sunny in Lima");
            let r = c
                .post_plain(&lrpc("resources/list", json!({})), headers)
                .await;
            spec.check_response("ListResourcesResult", &r.json());
            assert_legacy_shape(&r.json()["result"]);
            let read = lrpc("resources/read", json!({"uri": "weather://places"}));
            let r = c.post_plain(&read, headers).await;
            spec.check_response("ReadResourceResult", &r.json());
            assert_legacy_shape(&r.json()["result"]);
            // An unlisted uri is -32002 at 2025-11-25 (-32602 at 2026-07-28).
            let read = lrpc("resources/read", json!({"uri": "weather://nowhere"}));
            let r = c.post_plain(&read, headers).await;
            assert_eq!((r.status.as_u16(), r.code()), (200, -32002));
            spec.check("JSONRPCErrorResponse", &r.json());
            // Content errors stay 200 with a JSON-RPC error, as at 2026-07-28.
            let body = lrpc("tools/call", json!({"name": "nope", "arguments": {}}));
            let r = c.post_plain(&body, headers).await;
            assert_eq!((r.status.as_u16(), r.code()), (200, -32602));
            let body = lrpc(
                "tools/call",
                json!({"name": "get_weather", "arguments": {"place": 7}}),
            );
            // A wrong argument type is a tool execution error at 2025-11-25.
            let r = c.post_plain(&body, headers).await;
            assert_eq!(r.status.as_u16(), 200);
            spec.check_response("CallToolResult", &r.json());
            assert_eq!(r.json()["result"]["isError"], true);
            let text = r.json()["result"]["content"][0]["text"].clone();
            assert!(text.as_str().unwrap().contains("/place"), "{text}");
            let r = c
                .post_plain(&lrpc("prompts/list", json!({})), headers)
                .await;
            assert_eq!(
                (r.status.as_u16(), r.code()),
                (404, -32601),
                "no prompts here"
            );
        }
    })
    .await;
}

#[tokio::test]
async fn server_discover_lists_every_revision_served() {
    each(rig::service(), async |c| {
        let r = c.post(&rpc("server/discover", json!({}))).await;
        assert_eq!(
            r.json()["result"]["supportedVersions"],
            json!([MODERN, LEGACY])
        );
        let r = c.post_plain(&lrpc("server/discover", json!({})), &[]).await;
        assert_eq!(r.status.as_u16(), 200);
        assert_eq!(
            r.json()["result"]["supportedVersions"],
            json!([MODERN, LEGACY])
        );
    })
    .await;
    each(rig::service().only_2026_07_28(), async |c| {
        let r = c.post(&rpc("server/discover", json!({}))).await;
        assert_eq!(r.json()["result"]["supportedVersions"], json!([MODERN]));
    })
    .await;
}

#[tokio::test]
async fn the_header_decides_and_the_body_must_agree() {
    let spec = Spec::load(MODERN);
    each(rig::service(), async |c| {
        let list = lrpc("tools/list", json!({}));
        // Revisions this endpoint never negotiates: its initialize answers 2025-11-25.
        for old in [
            "2025-06-18",
            "2025-03-26",
            "2024-11-05",
            "2027-01-01",
            "garbage",
        ] {
            let r = c.post_plain(&list, &[("mcp-protocol-version", old)]).await;
            assert_eq!((r.status.as_u16(), r.code()), (400, UNSUPPORTED), "{old}");
            let data = &r.json()["error"]["data"];
            assert_eq!(data["supported"], json!([MODERN, LEGACY]));
            assert_eq!(data["requested"], old);
            spec.check("JSONRPCErrorResponse", &r.json());
        }
        // No header, but a 2026-07-28 `_meta`: the header is missing.
        let modern = rpc("tools/list", json!({}));
        let r = c.post_plain(&modern, &[]).await;
        assert_eq!((r.status.as_u16(), r.code()), (400, HEADER_MISMATCH));
        assert_eq!(r.json()["id"], 1);
        // The legacy header, a 2026-07-28 `_meta`: they disagree.
        let r = c.post_plain(&modern, &[V]).await;
        assert_eq!((r.status.as_u16(), r.code()), (400, HEADER_MISMATCH));
        // The 2026-07-28 header without the `_meta` it requires.
        let r = c
            .post_plain(
                &list,
                &[
                    ("mcp-protocol-version", MODERN),
                    ("mcp-method", "tools/list"),
                ],
            )
            .await;
        assert_eq!((r.status.as_u16(), r.code()), (400, -32602));
        // Two header values that disagree.
        let r = c
            .post_plain(&list, &[V, ("mcp-protocol-version", MODERN)])
            .await;
        assert_eq!((r.status.as_u16(), r.code()), (400, HEADER_MISMATCH));
        // A `_meta` with only legacy members (a progress token) is still a legacy request.
        let token = lrpc("tools/list", json!({"_meta": {"progressToken": 7}}));
        assert_eq!(c.post_plain(&token, &[]).await.status.as_u16(), 200);
    })
    .await;
}

#[tokio::test]
async fn mcp_headers_on_a_legacy_request_must_agree_with_its_body() {
    each(rig::service(), async |c| {
        let body = lrpc(
            "tools/call",
            json!({"name": "get_weather", "arguments": {"place": "Oslo", "days": 3}}),
        );
        let agree = [
            V,
            ("mcp-method", "tools/call"),
            ("mcp-name", "get_weather"),
            ("mcp-param-place", "Oslo"),
            ("mcp-param-days", "3"),
        ];
        assert_eq!(c.post_plain(&body, &agree).await.status.as_u16(), 200);
        for (k, bad) in [
            ("mcp-method", "tools/list"),
            ("mcp-name", "other"),
            ("mcp-param-place", "Lima"),
            ("mcp-param-days", "4"),
            ("mcp-param-metric", "true"),
        ] {
            let mut headers: Vec<(&str, &str)> =
                agree.iter().filter(|(h, _)| *h != k).copied().collect();
            headers.push((k, bad));
            let r = c.post_plain(&body, &headers).await;
            assert_eq!(
                (r.status.as_u16(), r.code()),
                (400, HEADER_MISMATCH),
                "{k}: {bad}"
            );
            let named = r.json()["error"]["data"]["header"]
                .as_str()
                .unwrap()
                .to_ascii_lowercase();
            assert_eq!(named, k);
            assert_eq!(r.json()["id"], 1);
        }
        // Without the legacy header too.
        let r = c.post_plain(&body, &[("mcp-name", "other")]).await;
        assert_eq!((r.status.as_u16(), r.code()), (400, HEADER_MISMATCH));
        let n = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        let r = c.post_plain(&n, &[("mcp-method", "ping")]).await;
        assert_eq!((r.status.as_u16(), r.code()), (400, HEADER_MISMATCH));
    })
    .await;
}

#[tokio::test]
async fn a_host_may_serve_2026_07_28_only() {
    each(rig::service().only_2026_07_28(), async |c| {
        let r = c.post_plain(&initialize(), &[]).await;
        assert_eq!((r.status.as_u16(), r.code()), (404, -32601));
        let r = c.post_plain(&lrpc("ping", json!({})), &[V]).await;
        assert_eq!((r.status.as_u16(), r.code()), (404, -32601));
        let list = lrpc("tools/list", json!({}));
        let r = c.post_plain(&list, &[]).await;
        assert_eq!((r.status.as_u16(), r.code()), (400, HEADER_MISMATCH));
        let r = c.post_plain(&list, &[V]).await;
        assert_eq!((r.status.as_u16(), r.code()), (400, UNSUPPORTED));
        assert_eq!(r.json()["error"]["data"]["supported"], json!([MODERN]));
        // The modern path is untouched.
        let r = c
            .post_with(&call(json!({"place": "Oslo"})), |h| {
                h.push(("Mcp-Param-Place".into(), "Oslo".into()))
            })
            .await;
        assert_eq!(r.status.as_u16(), 200);
    })
    .await;
}

// ----- the same hardening as the modern path -----

#[tokio::test]
async fn host_origin_and_method_rules_hold_for_legacy_requests() {
    each(rig::service(), async |c| {
        let body = serde_json::to_vec(&initialize()).unwrap();
        let send = async |host: Option<&str>, origin: Option<&str>, method: &str| {
            let mut b = c
                .builder(method, "/mcp", host)
                .header("content-type", "application/json");
            if let Some(o) = origin {
                b = b.header("origin", o);
            }
            c.send(
                b.body(http_body_util::Full::new(bytes::Bytes::from(body.clone())))
                    .unwrap(),
            )
            .await
        };
        let r = send(Some("evil.example"), None, "POST").await;
        assert_eq!(r.status.as_u16(), 403);
        assert!(r.json()["error"]["code"].is_i64());
        let r = send(None, Some("http://evil.example"), "POST").await;
        assert_eq!(r.status.as_u16(), 403);
        let r = send(None, Some("http://localhost"), "POST").await;
        assert_eq!(r.status.as_u16(), 200);
        for m in ["GET", "DELETE"] {
            let r = send(None, None, m).await;
            assert_eq!(r.status.as_u16(), 405, "{m}");
            assert_eq!(r.headers["allow"], "POST");
        }
    })
    .await;
}

#[tokio::test]
async fn authorize_hooks_see_legacy_requests() {
    let service = HttpService::new(
        rig::server(),
        |parts| match parts.headers.get("authorization") {
            Some(v) if v == "Bearer good" => Ok(()),
            _ => Err(Forbidden::new("secret-reason: no token")),
        },
        AllowedOrigins::list(["http://localhost"]),
    )
    .path("/mcp")
    .authorize_body(|_, bytes| {
        if bytes.windows(9).any(|w| w == b"forbidden") {
            Err(Forbidden::new("secret-body-reason"))
        } else {
            Ok(())
        }
    });
    each(service, async |c| {
        let r = c.post_plain(&initialize(), &[]).await;
        assert_eq!(r.status.as_u16(), 403);
        assert!(!String::from_utf8_lossy(&r.body).contains("secret"));
        let auth = ("authorization", "Bearer good");
        assert_eq!(
            c.post_plain(&initialize(), &[auth]).await.status.as_u16(),
            200
        );
        let body = lrpc(
            "tools/call",
            json!({"name": "get_weather", "arguments": {"place": "forbidden"}}),
        );
        let r = c.post_plain(&body, &[auth, V]).await;
        assert_eq!(r.status.as_u16(), 403);
        assert!(!String::from_utf8_lossy(&r.body).contains("secret"));
    })
    .await;
}

fn legacy_head(addr: SocketAddr, extra: &str) -> String {
    format!("POST /mcp HTTP/1.1\r\nhost: {addr}\r\ncontent-type: application/json\r\n{extra}\r\n")
}

/// Writes `head` and `body`, then reads until the server closes (bounded by a timeout).
async fn raw_h1(addr: SocketAddr, head: String, body: &[u8]) -> String {
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    s.write_all(head.as_bytes()).await.unwrap();
    s.write_all(body).await.unwrap();
    let mut out = Vec::new();
    tokio::time::timeout(Duration::from_secs(5), s.read_to_end(&mut out))
        .await
        .expect("the server closes the connection")
        .unwrap();
    String::from_utf8_lossy(&out).into_owned()
}

fn closes(resp: &str) -> bool {
    resp.to_ascii_lowercase()
        .contains("\r\nconnection: close\r\n")
}

#[tokio::test]
async fn body_bounds_hold_for_legacy_requests() {
    let addr = spawn(rig::service().read_timeout(Duration::from_millis(300))).await;
    // A declared body over the cap: 413 before a byte is read, and the connection closes.
    let resp = raw_h1(addr, legacy_head(addr, "content-length: 33554432\r\n"), b"").await;
    assert!(resp.starts_with("HTTP/1.1 413"), "{resp}");
    assert!(closes(&resp));
    // Chunked: 411 before reading.
    let resp = raw_h1(
        addr,
        legacy_head(addr, "transfer-encoding: chunked\r\n"),
        b"",
    )
    .await;
    assert!(resp.starts_with("HTTP/1.1 411"), "{resp}");
    assert!(closes(&resp));
    // A body that never completes: 408 at the deadline, and the connection closes.
    let resp = raw_h1(addr, legacy_head(addr, "content-length: 100\r\n"), b"{").await;
    assert!(resp.starts_with("HTTP/1.1 408"), "{resp}");
    assert!(closes(&resp));
    // Too deep, and a batch: refused with the JSON-RPC code, never served.
    let mut deep = json!(1);
    for _ in 0..70 {
        deep = json!([deep]);
    }
    for proto in BOTH {
        let c = Client::new(proto, addr);
        let r = c
            .post_plain(&lrpc("tools/list", json!({"x": deep})), &[])
            .await;
        assert_eq!(r.status.as_u16(), 400, "{proto:?}");
        assert!(r.json()["error"]["code"].is_i64());
        let batch = json!([initialize(), lrpc("ping", json!({}))]);
        let r = c.post_plain(&batch, &[]).await;
        assert_eq!((r.status.as_u16(), r.code()), (400, -32600));
    }
}
