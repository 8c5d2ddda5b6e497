//! The OAuth 2.1 resource-server mode over a real listener, HTTP/1.1 and h2c: the metadata
//! document at both well-known locations, every 401, 400 and 403 with its exact challenge, a
//! verifier that cannot decide, panics or hangs, the principal and the grant read by a tool
//! and a reader, and no token in the log (every level, hyper's and h2's included) or the
//! metrics.

use crate::support::http::{self as rig, rpc, Client, Proto, Resp, BOTH};
use crate::support::log::Log;

use beam_mcp::catalog::{ReadError, ResourceContents, ResourceSpec};
use beam_mcp::transport::http::oauth::{
    BearerToken, Grant, ResourceServer, TokenRefusal, VerifiedToken,
};
use beam_mcp::transport::http::{AllowedOrigins, Forbidden, HttpService};
use beam_mcp::{Catalog, Server, ServerConfig, ToolCall, ToolError, ToolOutput, ToolSpec};
use bytes::Bytes;
use http_body_util::Full;
use serde_json::{json, Value};
use std::future::Future;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

const RESOURCE: &str = "http://localhost/mcp";
const METADATA_URL: &str = "http://localhost/.well-known/oauth-protected-resource/mcp";

/// The host's principal, built by its verifier.
#[derive(Debug, Clone)]
struct Principal(String);

/// A verifier of the host's: a token names who it is for by its prefix. A real one checks a
/// signature or asks the authorization server; what the crate does with its answer is the
/// same.
fn verify(
    token: BearerToken,
    resource: Arc<str>,
) -> impl Future<Output = Result<VerifiedToken, TokenRefusal>> + Send + 'static {
    async move {
        let later = SystemTime::now() + Duration::from_secs(600);
        let ours = VerifiedToken::new([resource.to_string()]);
        let t = token.secret();
        if t.starts_with("alice-read") {
            return Ok(ours
                .scopes(["weather:read"])
                .expires_at(later)
                .subject("alice")
                .with(Principal("alice".into())));
        }
        if t.starts_with("bob-all") {
            return Ok(ours
                .scopes(["weather:read", "weather:alerts"])
                .expires_at(later)
                .subject("bob")
                .with(Principal("bob".into())));
        }
        if t.starts_with("expired") {
            let past = SystemTime::now() - Duration::from_secs(1);
            return Ok(ours.scopes(["weather:read"]).expires_at(past));
        }
        match t {
            "foreign" => Ok(VerifiedToken::new(["http://localhost/other"])
                .scopes(["weather:read"])
                .expires_at(later)),
            "says-expired" => Err(TokenRefusal::expired()),
            "says-foreign" => Err(TokenRefusal::wrong_audience()),
            "lacks" => Err(TokenRefusal::insufficient_scope(["weather:admin"])),
            "down" => Err(TokenRefusal::unavailable("introspection endpoint down")),
            "panics" => panic!("a verifier bug"),
            "hangs" => std::future::pending().await,
            _ => Err(TokenRefusal::invalid("unknown token")),
        }
    }
}

fn server(ran: Arc<AtomicUsize>) -> Server {
    let catalog = Catalog::new()
        .tool(ToolSpec::new("get_weather", "Weather."))
        .tool(ToolSpec::new("get_alerts", "Alerts."))
        .tool(ToolSpec::new("whoami", "Who called."))
        .resource(ResourceSpec::new("weather://mine", "mine"))
        .resource(ResourceSpec::new("weather://alerts", "alerts"))
        .reader_in_context(|uri: String, cx: beam_mcp::CallContext| async move {
            let who = cx.extensions.get::<Principal>().map(|p| p.0.clone());
            let who = who.ok_or_else(|| ReadError::new("no principal"))?;
            Ok(vec![ResourceContents::text(uri, format!("read by {who}"))])
        });
    let config = ServerConfig::new(catalog).dispatch(move |call: ToolCall| {
        let ran = ran.clone();
        async move {
            ran.fetch_add(1, Ordering::SeqCst);
            let who = call.extensions().get::<Principal>().map(|p| p.0.clone());
            let grant = call.extensions().get::<Grant>().cloned();
            match (call.tool.as_ref(), who, grant) {
                ("whoami", Some(who), Some(grant)) => Ok(ToolOutput::structured(json!({
                    "principal": who,
                    "subject": grant.subject(),
                    "scopes": grant.scopes(),
                    "expires": grant.expires_at().is_some(),
                }))),
                ("whoami", ..) => Err(ToolError::new("no principal or grant")),
                (tool, ..) => Ok(ToolOutput::text(format!("{tool} ran"))),
            }
        }
    });
    Server::new(config).unwrap()
}

fn resource_server() -> ResourceServer {
    ResourceServer::builder(RESOURCE, verify)
        .authorization_server("https://auth.example.com")
        .scopes_supported(["weather:read", "weather:alerts"])
        .challenge_scope(["weather:read"])
        .resource_name("weather")
        .scopes_needed(|access| {
            let needs = match (access.method(), access.name()) {
                ("tools/call", Some("get_alerts"))
                | ("resources/read", Some("weather://alerts")) => "weather:alerts",
                _ => "weather:read",
            };
            vec![needs.to_owned()]
        })
        .build()
        .unwrap()
}

fn service(ran: Arc<AtomicUsize>) -> HttpService {
    HttpService::new(
        server(ran),
        |_| Ok(()),
        AllowedOrigins::list(["http://localhost"]),
    )
    .path("/mcp")
    .read_timeout(Duration::from_millis(300))
    .resource_server(resource_server())
}

fn call(tool: &str) -> Value {
    rpc("tools/call", json!({"name": tool, "arguments": {}}))
}

async fn with_token(c: &Client, body: &Value, authorization: &str) -> Resp {
    let authorization = authorization.to_owned();
    c.post_with(body, move |h| {
        h.push(("authorization".into(), authorization))
    })
    .await
}

async fn get(c: &Client, method: &str, path: &str, edit: &[(&str, &str)]) -> Resp {
    let mut b = c.builder(method, path, None);
    for (k, v) in edit {
        b = b.header(*k, *v);
    }
    c.send(b.body(Full::new(Bytes::new())).unwrap()).await
}

fn challenge(r: &Resp) -> &str {
    r.headers
        .get("www-authenticate")
        .map(|v| v.to_str().unwrap())
        .unwrap_or_else(|| panic!("no challenge: {} {:?}", r.status, r.headers))
}

fn invalid_token(description: &str) -> String {
    format!(
        "Bearer error=\"invalid_token\", error_description=\"{description}\", \
         resource_metadata=\"{METADATA_URL}\", scope=\"weather:read\""
    )
}

#[tokio::test]
async fn the_metadata_document_is_served_at_the_path_form_and_the_root_form() {
    let ran = Arc::new(AtomicUsize::new(0));
    // The metadata is public: even a service whose `authorize` refuses everything serves it.
    let refusing = HttpService::new(
        server(ran.clone()),
        |_| Err(Forbidden::new("no one")),
        AllowedOrigins::list(["http://localhost"]),
    )
    .path("/mcp")
    .resource_server(resource_server());
    let addr = rig::spawn(refusing).await;
    let expected = json!({
        "resource": RESOURCE,
        "authorization_servers": ["https://auth.example.com"],
        "scopes_supported": ["weather:read", "weather:alerts"],
        "bearer_methods_supported": ["header"],
        "resource_name": "weather",
    });
    for proto in BOTH {
        let c = Client::new(proto, addr);
        for path in [
            "/.well-known/oauth-protected-resource/mcp",
            "/.well-known/oauth-protected-resource",
        ] {
            let r = get(&c, "GET", path, &[]).await;
            assert_eq!(r.status, 200, "{proto:?} {path}");
            assert_eq!(r.json(), expected, "{proto:?} {path}");
            assert_eq!(r.headers["content-type"], "application/json");
            assert_eq!(r.headers["cache-control"], "public, max-age=3600");
            assert!(!r.headers.contains_key("www-authenticate"));
            let head = get(&c, "HEAD", path, &[]).await;
            assert_eq!(head.status, 200);
            assert!(head.body.is_empty());
            let r = get(&c, "POST", path, &[]).await;
            assert_eq!(r.status, 405, "{proto:?} {path}");
            assert_eq!(r.headers["allow"], "GET, HEAD");
            // The DNS-rebinding and cross-site rules hold here as on the endpoint.
            let r = get(&c, "GET", path, &[("origin", "http://evil.example")]).await;
            assert_eq!(r.status, 403, "{proto:?} {path}");
        }
        let elsewhere = get(
            &c,
            "GET",
            "/.well-known/oauth-protected-resource/other",
            &[],
        )
        .await;
        assert_eq!(elsewhere.status, 404);
        let c2 = c.builder(
            "GET",
            "/.well-known/oauth-protected-resource",
            Some("evil.example"),
        );
        let r = c.send(c2.body(Full::new(Bytes::new())).unwrap()).await;
        assert_eq!(r.status, 403, "{proto:?}: a foreign Host");
    }
    assert_eq!(ran.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn a_request_without_a_token_is_401_with_the_challenge_clients_start_from() {
    let ran = Arc::new(AtomicUsize::new(0));
    let addr = rig::spawn(service(ran.clone())).await;
    let expected = format!("Bearer resource_metadata=\"{METADATA_URL}\", scope=\"weather:read\"");
    for proto in BOTH {
        let c = Client::new(proto, addr);
        let none = c.post(&call("get_weather")).await;
        let basic = with_token(&c, &call("get_weather"), "Basic YWxpY2U6cHc=").await;
        for r in [none, basic] {
            assert_eq!(r.status, 401, "{proto:?}");
            assert_eq!(challenge(&r), expected);
            let v = r.json();
            assert_eq!(v["error"]["code"], -32600, "{v}");
            assert_eq!(v["error"]["message"], "Unauthorized", "{v}");
            // RFC 6750 §3.1: no error code when the request carried no token.
            assert!(v["error"].get("data").is_none(), "{v}");
            assert_eq!(
                r.closes(),
                proto == Proto::H1,
                "refused before the body is read"
            );
        }
    }
    assert_eq!(ran.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn refused_tokens_are_401_invalid_token_each_with_its_fixed_description() {
    let ran = Arc::new(AtomicUsize::new(0));
    let addr = rig::spawn(service(ran.clone())).await;
    let cases = [
        ("Bearer", "the bearer token is malformed"),
        ("Bearer two words", "the bearer token is malformed"),
        ("Bearer a=b", "the bearer token is malformed"),
        ("Bearer nobody", "the access token is invalid"),
        ("Bearer expired-1", "the access token has expired"),
        ("Bearer says-expired", "the access token has expired"),
        (
            "Bearer foreign",
            "the access token was not issued for this resource",
        ),
        (
            "Bearer says-foreign",
            "the access token was not issued for this resource",
        ),
    ];
    for proto in BOTH {
        let c = Client::new(proto, addr);
        for (authorization, description) in cases {
            let r = with_token(&c, &call("get_weather"), authorization).await;
            assert_eq!(r.status, 401, "{proto:?} {authorization}");
            assert_eq!(challenge(&r), invalid_token(description), "{authorization}");
            let v = r.json();
            assert_eq!(
                v["error"]["data"],
                json!({"error": "invalid_token", "error_description": description}),
                "{v}"
            );
            assert_eq!(r.closes(), proto == Proto::H1);
        }
    }
    assert_eq!(ran.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn a_missing_scope_is_403_insufficient_scope_naming_what_to_ask_for() {
    let ran = Arc::new(AtomicUsize::new(0));
    let addr = rig::spawn(service(ran.clone())).await;
    let step_up = |scope: &str| {
        format!(
            "Bearer error=\"insufficient_scope\", error_description=\"the access token lacks \
             a scope this request needs\", resource_metadata=\"{METADATA_URL}\", scope=\"{scope}\""
        )
    };
    for proto in BOTH {
        let c = Client::new(proto, addr);
        // The host's policy: what was granted and what is missing, so a client stepping up
        // keeps what it had.
        for body in [
            call("get_alerts"),
            rpc("resources/read", json!({"uri": "weather://alerts"})),
        ] {
            let r = with_token(&c, &body, "Bearer alice-read").await;
            assert_eq!(r.status, 403, "{proto:?} {body}");
            assert_eq!(challenge(&r), step_up("weather:read weather:alerts"));
            let v = r.json();
            assert_eq!(v["id"], 1, "{v}");
            assert_eq!(v["error"]["data"]["error"], "insufficient_scope", "{v}");
            assert_eq!(v["error"]["data"]["scope"], "weather:read weather:alerts");
            // Decided after the body was read: the connection lives on.
            assert!(!r.closes());
        }
        let r = with_token(&c, &call("get_alerts"), "Bearer bob-all").await;
        assert_eq!(r.status, 200, "{proto:?}");
        assert_eq!(r.json()["result"]["content"][0]["text"], "get_alerts ran");
        // The verifier's answer.
        let r = with_token(&c, &call("get_weather"), "Bearer lacks").await;
        assert_eq!(r.status, 403);
        assert_eq!(challenge(&r), step_up("weather:admin"));
        assert_eq!(r.closes(), proto == Proto::H1);
    }
    assert_eq!(ran.load(Ordering::SeqCst), 2, "bob's two calls, no other");

    // A hook's answer, with the mode on and with it off.
    let hooked = |mode: bool| {
        let s = HttpService::new(
            server(ran.clone()),
            |_| Ok(()),
            AllowedOrigins::list(["http://localhost"]),
        )
        .path("/mcp")
        .authorize_body(|_, body| {
            if body.windows(6).any(|w| w == b"admin_") {
                Err(Forbidden::insufficient_scope([
                    "weather:read",
                    "weather:admin",
                ]))
            } else {
                Ok(())
            }
        });
        if mode {
            s.resource_server(resource_server())
        } else {
            s
        }
    };
    let on = rig::spawn(hooked(true)).await;
    let r = with_token(
        &Client::new(Proto::H1, on),
        &call("admin_reset"),
        "Bearer alice-read",
    )
    .await;
    assert_eq!(r.status, 403);
    assert_eq!(challenge(&r), step_up("weather:read weather:admin"));
    let off = rig::spawn(hooked(false)).await;
    let r = Client::new(Proto::H1, off).post(&call("admin_reset")).await;
    assert_eq!(r.status, 403);
    assert_eq!(
        challenge(&r),
        "Bearer error=\"insufficient_scope\", error_description=\"the access token lacks a \
         scope this request needs\", scope=\"weather:read weather:admin\""
    );
    assert_eq!(ran.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn a_token_in_the_query_string_or_two_authorization_headers_are_400_invalid_request() {
    let ran = Arc::new(AtomicUsize::new(0));
    let addr = rig::spawn(service(ran.clone())).await;
    let expected = |description: &str| {
        format!(
            "Bearer error=\"invalid_request\", error_description=\"{description}\", \
             resource_metadata=\"{METADATA_URL}\", scope=\"weather:read\""
        )
    };
    for proto in BOTH {
        let c = Client::new(proto, addr);
        let body = serde_json::to_vec(&call("get_weather")).unwrap();
        for query in ["access_token=alice-read", "x=1&access%5Ftoken=alice-read"] {
            // Refused even beside a valid header: the token has already leaked into a URL.
            let mut b = c.builder("POST", &format!("/mcp?{query}"), None);
            for (k, v) in rig::mcp_headers(&call("get_weather")) {
                b = b.header(k, v);
            }
            let req = b
                .header("content-type", "application/json")
                .header("authorization", "Bearer alice-read")
                .body(Full::new(Bytes::from(body.clone())))
                .unwrap();
            let r = c.send(req).await;
            assert_eq!(r.status, 400, "{proto:?} {query}");
            assert_eq!(
                challenge(&r),
                expected("access tokens are accepted only in the Authorization header")
            );
            assert_eq!(r.json()["error"]["data"]["error"], "invalid_request");
            assert_eq!(r.closes(), proto == Proto::H1);
        }
        let r = c
            .post_with(&call("get_weather"), |h| {
                h.push(("authorization".into(), "Bearer alice-read".into()));
                h.push(("authorization".into(), "Bearer bob-all".into()));
            })
            .await;
        assert_eq!(r.status, 400, "{proto:?}");
        assert_eq!(
            challenge(&r),
            expected("more than one Authorization header")
        );
    }
    assert_eq!(ran.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn a_verifier_that_cannot_decide_panics_or_hangs_is_answered_and_nothing_runs() {
    let ran = Arc::new(AtomicUsize::new(0));
    let addr = rig::spawn(service(ran.clone())).await;
    for proto in BOTH {
        let c = Client::new(proto, addr);
        for (token, status, code) in [
            ("down", 503, -32603),
            ("panics", 500, -32603),
            ("hangs", 503, -32603),
        ] {
            let r = with_token(&c, &call("get_weather"), &format!("Bearer {token}")).await;
            assert_eq!(r.status, status, "{proto:?} {token}");
            let v = r.json();
            assert_eq!(v["error"]["code"], code, "{v}");
            assert!(v["error"].get("data").is_none(), "nothing said: {v}");
            // Not a login problem: no challenge sends the client to log in again.
            assert!(!r.headers.contains_key("www-authenticate"), "{token}");
        }
        // The server serves on.
        let r = with_token(&c, &call("get_weather"), "Bearer alice-read").await;
        assert_eq!(r.status, 200);
    }
    assert_eq!(ran.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn the_tool_and_the_reader_read_the_principal_and_the_grant() {
    let ran = Arc::new(AtomicUsize::new(0));
    let addr = rig::spawn(service(ran.clone())).await;
    for proto in BOTH {
        let c = Client::new(proto, addr);
        let r = with_token(&c, &call("whoami"), "Bearer bob-all").await;
        assert_eq!(r.status, 200, "{proto:?}");
        assert_eq!(
            r.json()["result"]["structuredContent"],
            json!({
                "principal": "bob",
                "subject": "bob",
                "scopes": ["weather:read", "weather:alerts"],
                "expires": true,
            })
        );
        let read = rpc("resources/read", json!({"uri": "weather://mine"}));
        let r = with_token(&c, &read, "Bearer alice-read").await;
        assert_eq!(r.status, 200, "{proto:?}");
        assert_eq!(r.json()["result"]["contents"][0]["text"], "read by alice");
    }
}

/// Every path a token takes through the server — accepted, refused by the verifier, expired,
/// short of a scope, in the query string — with the log captured at TRACE (the crate's,
/// hyper's and h2's) and the metrics recorded: no byte of any token appears in either.
#[tokio::test(flavor = "current_thread")]
async fn no_token_reaches_the_log_or_the_metrics() {
    let log = Log::capture_at(tracing::Level::TRACE);
    let recorder = metrics_exporter_prometheus::PrometheusBuilder::new().build_recorder();
    let scrape = recorder.handle();
    let _local = metrics::set_default_local_recorder(&recorder);
    let ran = Arc::new(AtomicUsize::new(0));
    let addr = rig::spawn(service(ran.clone())).await;
    let secrets = [
        "alice-read-Zq81xWv",
        "bob-all-Pk27sMn",
        "expired-Hv55rTe",
        "unknown-Yt40bCx",
        "querysecret-Lm93",
    ];
    for proto in BOTH {
        let c = Client::new(proto, addr);
        let ok = with_token(&c, &call("whoami"), &format!("Bearer {}", secrets[0])).await;
        assert_eq!(ok.status, 200);
        let scoped = with_token(&c, &call("get_alerts"), &format!("Bearer {}", secrets[0])).await;
        assert_eq!(scoped.status, 403);
        let bob = with_token(&c, &call("get_alerts"), &format!("Bearer {}", secrets[1])).await;
        assert_eq!(bob.status, 200);
        for refused in &secrets[2..4] {
            let r = with_token(&c, &call("get_weather"), &format!("Bearer {refused}")).await;
            assert_eq!(r.status, 401);
        }
        let q = get(
            &c,
            "POST",
            &format!("/mcp?access_token={}", secrets[4]),
            &[],
        )
        .await;
        assert_eq!(q.status, 400);
    }
    let logged = log.text();
    let metrics = scrape.render();
    // The capture works: the refusals were logged, and the metrics recorded.
    assert!(logged.contains("bearer token refused"), "{logged}");
    assert!(metrics.contains("mcp_"), "{metrics}");
    for secret in secrets {
        assert!(!logged.contains(secret), "{secret} in the log");
        assert!(!metrics.contains(secret), "{secret} in the metrics");
    }
}
