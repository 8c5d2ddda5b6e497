//! CORS for browser clients over a real listener, HTTP/1.1 and h2c: off by default (`OPTIONS`
//! 405, no CORS header anywhere); on, a preflight from an allowed origin answered 204 with
//! exactly MCP's method and headers, one from an origin or `Host` not allowed refused 403 as
//! today, no hook run by a preflight, every answer to an allowed origin (refusals, the 405 of
//! `GET`, JSON-RPC errors) readable by the page, `*` only under `AllowedOrigins::Any` and never
//! with credentials, and in the resource-server mode the metadata document and the 401
//! challenge readable cross-origin; the health paths left to the probes. `tools/browser_interop.sh`
//! drives the same rules from Chromium.

use crate::support::http::{self as rig, rpc, spawn, Client, Proto, Resp, BOTH, MODERN};

use beam_mcp::transport::http::oauth::{BearerToken, ResourceServer, TokenRefusal, VerifiedToken};
use beam_mcp::transport::http::{AllowedOrigins, Cors, Forbidden, HttpService};
use bytes::Bytes;
use http_body_util::Full;
use serde_json::{json, Value};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

const PAGE: &str = "http://localhost:5173";
const ELSEWHERE: &str = "http://evil.example";
/// What the endpoint's preflight admits without being asked for more.
const MCP_HEADERS: &str =
    "Content-Type, Accept, Authorization, MCP-Protocol-Version, Mcp-Method, Mcp-Name, \
     traceparent, tracestate";

fn cors_service() -> HttpService {
    HttpService::new(rig::server(), |_| Ok(()), AllowedOrigins::list([PAGE]))
        .path("/mcp")
        .cors(Cors::new())
}

/// A preflight as Chromium sends it before the TypeScript SDK's `POST`.
async fn preflight(c: &Client, path: &str, origin: &str, method: &str, asked: &str) -> Resp {
    let mut b = c
        .builder("OPTIONS", path, None)
        .header("origin", origin)
        .header("access-control-request-method", method);
    if !asked.is_empty() {
        b = b.header("access-control-request-headers", asked);
    }
    c.send(b.body(Full::new(Bytes::new())).unwrap()).await
}

fn header<'r>(r: &'r Resp, name: &str) -> Option<&'r str> {
    r.headers.get(name).map(|v| v.to_str().unwrap())
}

/// Every `access-control-*` header of an answer.
fn cors_headers(r: &Resp) -> Vec<String> {
    r.headers
        .keys()
        .map(|k| k.as_str().to_owned())
        .filter(|k| k.starts_with("access-control-"))
        .collect()
}

/// The answer is readable by a page from `origin`: its origin echoed, the challenge exposed,
/// no credentials, and `Vary: Origin`.
fn readable_by(r: &Resp, origin: &str, what: &str) {
    assert_eq!(
        header(r, "access-control-allow-origin"),
        Some(origin),
        "{what}"
    );
    assert_eq!(
        header(r, "access-control-expose-headers"),
        Some("WWW-Authenticate"),
        "{what}"
    );
    assert_eq!(header(r, "vary"), Some("Origin"), "{what}");
    assert!(
        r.headers.get("access-control-allow-credentials").is_none(),
        "{what}"
    );
}

#[tokio::test]
async fn with_cors_off_options_is_405_and_nothing_on_the_wire_changes() {
    // The default service, with an origin that is allowed: CORS is still off.
    let addr = spawn(rig::service()).await;
    for proto in BOTH {
        let c = Client::new(proto, addr);
        let r = preflight(
            &c,
            "/mcp",
            "http://localhost",
            "POST",
            "content-type,mcp-protocol-version",
        )
        .await;
        assert_eq!(r.status.as_u16(), 405, "{proto:?}");
        assert_eq!(header(&r, "allow"), Some("POST"));
        assert!(r.json()["error"]["code"].is_i64());
        assert!(cors_headers(&r).is_empty(), "{:?}", r.headers);
        assert!(r.headers.get("vary").is_none());
        let body = rpc("tools/list", json!({}));
        let r = c
            .post_with(&body, |h| {
                h.push(("origin".into(), "http://localhost".into()))
            })
            .await;
        assert_eq!(r.status.as_u16(), 200, "{proto:?}");
        assert!(cors_headers(&r).is_empty(), "{:?}", r.headers);
        assert!(r.headers.get("vary").is_none());
    }
}

#[tokio::test]
async fn a_preflight_from_an_allowed_origin_is_204_with_exactly_mcps_method_and_headers() {
    let addr = spawn(cors_service()).await;
    let custom = spawn(cors_service().cors(Cors::new().max_age(Duration::from_secs(600)))).await;
    for proto in BOTH {
        let c = Client::new(proto, addr);
        let r = preflight(
            &c,
            "/mcp",
            PAGE,
            "POST",
            "authorization,content-type,mcp-method,mcp-name,mcp-param-place,mcp-protocol-version",
        )
        .await;
        assert_eq!(r.status.as_u16(), 204, "{proto:?}");
        assert!(r.body.is_empty());
        assert_eq!(header(&r, "access-control-allow-origin"), Some(PAGE));
        assert_eq!(header(&r, "access-control-allow-methods"), Some("POST"));
        assert_eq!(
            header(&r, "access-control-allow-headers"),
            Some(&*format!("{MCP_HEADERS}, mcp-param-place"))
        );
        assert_eq!(header(&r, "access-control-max-age"), Some("7200"));
        assert_eq!(
            header(&r, "vary"),
            Some("Origin, Access-Control-Request-Method, Access-Control-Request-Headers")
        );
        let mut names = cors_headers(&r);
        names.sort();
        assert_eq!(
            names,
            [
                "access-control-allow-headers",
                "access-control-allow-methods",
                "access-control-allow-origin",
                "access-control-max-age"
            ],
            "no credentials, nothing exposed on a preflight"
        );
        assert!(r.headers.get("content-type").is_none());
        assert!(!r.closes(), "a preflight answered keeps its connection");
        // What MCP does not use is left out (the browser then refuses the request itself);
        // `Mcp-Param-*` names are echoed each once whatever their case, never listed from the
        // catalog (`days` is a tool's header the preflight did not ask for).
        let r = preflight(
            &c,
            "/mcp",
            PAGE,
            "POST",
            "x-custom, cookie, Mcp-Param-Place, mcp-param-place, last-event-id, mcp-session-id",
        )
        .await;
        assert_eq!(r.status.as_u16(), 204, "{proto:?}");
        assert_eq!(
            header(&r, "access-control-allow-headers"),
            Some(&*format!("{MCP_HEADERS}, mcp-param-place"))
        );
        // Asked for another method: the answer names POST alone, as for any preflight.
        let r = preflight(&c, "/mcp", PAGE, "DELETE", "").await;
        assert_eq!(r.status.as_u16(), 204, "{proto:?}");
        assert_eq!(header(&r, "access-control-allow-methods"), Some("POST"));
        assert_eq!(
            header(&r, "access-control-allow-headers"),
            Some(MCP_HEADERS)
        );
        let c = Client::new(proto, custom);
        let r = preflight(&c, "/mcp", PAGE, "POST", "content-type").await;
        assert_eq!(header(&r, "access-control-max-age"), Some("600"));
    }
}

#[tokio::test]
async fn a_preflight_from_an_origin_not_allowed_is_403_as_today() {
    let addr = spawn(cors_service()).await;
    for proto in BOTH {
        let c = Client::new(proto, addr);
        for origin in [
            ELSEWHERE,
            "http://localhost:5174",
            "null",
            "http://localhost",
        ] {
            let r = preflight(&c, "/mcp", origin, "POST", "content-type").await;
            assert_eq!(r.status.as_u16(), 403, "{proto:?} {origin}");
            assert_eq!(r.json()["error"]["data"], "origin not allowed");
            assert!(cors_headers(&r).is_empty(), "{origin}: {:?}", r.headers);
            assert_eq!(header(&r, "vary").map(|v| v.contains("Origin")), Some(true));
            if proto == Proto::H1 {
                assert!(r.closes(), "refused before the body: close");
            }
        }
        // And a page from such an origin cannot read a POST either: 403, no CORS header.
        let body = rpc("tools/list", json!({}));
        let r = c
            .post_with(&body, |h| h.push(("origin".into(), ELSEWHERE.into())))
            .await;
        assert_eq!(r.status.as_u16(), 403);
        assert!(cors_headers(&r).is_empty());
    }
}

#[tokio::test]
async fn a_preflight_with_a_foreign_host_is_403() {
    let addr = spawn(cors_service()).await;
    for proto in BOTH {
        let c = Client::new(proto, addr);
        let req = c
            .builder("OPTIONS", "/mcp", Some("evil.example"))
            .header("origin", PAGE)
            .header("access-control-request-method", "POST")
            .body(Full::new(Bytes::new()))
            .unwrap();
        let r = c.send(req).await;
        assert_eq!(r.status.as_u16(), 403, "{proto:?}");
        assert_eq!(r.json()["error"]["data"], "host not allowed");
        assert!(r.headers.get("access-control-allow-methods").is_none());
        // Another path is not the endpoint: 404 as today, no preflight answered there.
        let r = preflight(&c, "/elsewhere", PAGE, "POST", "content-type").await;
        assert_eq!(r.status.as_u16(), 404, "{proto:?}");
        assert!(cors_headers(&r).is_empty());
        // An OPTIONS that is no preflight (no Access-Control-Request-Method) is 405 as today.
        let req = c
            .builder("OPTIONS", "/mcp", None)
            .header("origin", PAGE)
            .body(Full::new(Bytes::new()))
            .unwrap();
        let r = c.send(req).await;
        assert_eq!(r.status.as_u16(), 405, "{proto:?}");
        assert_eq!(header(&r, "allow"), Some("POST"));
        readable_by(&r, PAGE, "405 to an OPTIONS that is no preflight");
    }
}

#[tokio::test]
async fn a_preflight_runs_no_hook_and_the_request_still_meets_every_rule() {
    let hooked = Arc::new(AtomicUsize::new(0));
    let seen = hooked.clone();
    let service = HttpService::new(
        rig::server(),
        move |parts| {
            seen.fetch_add(1, Ordering::SeqCst);
            match parts.headers.get("authorization") {
                Some(v) if v == "Bearer good" => Ok(()),
                _ => Err(Forbidden::new("no bearer token")),
            }
        },
        AllowedOrigins::list([PAGE]),
    )
    .path("/mcp")
    .cors(Cors::new());
    let addr = spawn(service).await;
    for proto in BOTH {
        let c = Client::new(proto, addr);
        let before = hooked.load(Ordering::SeqCst);
        let r = preflight(&c, "/mcp", PAGE, "POST", "authorization,content-type").await;
        assert_eq!(r.status.as_u16(), 204, "{proto:?}");
        assert_eq!(hooked.load(Ordering::SeqCst), before, "no hook ran");
        let body = rpc("tools/list", json!({}));
        let from_page = |h: &mut Vec<(String, String)>| h.push(("origin".into(), PAGE.into()));
        // Without the token: the hook's opaque 403, readable by the page.
        let r = c.post_with(&body, from_page).await;
        assert_eq!(r.status.as_u16(), 403, "{proto:?}");
        assert!(r.json()["error"].get("data").is_none());
        readable_by(&r, PAGE, "the hook's 403");
        // With it: served.
        let r = c
            .post_with(&body, |h| {
                from_page(h);
                h.push(("authorization".into(), "Bearer good".into()));
            })
            .await;
        assert_eq!(r.status.as_u16(), 200, "{proto:?}");
        readable_by(&r, PAGE, "the 200");
        assert_eq!(hooked.load(Ordering::SeqCst), before + 2);
    }
}

#[tokio::test]
async fn every_answer_to_an_allowed_origin_is_readable_by_the_page() {
    let addr = spawn(cors_service()).await;
    let from_page = |h: &mut Vec<(String, String)>| h.push(("origin".into(), PAGE.into()));
    for proto in BOTH {
        let c = Client::new(proto, addr);
        // A call with its `Mcp-Param-*` header: 200.
        let call = rig::call(json!({"place": "Oslo"}));
        let r = c
            .post_with(&call, |h| {
                from_page(h);
                h.push(("mcp-param-place".into(), "Oslo".into()));
            })
            .await;
        assert_eq!(r.status.as_u16(), 200, "{proto:?}: {:?}", r.body);
        readable_by(&r, PAGE, "a call");
        // The header disagreeing with the body: 400 -32020, readable.
        let r = c
            .post_with(&call, |h| {
                from_page(h);
                h.push(("mcp-param-place".into(), "Lima".into()));
            })
            .await;
        assert_eq!((r.status.as_u16(), r.code()), (400, -32020), "{proto:?}");
        readable_by(&r, PAGE, "a header mismatch");
        // An `Mcp-Param-*` header no tool declares (a preflight echoes any such name): still
        // refused by the request's own check.
        let r = c
            .post_with(&call, |h| {
                from_page(h);
                h.push(("mcp-param-place".into(), "Oslo".into()));
                h.push(("mcp-param-secret".into(), "x".into()));
            })
            .await;
        assert_eq!((r.status.as_u16(), r.code()), (400, -32020), "{proto:?}");
        readable_by(&r, PAGE, "an unannotated Mcp-Param header");
        // An unknown method: 404 -32601.
        let unknown = rpc("nope/nothing", json!({}));
        let r = c.post_with(&unknown, from_page).await;
        assert_eq!((r.status.as_u16(), r.code()), (404, -32601), "{proto:?}");
        readable_by(&r, PAGE, "an unknown method");
        // A body that is not JSON-typed: 415.
        let list = rpc("tools/list", json!({}));
        let r = c
            .post_with(&list, |h| {
                from_page(h);
                rig::set(h, "content-type", "text/plain");
            })
            .await;
        assert_eq!(r.status.as_u16(), 415, "{proto:?}");
        readable_by(&r, PAGE, "a 415");
        // The `GET` a client opens a stream with: 405, readable (the spec's "no stream here").
        let req = c
            .builder("GET", "/mcp", None)
            .header("origin", PAGE)
            .header("accept", "text/event-stream")
            .header("mcp-protocol-version", MODERN)
            .body(Full::new(Bytes::new()))
            .unwrap();
        let r = c.send(req).await;
        assert_eq!(r.status.as_u16(), 405, "{proto:?}");
        readable_by(&r, PAGE, "the GET's 405");
        // A request with no `Origin` (not from a browser page) gets no CORS header, but the
        // answer still varies by it for caches.
        let r = c.post(&list).await;
        assert_eq!(r.status.as_u16(), 200);
        assert!(cors_headers(&r).is_empty());
        assert_eq!(header(&r, "vary"), Some("Origin"));
    }
}

#[tokio::test]
async fn any_origin_is_answered_with_a_wildcard_and_never_with_credentials() {
    let any = HttpService::new(rig::server(), |_| Ok(()), AllowedOrigins::Any)
        .path("/mcp")
        .cors(Cors::new());
    let addr = spawn(any).await;
    for proto in BOTH {
        let c = Client::new(proto, addr);
        for origin in [ELSEWHERE, "null"] {
            let r = preflight(&c, "/mcp", origin, "POST", "content-type").await;
            assert_eq!(r.status.as_u16(), 204, "{proto:?}");
            assert_eq!(header(&r, "access-control-allow-origin"), Some("*"));
            assert!(r.headers.get("access-control-allow-credentials").is_none());
            let body = rpc("tools/list", json!({}));
            let r = c
                .post_with(&body, |h| h.push(("origin".into(), origin.into())))
                .await;
            assert_eq!(r.status.as_u16(), 200);
            readable_by(&r, "*", "a list under Any");
        }
    }
}

#[tokio::test]
async fn health_paths_are_left_to_the_probes_even_where_every_path_is_the_endpoint() {
    // No `.path`: every path is the endpoint, but the health paths are the probes'.
    let service = HttpService::new(rig::server(), |_| Ok(()), AllowedOrigins::list([PAGE]))
        .health_paths("/live", "/ready")
        .cors(Cors::new());
    let addr = spawn(service).await;
    for proto in BOTH {
        let c = Client::new(proto, addr);
        let r = preflight(&c, "/live", PAGE, "GET", "").await;
        assert_eq!(r.status.as_u16(), 405, "{proto:?}");
        assert_eq!(header(&r, "allow"), Some("GET, HEAD"));
        assert!(cors_headers(&r).is_empty(), "{:?}", r.headers);
        let req = c.builder("GET", "/ready", None).header("origin", PAGE);
        let r = c.send(req.body(Full::new(Bytes::new())).unwrap()).await;
        assert_eq!(r.status.as_u16(), 200, "{proto:?}");
        assert!(cors_headers(&r).is_empty(), "{:?}", r.headers);
        assert!(r.headers.get("vary").is_none());
        // Any other path is the endpoint: its preflight is answered.
        let r = preflight(&c, "/anything", PAGE, "POST", "content-type").await;
        assert_eq!(r.status.as_u16(), 204, "{proto:?}");
        assert_eq!(header(&r, "access-control-allow-origin"), Some(PAGE));
    }
}

const RESOURCE: &str = "http://localhost/mcp";
const METADATA: &str = "/.well-known/oauth-protected-resource/mcp";

async fn verify(token: BearerToken, resource: Arc<str>) -> Result<VerifiedToken, TokenRefusal> {
    match token.secret() {
        "good" => Ok(VerifiedToken::new([resource.to_string()])
            .scopes(["weather:read"])
            .expires_at(SystemTime::now() + Duration::from_secs(600))),
        _ => Err(TokenRefusal::invalid("unknown token")),
    }
}

fn oauth_service() -> HttpService {
    let rs = ResourceServer::builder(RESOURCE, verify)
        .authorization_server("https://auth.example.com")
        .challenge_scope(["weather:read"])
        .build()
        .unwrap();
    cors_service().resource_server(rs)
}

#[tokio::test]
async fn in_the_resource_server_mode_the_metadata_and_the_challenge_are_readable() {
    let addr = spawn(oauth_service()).await;
    for proto in BOTH {
        let c = Client::new(proto, addr);
        for path in [METADATA, "/.well-known/oauth-protected-resource"] {
            // The TypeScript SDK's discovery sends `MCP-Protocol-Version`: preflighted.
            let r = preflight(&c, path, PAGE, "GET", "mcp-protocol-version").await;
            assert_eq!(r.status.as_u16(), 204, "{proto:?} {path}");
            assert_eq!(header(&r, "access-control-allow-origin"), Some(PAGE));
            assert_eq!(header(&r, "access-control-allow-methods"), Some("GET"));
            assert_eq!(
                header(&r, "access-control-allow-headers"),
                Some("Accept, MCP-Protocol-Version")
            );
            let r = preflight(&c, path, ELSEWHERE, "GET", "mcp-protocol-version").await;
            assert_eq!(r.status.as_u16(), 403, "{proto:?} {path}");
            assert!(cors_headers(&r).is_empty());
            let req = c
                .builder("GET", path, None)
                .header("origin", PAGE)
                .header("mcp-protocol-version", rig::LEGACY)
                .body(Full::new(Bytes::new()))
                .unwrap();
            let r = c.send(req).await;
            assert_eq!(r.status.as_u16(), 200, "{proto:?} {path}");
            assert_eq!(r.json()["resource"], RESOURCE);
            readable_by(&r, PAGE, "the metadata");
            // The document is cacheable: an answer without `Origin` varies by it too.
            let req = c.builder("GET", path, None).body(Full::new(Bytes::new()));
            let r = c.send(req.unwrap()).await;
            assert_eq!(r.status.as_u16(), 200);
            assert!(r.headers.get("cache-control").is_some());
            assert_eq!(header(&r, "vary"), Some("Origin"));
            assert!(cors_headers(&r).is_empty());
        }
        // The endpoint's preflight needs no token (a browser sends none on a preflight).
        let r = preflight(&c, "/mcp", PAGE, "POST", "authorization,content-type").await;
        assert_eq!(r.status.as_u16(), 204, "{proto:?}");
        assert!(r.headers.get("www-authenticate").is_none());
        // The 401 a client starts its authorization from: the challenge exposed to the page.
        let body = rpc("tools/list", json!({}));
        let r = c
            .post_with(&body, |h| h.push(("origin".into(), PAGE.into())))
            .await;
        assert_eq!(r.status.as_u16(), 401, "{proto:?}");
        let challenge = header(&r, "www-authenticate").unwrap();
        assert!(challenge.contains("resource_metadata="), "{challenge}");
        readable_by(&r, PAGE, "the 401");
        let r = c
            .post_with(&body, |h| {
                h.push(("origin".into(), PAGE.into()));
                h.push(("authorization".into(), "Bearer forged".into()));
            })
            .await;
        assert_eq!(r.status.as_u16(), 401, "{proto:?}");
        assert!(header(&r, "www-authenticate")
            .unwrap()
            .contains("invalid_token"));
        readable_by(&r, PAGE, "the invalid_token 401");
        let r = c
            .post_with(&body, |h| {
                h.push(("origin".into(), PAGE.into()));
                h.push(("authorization".into(), "Bearer good".into()));
            })
            .await;
        assert_eq!(r.status.as_u16(), 200, "{proto:?}");
        readable_by(&r, PAGE, "the authorized 200");
        let _: &Value = &r.json()["result"]["tools"];
    }
}
