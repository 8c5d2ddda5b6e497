//! The hyper service: one POST endpoint, every check in the order the request arrives.

use super::body::{self, BodyError};
use super::headers::{self, Encoding, HeaderError};
use super::refusal::{self, Refusal, Refuse};
use crate::dispatch::Carrier;
use crate::protocol::{codes, decode, Incoming, RpcError};
use crate::server::{Server, Step};
use crate::transport::{Direct, RunPending};
use bytes::Bytes;
use http::header::{self, HeaderName};
use http::request::Parts;
use http::{HeaderValue, Method, Request, Response, StatusCode};
use http_body_util::Full;
use serde_json::{json, Value};
use std::convert::Infallible;
use std::fmt;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::Duration;
use tokio::time::Instant;

/// The largest body accepted: 1 MiB.
pub const MAX_BODY_BYTES: usize = 1024 * 1024;

/// The default deadline for reading a whole body.
pub const DEFAULT_READ_TIMEOUT: Duration = Duration::from_secs(15);

const PROTOCOL_VERSION: HeaderName = HeaderName::from_static("mcp-protocol-version");
const MCP_METHOD: HeaderName = HeaderName::from_static("mcp-method");
const MCP_NAME: HeaderName = HeaderName::from_static("mcp-name");
const META_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
const SERVED: &str = "2026-07-28";

type Authorize = dyn Fn(&Parts) -> Result<(), Refusal> + Send + Sync;
type AuthorizeBody = dyn Fn(&Parts, &Bytes) -> Result<(), Refusal> + Send + Sync;

/// Which `Origin` headers are accepted. A request without `Origin` is always accepted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AllowedOrigins {
    /// Every origin: for servers that sit behind their own origin policy. Never a default.
    Any,
    /// Exactly these origins (`scheme://host[:port]`, ASCII case-insensitive).
    List(Vec<String>),
}

impl AllowedOrigins {
    /// Exactly these origins.
    pub fn list<I, S>(origins: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        AllowedOrigins::List(origins.into_iter().map(Into::into).collect())
    }

    fn allows(&self, origin: &HeaderValue) -> bool {
        match self {
            AllowedOrigins::Any => true,
            AllowedOrigins::List(list) => headers::origin_listed(origin.as_bytes(), list),
        }
    }
}

#[derive(Clone)]
struct Config {
    server: Server,
    authorize: Arc<Authorize>,
    authorize_body: Option<Arc<AuthorizeBody>>,
    origins: AllowedOrigins,
    hosts: Vec<String>,
    path: Option<String>,
    read_timeout: Duration,
    /// Who runs host work: the request's own task, or the runtime's dispatch pool.
    exec: Arc<dyn RunPending>,
}

/// Stateless Streamable HTTP for a [`Server`]: a `hyper` service, cheap to clone.
///
/// ```
/// use beam_mcp::transport::http::{AllowedOrigins, HttpService};
/// use beam_mcp::{Catalog, Server, ServerConfig};
///
/// let server = Server::new(ServerConfig::new(Catalog::new())).unwrap();
/// // This example trusts every caller that reaches the socket; a real host checks a token.
/// let service = HttpService::new(server, |_| Ok(()), AllowedOrigins::list(["http://localhost"]))
///     .path("/mcp");
/// # let _ = service;
/// ```
#[derive(Clone)]
pub struct HttpService {
    config: Arc<Config>,
}

impl fmt::Debug for HttpService {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpService")
            .field("server", &self.config.server)
            .field("origins", &self.config.origins)
            .field("hosts", &self.config.hosts)
            .field("path", &self.config.path)
            .field("read_timeout", &self.config.read_timeout)
            .finish_non_exhaustive()
    }
}

impl HttpService {
    /// A service for `server`. `authorize` sees each request's head before its body is read;
    /// a refusal is answered 403 with nothing said (the reason is logged). `origins` is the
    /// `Origin` policy; [`AllowedOrigins::Any`] must be chosen explicitly.
    pub fn new<A>(server: Server, authorize: A, origins: AllowedOrigins) -> Self
    where
        A: Fn(&Parts) -> Result<(), Refusal> + Send + Sync + 'static,
    {
        HttpService {
            config: Arc::new(Config {
                server,
                authorize: Arc::new(authorize),
                authorize_body: None,
                origins,
                hosts: ["localhost", "127.0.0.1", "[::1]"]
                    .map(String::from)
                    .to_vec(),
                path: None,
                read_timeout: DEFAULT_READ_TIMEOUT,
                exec: Arc::new(Direct),
            }),
        }
    }

    /// The same service over `server`, its host work run by `exec` (the runtime's pool).
    pub(crate) fn managed(self, server: Server, exec: Arc<dyn RunPending>) -> Self {
        self.with(|c| {
            c.server = server;
            c.exec = exec;
        })
    }

    fn with(mut self, f: impl FnOnce(&mut Config)) -> Self {
        f(Arc::make_mut(&mut self.config));
        self
    }

    /// The host names the `Host` header (or `:authority`) may carry, any port: DNS-rebinding
    /// protection. Default: `localhost`, `127.0.0.1`, `[::1]`.
    #[must_use]
    pub fn allowed_hosts<I, S>(self, hosts: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let hosts = hosts.into_iter().map(Into::into).collect();
        self.with(|c| c.hosts = hosts)
    }

    /// A second hook, run on the body exactly as received, before it is decoded. A refusal
    /// is answered 403 with nothing said; a panic, 500 with nothing said.
    #[must_use]
    pub fn authorize_body<F>(self, hook: F) -> Self
    where
        F: Fn(&Parts, &Bytes) -> Result<(), Refusal> + Send + Sync + 'static,
    {
        self.with(|c| c.authorize_body = Some(Arc::new(hook)))
    }

    /// Serves only this path; every other path is answered 404.
    #[must_use]
    pub fn path(self, path: impl Into<String>) -> Self {
        let path = path.into();
        self.with(|c| c.path = Some(path))
    }

    /// The deadline for reading a whole body, from the moment the head is in (default 15 s).
    #[must_use]
    pub fn read_timeout(self, timeout: Duration) -> Self {
        self.with(|c| c.read_timeout = timeout)
    }

    /// Answers one request. Never fails: every refusal is a response.
    pub async fn respond<B>(&self, req: Request<B>) -> Response<Full<Bytes>>
    where
        B: http_body::Body,
        B::Data: bytes::Buf,
    {
        let version = req.version();
        match self.answer(req).await {
            Ok(r) => r,
            Err(refuse) => refuse.into_response(version),
        }
    }

    async fn answer<B>(&self, req: Request<B>) -> Result<Response<Full<Bytes>>, Refuse>
    where
        B: http_body::Body,
        B::Data: bytes::Buf,
    {
        let c = &*self.config;
        let deadline = Instant::now() + c.read_timeout;
        let (parts, body) = req.into_parts();
        self.check_head(&parts).map_err(Refuse::unread)?;
        let declared = parts
            .headers
            .get(header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok()?.trim().parse::<usize>().ok());
        let bytes = body::read(body, MAX_BODY_BYTES, declared, deadline)
            .await
            .map_err(|e| {
                match e {
                    BodyError::TooLarge => Refuse::new(
                        StatusCode::PAYLOAD_TOO_LARGE,
                        RpcError::invalid_request("body exceeds the limit")
                            .with_data(json!({ "limit": MAX_BODY_BYTES })),
                    ),
                    BodyError::TimedOut => {
                        Refuse::opaque(StatusCode::REQUEST_TIMEOUT, "Request timeout")
                    }
                    BodyError::Failed => Refuse::opaque(StatusCode::BAD_REQUEST, "Body failed"),
                }
                .unread()
            })?;
        if let Some(hook) = &c.authorize_body {
            match std::panic::catch_unwind(AssertUnwindSafe(|| hook(&parts, &bytes))) {
                Ok(Ok(())) => {}
                Ok(Err(refusal)) => return Err(refused("authorize_body", &refusal)),
                Err(_) => return Err(panicked("authorize_body")),
            }
        }
        let message = decode(&bytes)
            .map_err(|e| Refuse::new(refusal::status_of(Some(e.error.code())), e.error).id(e.id))?;
        self.route(&parts, message).await
    }

    /// Everything decided from the head alone, before a byte of the body is read.
    fn check_head(&self, parts: &Parts) -> Result<(), Refuse> {
        let c = &*self.config;
        if c.path.as_deref().is_some_and(|p| p != parts.uri.path()) {
            return Err(Refuse::opaque(StatusCode::NOT_FOUND, "Not found"));
        }
        let forbidden =
            |why: &'static str| Refuse::new(StatusCode::FORBIDDEN, RpcError::invalid_request(why));
        let host = parts.headers.get_all(header::HOST);
        let mut any_host = false;
        for h in host {
            any_host = true;
            let ok = h.to_str().is_ok_and(|h| headers::host_allowed(h, &c.hosts));
            if !ok {
                return Err(forbidden("host not allowed"));
            }
        }
        if let Some(a) = parts.uri.authority() {
            any_host = true;
            if !headers::host_allowed(a.as_str(), &c.hosts) {
                return Err(forbidden("host not allowed"));
            }
        }
        if !any_host {
            return Err(forbidden("host not allowed"));
        }
        for origin in parts.headers.get_all(header::ORIGIN) {
            if !c.origins.allows(origin) {
                return Err(forbidden("origin not allowed"));
            }
        }
        if parts.method != Method::POST {
            let mut r = Refuse::new(
                StatusCode::METHOD_NOT_ALLOWED,
                RpcError::invalid_request("only POST is served"),
            );
            r.allow_post = true;
            return Err(r);
        }
        match std::panic::catch_unwind(AssertUnwindSafe(|| (c.authorize)(parts))) {
            Ok(Ok(())) => {}
            Ok(Err(refusal)) => return Err(refused("authorize", &refusal)),
            Err(_) => return Err(panicked("authorize")),
        }
        if parts.headers.contains_key(header::TRANSFER_ENCODING) {
            return Err(Refuse::new(
                StatusCode::LENGTH_REQUIRED,
                RpcError::invalid_request("a Content-Length is required"),
            ));
        }
        for len in parts.headers.get_all(header::CONTENT_LENGTH) {
            let n = len.to_str().ok().and_then(|s| s.trim().parse::<u64>().ok());
            match n {
                Some(n) if n <= MAX_BODY_BYTES as u64 => {}
                _ => {
                    return Err(Refuse::new(
                        StatusCode::PAYLOAD_TOO_LARGE,
                        RpcError::invalid_request("body exceeds the limit")
                            .with_data(json!({ "limit": MAX_BODY_BYTES })),
                    ))
                }
            }
        }
        Ok(())
    }

    /// `MCP-Protocol-Version` against the served revision, then against the body's `_meta`.
    /// Checked once the body is decoded, so that the refusal echoes the request's id.
    fn check_version(parts: &Parts, m: &Incoming) -> Result<(), Refuse> {
        match headers::single(&parts.headers, &PROTOCOL_VERSION, Encoding::Plain) {
            Ok(Some(v)) if v == SERVED => {}
            Ok(Some(v)) => return Err(Refuse::new(StatusCode::BAD_REQUEST, unsupported(&v))),
            Ok(None) => {
                return Err(mismatch(&HeaderError::Missing(
                    PROTOCOL_VERSION.to_string(),
                )))
            }
            Err(e) => return Err(mismatch(&e)),
        }
        let meta_version = m.meta().and_then(|meta| meta.get(META_VERSION));
        match meta_version {
            Some(v) if v.as_str() != Some(SERVED) => Err(mismatch(&HeaderError::Mismatch(
                PROTOCOL_VERSION.to_string(),
            ))),
            _ => Ok(()),
        }
    }

    /// The decoded message against its headers, then the core.
    async fn route(&self, parts: &Parts, m: Incoming) -> Result<Response<Full<Bytes>>, Refuse> {
        let server = &self.config.server;
        let id = m.id.clone();
        let with_id = |r: Refuse| r.id(id.clone());
        // Lifecycle methods of a connection: stateless HTTP has none to open, ping or end.
        if matches!(
            m.method.as_str(),
            "initialize" | "notifications/initialized" | "ping" | "shutdown" | "exit"
        ) {
            return Err(with_id(Refuse::new(
                StatusCode::NOT_FOUND,
                RpcError::method_not_found(&m.method),
            )));
        }
        Self::check_version(parts, &m).map_err(with_id)?;
        headers::require_eq(
            &parts.headers,
            &MCP_METHOD,
            Encoding::Plain,
            Some(&m.method),
        )
        .map_err(|e| with_id(mismatch(&e)))?;
        if m.is_notification() {
            let _ = server.handle_message(m, Carrier::Http);
            return Ok(empty(StatusCode::ACCEPTED));
        }
        // Every request carries its `_meta` over HTTP, `server/discover` included: the
        // transport is stateless, so there is no era to probe.
        server
            .revision_for(&m, Carrier::Http)
            .map_err(|e| with_id(Refuse::new(refusal::status_of(Some(e.code())).max_400(), e)))?;
        self.check_names(parts, &m)
            .map_err(|e| with_id(mismatch(&e)))?;
        let reply = match server.handle_message(m, Carrier::Http) {
            Step::Reply(r) | Step::Close(Some(r)) => r,
            Step::Pending(p) => self.config.exec.run(p).await,
            Step::Silent | Step::Close(None) => return Ok(empty(StatusCode::ACCEPTED)),
        };
        Ok(refusal::json(
            refusal::status_of(reply.error_code()),
            reply.into_bytes(),
        ))
    }

    /// `Mcp-Name` and the `Mcp-Param-*` headers of a tool call.
    fn check_names(&self, parts: &Parts, m: &Incoming) -> Result<(), HeaderError> {
        let field = match m.method.as_str() {
            "tools/call" | "prompts/get" => "name",
            "resources/read" => "uri",
            _ => return Ok(()),
        };
        let params = m.params.as_ref();
        let named = params.and_then(|p| p.get(field)).and_then(Value::as_str);
        headers::require_eq(&parts.headers, &MCP_NAME, Encoding::MayEncode, named)?;
        if m.method != "tools/call" {
            return Ok(());
        }
        let Some(annotated) = named.and_then(|n| self.config.server.tool_headers(n)) else {
            return Ok(());
        };
        let args = params
            .and_then(|p| p.get("arguments"))
            .and_then(Value::as_object);
        for (header, property) in annotated {
            let arg = args.and_then(|a| a.get(&**property));
            headers::check_param(&parts.headers, header, arg)?;
        }
        Ok(())
    }
}

trait AtLeast400 {
    fn max_400(self) -> Self;
}

impl AtLeast400 for StatusCode {
    /// An envelope fault is never a 200: what the core would answer about content is refused here.
    fn max_400(self) -> Self {
        if self.is_success() {
            StatusCode::BAD_REQUEST
        } else {
            self
        }
    }
}

/// A hook's refusal: the reason is logged, the caller learns nothing.
fn refused(hook: &'static str, refusal: &Refusal) -> Refuse {
    tracing::info!(hook, reason = refusal.reason(), "request refused");
    Refuse::opaque(StatusCode::FORBIDDEN, "Forbidden")
}

fn panicked(hook: &'static str) -> Refuse {
    tracing::error!(hook, "authorization hook panicked");
    Refuse::new(StatusCode::INTERNAL_SERVER_ERROR, RpcError::internal())
}

fn unsupported(requested: &str) -> RpcError {
    RpcError::new(
        codes::UNSUPPORTED_PROTOCOL_VERSION,
        "Unsupported protocol version",
    )
    .with_data(json!({ "supported": [SERVED], "requested": requested }))
}

fn mismatch(e: &HeaderError) -> Refuse {
    Refuse::new(
        StatusCode::BAD_REQUEST,
        RpcError::new(codes::HEADER_MISMATCH, "Header mismatch")
            .with_data(json!({ "header": e.header(), "reason": e.to_string() })),
    )
}

fn empty(status: StatusCode) -> Response<Full<Bytes>> {
    let mut r = Response::new(Full::new(Bytes::new()));
    *r.status_mut() = status;
    r
}

impl<B> hyper::service::Service<Request<B>> for HttpService
where
    B: http_body::Body + Send + 'static,
    B::Data: bytes::Buf + Send,
{
    type Response = Response<Full<Bytes>>;
    type Error = Infallible;
    type Future = crate::BoxFuture<Result<Self::Response, Infallible>>;

    fn call(&self, req: Request<B>) -> Self::Future {
        let this = self.clone();
        Box::pin(async move { Ok(this.respond(req).await) })
    }
}

/// The same service for a tower stack (axum's `any_service`, say), always ready.
impl<B> tower_service::Service<Request<B>> for HttpService
where
    B: http_body::Body + Send + 'static,
    B::Data: bytes::Buf + Send,
{
    type Response = Response<Full<Bytes>>;
    type Error = Infallible;
    type Future = crate::BoxFuture<Result<Self::Response, Infallible>>;

    fn poll_ready(
        &mut self,
        _: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<(), Infallible>> {
        std::task::Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: Request<B>) -> Self::Future {
        hyper::service::Service::call(self, req)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Catalog, ServerConfig};

    #[tokio::test]
    async fn usable_as_a_tower_service() {
        let server = Server::new(ServerConfig::new(Catalog::new())).unwrap();
        let mut svc = HttpService::new(server, |_| Ok(()), AllowedOrigins::Any).path("/mcp");
        let req = Request::get("/elsewhere")
            .header("host", "localhost")
            .body(Full::new(Bytes::new()))
            .unwrap();
        let r = tower_service::Service::call(&mut svc, req).await.unwrap();
        assert_eq!(r.status(), StatusCode::NOT_FOUND);
        let req = Request::get("/mcp")
            .header("host", "localhost")
            .body(Full::new(Bytes::new()))
            .unwrap();
        let r = tower_service::Service::call(&mut svc, req).await.unwrap();
        assert_eq!(r.status(), StatusCode::METHOD_NOT_ALLOWED);
    }
}
