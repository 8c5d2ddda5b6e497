//! Review of the OAuth 2.1 resource-server mode (issue 28): attacks on it over a real listener,
//! HTTP/1.1 and h2c.
//!
//! Each test is a finding of the review and the behaviour decided for it: a panicking scope
//! policy is a 500; a resource URI is published and compared in its normal form; no host hook
//! sees the bearer token; a scope the host names that no client could ask for is a 500, not a
//! 403; a token after `;` in the query is refused; the documented axum mount publishes the
//! metadata; and what was checked and found sound (the runtime keeps the mode; a client
//! leaving drops the verifier).

use crate::support::http::{self as rig, mcp_headers, rpc, Client, BOTH};

use beam_mcp::runtime::{Application, ApplicationConfig};
use beam_mcp::transport::http::oauth::{
    Access, BearerToken, ResourceServer, TokenRefusal, VerifiedToken,
};
use beam_mcp::transport::http::{AllowedOrigins, HttpService, ServeOptions};
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper_util::rt::{TokioExecutor, TokioIo};
use serde_json::{json, Value};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};
use tokio::net::TcpStream;
use tokio::sync::watch;

const RESOURCE: &str = "http://localhost/mcp";
const LIMIT: Duration = Duration::from_secs(20);

/// Accepts `ok…` for the resource it is given, with scope `r`; refuses anything else.
async fn verify(token: BearerToken, resource: Arc<str>) -> Result<VerifiedToken, TokenRefusal> {
    let later = SystemTime::now() + Duration::from_secs(600);
    match token.secret() {
        t if t.starts_with("ok") => Ok(VerifiedToken::new([resource.to_string()])
            .scopes(["r"])
            .expires_at(later)),
        _ => Err(TokenRefusal::invalid("unknown token")),
    }
}

fn builder(resource: &str) -> beam_mcp::transport::http::oauth::ResourceServerBuilder {
    ResourceServer::builder(resource, verify)
        .authorization_server("https://auth.example.com")
        .scopes_supported(["r", "w"])
}

fn service_with(rs: ResourceServer) -> HttpService {
    HttpService::new(
        rig::server(),
        |_| Ok(()),
        AllowedOrigins::list(["http://localhost"]),
    )
    .path("/mcp")
    .resource_server(rs)
}

fn call(tool: &str) -> Value {
    rpc(
        "tools/call",
        json!({"name": tool, "arguments": {"place": "Oslo"}}),
    )
}

fn request(
    addr: SocketAddr,
    h2: bool,
    body: &Value,
    extra: &[(&str, &str)],
) -> http::Request<Full<Bytes>> {
    let mut b = http::Request::builder().method("POST");
    b = if h2 {
        b.version(http::Version::HTTP_2)
            .uri(format!("http://localhost:{}/mcp", addr.port()))
    } else {
        b.uri("/mcp").header("host", "localhost")
    };
    for (k, v) in mcp_headers(body) {
        b = b.header(k, v);
    }
    if body["params"]["name"] == "get_weather" {
        b = b.header("mcp-param-place", "Oslo");
    }
    for (k, v) in extra {
        b = b.header(*k, *v);
    }
    b.header("content-type", "application/json")
        .body(Full::new(Bytes::from(serde_json::to_vec(body).unwrap())))
        .unwrap()
}

/// `get_weather` (or `tool`) POSTed with the well-behaved headers and `Authorization`.
async fn post_auth(c: &Client, tool: &str, authorization: &str) -> rig::Resp {
    let authorization = authorization.to_owned();
    let weather = tool == "get_weather";
    c.post_with(&call(tool), move |h| {
        h.push(("authorization".into(), authorization));
        if weather {
            h.push(("mcp-param-place".into(), "Oslo".into()));
        }
    })
    .await
}

/// A client connection kept for several requests.
enum Conn {
    H1(hyper::client::conn::http1::SendRequest<Full<Bytes>>),
    H2(hyper::client::conn::http2::SendRequest<Full<Bytes>>),
}

impl Conn {
    async fn open(addr: SocketAddr, h2: bool) -> Conn {
        let io = TokioIo::new(TcpStream::connect(addr).await.unwrap());
        if h2 {
            let (tx, conn) = hyper::client::conn::http2::handshake(TokioExecutor::new(), io)
                .await
                .unwrap();
            tokio::spawn(conn);
            Conn::H2(tx)
        } else {
            let (tx, conn) = hyper::client::conn::http1::handshake(io).await.unwrap();
            tokio::spawn(conn);
            Conn::H1(tx)
        }
    }

    async fn send(&mut self, req: http::Request<Full<Bytes>>) -> Result<(u16, Value), String> {
        let resp = match self {
            Conn::H1(tx) => {
                tx.ready().await.map_err(|e| e.to_string())?;
                tx.send_request(req).await
            }
            Conn::H2(tx) => {
                tx.ready().await.map_err(|e| e.to_string())?;
                tx.send_request(req).await
            }
        }
        .map_err(|e| format!("no response: {e}"))?;
        let status = resp.status().as_u16();
        let body = resp
            .into_body()
            .collect()
            .await
            .map_err(|e| e.to_string())?
            .to_bytes();
        Ok((status, serde_json::from_slice(&body).unwrap_or(Value::Null)))
    }
}

/// One request on a fresh connection; `Err` when no response came (the connection or the
/// stream was dropped).
async fn try_send(
    addr: SocketAddr,
    h2: bool,
    req: http::Request<Full<Bytes>>,
) -> Result<(u16, Value), String> {
    Conn::open(addr, h2).await.send(req).await
}

/// F1 (clear bug). Every other piece of host code on the request path — `authorize`,
/// `authorize_body`, `authorize_async`, the verifier, tools, readers — is caught when it
/// panics and answered 500. The scope policy (`scopes_needed`) is called bare from `route`:
/// its panic unwinds through the hyper service, the HTTP/1.1 connection task dies and the
/// client gets no response at all (h2: the stream is dropped).
#[tokio::test]
async fn a_panicking_scope_policy_is_answered_500_like_every_other_host_hook() {
    let rs = builder(RESOURCE)
        .scopes_needed(|access: &Access<'_>| match access.name() {
            Some("strict") => panic!("a bug in the host's scope policy"),
            _ => vec!["r".to_owned()],
        })
        .build()
        .unwrap();
    let addr = rig::spawn(service_with(rs)).await;
    let mut wrong = Vec::new();
    for h2 in [false, true] {
        let auth = [("authorization", "Bearer ok-1")];
        // One connection for both requests: the second shows whether it lives on.
        let mut conn = Conn::open(addr, h2).await;
        match conn.send(request(addr, h2, &call("strict"), &auth)).await {
            Ok((500, v)) if v["error"]["code"] == -32603 => {}
            Ok((status, v)) => wrong.push(format!("h2={h2}: {status} {v}")),
            Err(e) => wrong.push(format!("h2={h2}: no answer at all ({e})")),
        }
        match conn
            .send(request(addr, h2, &call("get_weather"), &auth))
            .await
        {
            Ok((200, _)) => {}
            Ok((status, v)) => wrong.push(format!("h2={h2}: next request {status} {v}")),
            Err(e) => wrong.push(format!("h2={h2}: next request on the connection: {e}")),
        }
        // The listener serves on.
        let (status, v) = try_send(addr, h2, request(addr, h2, &call("get_weather"), &auth))
            .await
            .unwrap();
        assert_eq!(status, 200, "h2={h2}: {v}");
    }
    assert!(wrong.is_empty(), "a panicking scope policy: {wrong:#?}");
}

/// F2 (clear bug). The builder accepts a resource URI that is not in the canonical form
/// (upper-case host, default port), publishes it verbatim, and then compares audiences with
/// it byte for byte. The Python SDK client (mcp 2.3.0) parses the metadata's `resource` with
/// pydantic's `AnyHttpUrl` and sends `str()` of it as the RFC 8707 `resource` parameter:
/// `http://LOCALHOST:80/mcp` becomes `http://localhost/mcp`, the authorization server issues
/// its token for that, and this server refuses every such token as "not issued for this
/// resource" — a login loop. (The TypeScript client sends the string verbatim and works.)
/// The MCP specification's canonical URI uses a lower-case scheme and host; RFC 3986 §6.2.2
/// normalisation makes both spellings the same resource. Either normalise the URI in `build`
/// (publish and compare the normal form) or refuse a non-canonical one.
#[tokio::test]
async fn a_resource_uri_in_a_non_canonical_form_is_normalised_or_refused() {
    for spelt in [
        "http://LOCALHOST/mcp",
        "http://localhost:80/mcp",
        "HTTP://localhost/mcp",
    ] {
        let Ok(rs) = builder(spelt).build() else {
            continue; // refused: acceptable
        };
        let addr = rig::spawn(
            HttpService::new(
                rig::server(),
                |_| Ok(()),
                AllowedOrigins::list(["http://localhost"]),
            )
            .path("/mcp")
            .resource_server(
                ResourceServer::builder(spelt, |_t: BearerToken, _r: Arc<str>| async {
                    // What the authorization server issues for the Python client's `resource`.
                    Ok(VerifiedToken::new([RESOURCE]))
                })
                .authorization_server("https://auth.example.com")
                .build()
                .unwrap(),
            ),
        )
        .await;
        let r = post_auth(
            &Client::new(rig::Proto::H1, addr),
            "get_weather",
            "Bearer ok-py",
        )
        .await;
        assert_eq!(
            r.status,
            200,
            "{spelt}: a token for the canonical form is refused: {:?}",
            r.headers.get("www-authenticate")
        );
        // And the canonical form is what the metadata publishes.
        assert_eq!(
            rs.resource(),
            RESOURCE,
            "{spelt} is published as it was spelt"
        );
    }
}

/// J1 (judgement; doc claim). docs/oauth.md and `HttpService::resource_server` say the token is
/// "never handed to host code other than the verifier" / "never reaches the host". The
/// `authorize_async` hook (and `authorize`, `authorize_body`) receives the request's `Parts`,
/// `Authorization: Bearer <token>` included, after the verifier accepted it. Either strip the
/// header from what the hooks see once the mode has read it, or say in the docs that the
/// hooks see it.
#[tokio::test]
async fn no_host_hook_sees_the_bearer_token() {
    let seen: Arc<Mutex<Vec<String>>> = Arc::default();
    let sink = seen.clone();
    let service = service_with(builder(RESOURCE).build().unwrap()).authorize_async(move |head| {
        if let Some(v) = head.headers.get("authorization") {
            sink.lock()
                .unwrap()
                .push(String::from_utf8_lossy(v.as_bytes()).into_owned());
        }
        async { Ok(beam_mcp::Extensions::new()) }
    });
    let addr = rig::spawn(service).await;
    let r = post_auth(
        &Client::new(rig::Proto::H1, addr),
        "get_weather",
        "Bearer ok-secret-Xy7",
    )
    .await;
    assert_eq!(r.status, 200);
    assert!(
        seen.lock().unwrap().is_empty(),
        "authorize_async saw {:?}",
        seen.lock().unwrap()
    );
}

/// J2 (judgement). A scope policy that names a scope which is not an RFC 6749 scope-token
/// (a host bug: "weather read", a quote) gets a 403 `insufficient_scope` whose `scope` names
/// only what the token already holds: the client steps up, asks for the same scopes, gets the
/// same token and the same 403 (the TypeScript client then gives up with "403 after trying
/// upscoping"). The scope it would need is silently dropped. A policy answer the crate cannot
/// render is the host's bug: 500 with the fault logged, as for a panicking hook, says so.
#[tokio::test]
async fn a_policy_naming_an_unrenderable_scope_is_a_host_fault_not_a_step_up() {
    let rs = builder(RESOURCE)
        .scopes_needed(|_: &Access<'_>| vec!["weather read".to_owned()])
        .build()
        .unwrap();
    let addr = rig::spawn(service_with(rs)).await;
    let r = post_auth(
        &Client::new(rig::Proto::H1, addr),
        "get_weather",
        "Bearer ok-1",
    )
    .await;
    let challenge = r
        .headers
        .get("www-authenticate")
        .map(|v| v.to_str().unwrap().to_owned());
    // The host's bug, answered as one: 500, nothing said, no challenge to step up with.
    assert_eq!(r.status, 500, "{challenge:?}");
    assert_eq!(challenge, None);
    assert_eq!(r.json()["error"]["code"], -32603);
}

/// J3 (judgement). The query-string check splits on `&` only. `;` was a parameter separator
/// in HTML 4 (B.2.2) and still is for some frameworks and proxies, so
/// `/mcp?x=1;access_token=…` puts the token in a URL just as `&` would, and is served 200.
#[tokio::test]
async fn a_token_in_the_query_after_a_semicolon_is_refused_too() {
    let addr = rig::spawn(service_with(builder(RESOURCE).build().unwrap())).await;
    let c = Client::new(rig::Proto::H1, addr);
    let body = call("get_weather");
    let mut b = c.builder("POST", "/mcp?x=1;access_token=ok-leaked", None);
    for (k, v) in mcp_headers(&body) {
        b = b.header(k, v);
    }
    let req = b
        .header("mcp-param-place", "Oslo")
        .header("content-type", "application/json")
        .header("authorization", "Bearer ok-leaked")
        .body(Full::new(Bytes::from(serde_json::to_vec(&body).unwrap())))
        .unwrap();
    let r = c.send(req).await;
    assert_eq!(r.status, 400);
}

/// J4 (judgement; docs). docs/http.md shows the service mounted in a host's axum router with
/// `nest_service("/mcp", …)`; docs/oauth.md says the metadata is served at
/// `/.well-known/oauth-protected-resource/mcp` and the root form. Mounted that way with the
/// mode on, the 401 sends clients to a URL the router answers 404: the TypeScript client stops
/// with "Resource server does not implement OAuth 2.0 Protected Resource Metadata". Routing
/// both well-known paths to the same service (`route_service`) works; nothing says to. Either
/// document it beside the mount example (and give the paths, e.g.
/// `ResourceServer::metadata_paths()`), or offer a ready router piece.
#[tokio::test]
async fn the_documented_axum_mount_still_publishes_the_metadata() {
    let rs = builder(RESOURCE).build().unwrap();
    let mcp = HttpService::new(
        rig::server(),
        |_| Ok(()),
        AllowedOrigins::list(["http://localhost"]),
    )
    .resource_server(rs.clone());
    // As docs/oauth.md says: the service nested under its prefix, and the two metadata paths
    // routed to it as they are.
    let [path_form, root_form] = rs.metadata_paths();
    let app = axum::Router::new()
        .nest_service("/mcp", mcp.clone())
        .route_service(path_form, mcp.clone())
        .route_service(root_form, mcp);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    let c = Client::new(rig::Proto::H1, addr);
    let r = post_auth(&c, "get_weather", "Basic eDp5").await;
    assert_eq!(r.status, 401);
    for path in [
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-protected-resource",
    ] {
        let r = c
            .send(
                c.builder("GET", path, None)
                    .body(Full::new(Bytes::new()))
                    .unwrap(),
            )
            .await;
        assert_eq!(
            r.status, 200,
            "{path}: the challenge names a document the mount hides"
        );
    }
}

/// Checked and sound: the runtime-managed service (`HttpService::managed`) keeps the mode.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_runtime_managed_service_keeps_the_resource_server() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let config = ApplicationConfig::new().workers(1).http(
        listener,
        service_with(builder(RESOURCE).build().unwrap()),
        ServeOptions::default(),
    );
    let rt = Application::start(rig::server(), config).await.unwrap();
    for proto in BOTH {
        let c = Client::new(proto, addr);
        let none = c
            .post_with(&call("get_weather"), |h| {
                h.push(("mcp-param-place".into(), "Oslo".into()));
            })
            .await;
        assert_eq!(none.status, 401, "{proto:?}");
        let ok = post_auth(&c, "get_weather", "Bearer ok-1").await;
        assert_eq!(ok.status, 200, "{proto:?}");
    }
    rt.stop(LIMIT).await.unwrap();
}

/// Checked and sound: a client that leaves (HTTP/1.1 connection closed, h2 stream reset)
/// while the verifier runs drops the verifier's future, as `TokenVerifier` documents.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_leaving_during_verification_drops_the_verifier() {
    let alive = Arc::new(watch::channel(0usize).0);
    let ran = Arc::new(AtomicUsize::new(0));
    struct Alive(Arc<watch::Sender<usize>>);
    impl Drop for Alive {
        fn drop(&mut self) {
            self.0.send_modify(|n| *n -= 1);
        }
    }
    let (a, done) = (alive.clone(), ran.clone());
    let rs = ResourceServer::builder(RESOURCE, move |_t: BearerToken, r: Arc<str>| {
        a.send_modify(|n| *n += 1);
        let guard = Alive(a.clone());
        let done = done.clone();
        async move {
            let _guard = guard;
            std::future::pending::<()>().await;
            done.fetch_add(1, Ordering::SeqCst);
            Ok(VerifiedToken::new([r.to_string()]))
        }
    })
    .authorization_server("https://auth.example.com")
    .build()
    .unwrap();
    let addr = rig::spawn(service_with(rs).read_timeout(Duration::from_secs(3600))).await;
    for h2 in [false, true] {
        let req = request(
            addr,
            h2,
            &call("get_weather"),
            &[("authorization", "Bearer hang")],
        );
        let pending = tokio::spawn(try_send(addr, h2, req));
        let mut seen = alive.subscribe();
        tokio::time::timeout(LIMIT, seen.wait_for(|n| *n == 1))
            .await
            .unwrap()
            .unwrap();
        pending.abort(); // drops the connection (h1) or the whole client connection (h2)
        tokio::time::timeout(LIMIT, seen.wait_for(|n| *n == 0))
            .await
            .unwrap_or_else(|_| panic!("h2={h2}: the verifier still runs after its client left"))
            .unwrap();
    }
    assert_eq!(ran.load(Ordering::SeqCst), 0);
}
