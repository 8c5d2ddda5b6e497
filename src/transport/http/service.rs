//! The hyper service: one POST endpoint, every check in the order the request arrives.

use super::body::{self, BodyError};
use super::headers::{self, Encoding, Head, HeaderError, Presence, Read};
use super::refusal::{self, Refusal, Refuse};
use crate::dispatch::Carrier;
use crate::extensions::Extensions;
use crate::protocol::{codes, decode, Incoming, Meta, Revision, RpcError};
use crate::server::{guarded, Era, Server, Step, MODERN_ONLY};
use crate::transport::{Direct, RunPending};
use bytes::Bytes;
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

const MODERN: &str = Revision::V2026_07_28.as_str();
const LEGACY: &str = Revision::V2025_11_25.as_str();

type Authorize = dyn Fn(&Parts) -> Result<(), Refusal> + Send + Sync;
type AuthorizeBody = dyn Fn(&Parts, &Bytes) -> Result<(), Refusal> + Send + Sync;
type AuthorizeAsync = dyn Fn(&Parts) -> crate::BoxFuture<Result<Extensions, Refusal>> + Send + Sync;

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

impl Config {
    fn served(&self) -> &'static [Revision] {
        if self.legacy {
            &Revision::ALL
        } else {
            MODERN_ONLY
        }
    }
}

#[derive(Clone)]
struct Config {
    server: Server,
    authorize: Arc<Authorize>,
    authorize_body: Option<Arc<AuthorizeBody>>,
    authorize_async: Option<Arc<AuthorizeAsync>>,
    origins: AllowedOrigins,
    hosts: Vec<String>,
    path: Option<String>,
    read_timeout: Duration,
    /// Whether 2025-11-25 is served beside 2026-07-28.
    legacy: bool,
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
            .field("served", &self.config.served())
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
                authorize_async: None,
                origins,
                hosts: ["localhost", "127.0.0.1", "[::1]"]
                    .map(String::from)
                    .to_vec(),
                path: None,
                read_timeout: DEFAULT_READ_TIMEOUT,
                legacy: true,
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

    /// An asynchronous hook, run on each request's head after `authorize` and before the body
    /// is read: it may check a token against a service of its own, and attach what it learnt
    /// (the principal) as [`Extensions`], which reach the tool as
    /// [`crate::CallContext::extensions`] (and the reader, the renderer and the completer
    /// through theirs).
    ///
    /// A refusal is answered 403 with nothing said (the reason is logged, never sent); a panic,
    /// 500 with nothing said; a hook still running when the request's read deadline
    /// ([`HttpService::read_timeout`]) passes, 503 with nothing said.
    ///
    /// ```
    /// use beam_mcp::transport::http::{AllowedOrigins, HttpService, Refusal};
    /// use beam_mcp::{Catalog, Extensions, Server, ServerConfig};
    ///
    /// struct Principal(String);
    ///
    /// let server = Server::new(ServerConfig::new(Catalog::new())).unwrap();
    /// let service = HttpService::new(server, |_| Ok(()), AllowedOrigins::list(["http://localhost"]))
    ///     .authorize_async(|head| {
    ///         let token = head.headers.get("authorization").cloned();
    ///         async move {
    ///             // A real host asks its identity provider here.
    ///             match token.as_ref().and_then(|t| t.to_str().ok()) {
    ///                 Some("Bearer alice-token") => {
    ///                     Ok(Extensions::new().with(Principal("alice".into())))
    ///                 }
    ///                 _ => Err(Refusal::new("no valid bearer token")),
    ///             }
    ///         }
    ///     });
    /// # let _ = service;
    /// ```
    #[must_use]
    pub fn authorize_async<F, Fut>(self, hook: F) -> Self
    where
        F: Fn(&Parts) -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<Output = Result<Extensions, Refusal>> + Send + 'static,
    {
        let hook: Arc<AuthorizeAsync> = Arc::new(move |parts: &Parts| {
            let fut: crate::BoxFuture<Result<Extensions, Refusal>> = Box::pin(hook(parts));
            fut
        });
        self.with(|c| c.authorize_async = Some(hook))
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

    /// Answers 2026-07-28 only, as the seed did: `initialize` and `ping` are unknown methods
    /// (404 -32601), every request must carry `MCP-Protocol-Version: 2026-07-28` and the
    /// modern `_meta`, and `server/discover` lists 2026-07-28 alone. By default the endpoint
    /// also serves 2025-11-25, statelessly, so that clients that open with `initialize` connect.
    #[must_use]
    pub fn only_2026_07_28(self) -> Self {
        self.with(|c| c.legacy = false)
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
            Err(refuse) => {
                crate::metrics::refusal(
                    refuse.error.code(),
                    Some(refuse.status.as_u16()),
                    Carrier::Http,
                );
                refuse.into_response(version)
            }
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
        let head = Head::scan(&parts.headers);
        self.check_head(&parts, &head).map_err(Refuse::unread)?;
        let extensions = match &c.authorize_async {
            Some(hook) => self
                .run_authorize_async(hook, &parts, deadline)
                .await
                .map_err(Refuse::unread)?,
            None => Extensions::new(),
        };
        let declared = head
            .values(Read::ContentLength)
            .next()
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
        self.route(&head, message, extensions).await
    }

    /// The asynchronous hook, caught if it panics and bounded by the read deadline.
    async fn run_authorize_async(
        &self,
        hook: &Arc<AuthorizeAsync>,
        parts: &Parts,
        deadline: Instant,
    ) -> Result<Extensions, Refuse> {
        let run = guarded(|| hook(parts));
        match tokio::time::timeout_at(deadline, run).await {
            Ok(Ok(Ok(extensions))) => Ok(extensions),
            Ok(Ok(Err(refusal))) => Err(refused("authorize_async", &refusal)),
            Ok(Err(())) => Err(panicked("authorize_async")),
            Err(_) => {
                tracing::warn!("authorize_async did not answer before the read deadline");
                Err(Refuse::new(
                    StatusCode::SERVICE_UNAVAILABLE,
                    RpcError::internal(),
                ))
            }
        }
    }

    /// Everything decided from the head alone, before a byte of the body is read.
    fn check_head(&self, parts: &Parts, head: &Head<'_>) -> Result<(), Refuse> {
        let c = &*self.config;
        if c.path.as_deref().is_some_and(|p| p != parts.uri.path()) {
            return Err(Refuse::opaque(StatusCode::NOT_FOUND, "Not found"));
        }
        let forbidden =
            |why: &'static str| Refuse::new(StatusCode::FORBIDDEN, RpcError::invalid_request(why));
        let mut any_host = false;
        for h in head.values(Read::Host) {
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
        for origin in head.values(Read::Origin) {
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
        if let Some(refuse) = media_refusal(head) {
            return Err(refuse);
        }
        if head.has(Read::TransferEncoding) {
            return Err(Refuse::new(
                StatusCode::LENGTH_REQUIRED,
                RpcError::invalid_request("a Content-Length is required"),
            ));
        }
        for len in head.values(Read::ContentLength) {
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

    /// The era of a request: `MCP-Protocol-Version` first, then the body's `_meta`.
    /// Checked once the body is decoded, so that the refusal echoes the request's id.
    ///
    /// The header names 2026-07-28: the request is modern and must carry the modern `_meta`.
    /// It names 2025-11-25, or is absent while the body speaks no modern `_meta`: the request
    /// is served at 2025-11-25, as stdio serves it. Any other value (2025-06-18 and older
    /// included: this endpoint never negotiates them, its `initialize` answers 2025-11-25) is
    /// 400 -32022 naming what is served, as the 2025-11-25 transport prescribes.
    fn era_of(&self, head: &Head<'_>, m: &Incoming<'_>) -> Result<Era, Refuse> {
        let served = self.config.served();
        let header = head
            .single(Read::ProtocolVersion, Encoding::Plain)
            .map_err(|e| mismatch(&e))?;
        let meta = m.meta();
        let meta_version = meta.and_then(|meta| meta.protocol_version.as_ref());
        let disagrees = |v: &str| meta_version.is_some_and(|m| m.as_str() != Some(v));
        let modern = match header.as_deref() {
            Some(MODERN) => true,
            Some(LEGACY) if self.config.legacy => false,
            Some(v) => return Err(Refuse::new(StatusCode::BAD_REQUEST, unsupported(v, served))),
            None => {
                let speaks_modern = meta.is_some_and(Meta::speaks_modern);
                if speaks_modern || !self.config.legacy {
                    return Err(mismatch(&HeaderError::Missing(
                        Read::ProtocolVersion.name().to_string(),
                    )));
                }
                false
            }
        };
        if let Some(v) = header.as_deref() {
            if disagrees(v) {
                return Err(mismatch(&HeaderError::Mismatch(
                    Read::ProtocolVersion.name().to_string(),
                )));
            }
        }
        Ok(Era {
            carrier: Carrier::Http,
            served,
            bare_is_legacy: !modern,
        })
    }

    /// The decoded message against its headers, then the core.
    async fn route(
        &self,
        head: &Head<'_>,
        m: Incoming<'_>,
        extensions: Extensions,
    ) -> Result<Response<Full<Bytes>>, Refuse> {
        let server = &self.config.server;
        let id = m.id.clone();
        let with_id = |r: Refuse| r.id(id.clone());
        let not_found = || {
            with_id(Refuse::new(
                StatusCode::NOT_FOUND,
                RpcError::method_not_found(&m.method),
            ))
        };
        // A stateless endpoint has no connection to end; a request is answered, a
        // notification accepted.
        if matches!(&*m.method, "shutdown" | "exit") && !m.is_notification() {
            return Err(not_found());
        }
        // Where 2026-07-28 is asked for (or alone served), the legacy lifecycle methods are
        // unknown, whatever else the envelope says: the 2026-07-28 scenarios check exactly this.
        let lifecycle = matches!(&*m.method, "initialize" | "ping");
        if lifecycle && (!self.config.legacy || says_modern(head)) {
            return Err(not_found());
        }
        let era = self.era_of(head, &m).map_err(with_id)?;
        let presence = if era.bare_is_legacy {
            Presence::IfPresent
        } else {
            Presence::Required
        };
        head.require_eq(Read::McpMethod, Encoding::Plain, Some(&m.method), presence)
            .map_err(|e| with_id(mismatch(&e)))?;
        self.check_names(head, &m, presence)
            .map_err(|e| with_id(mismatch(&e)))?;
        if m.is_notification() {
            // Every MCP notification is `notifications/…`. Anything else without an id is a
            // request that lost it: nothing would run and nothing would say so, so it is
            // refused (the transport lets a server refuse a notification with a 4xx).
            if !m.method.starts_with("notifications/") {
                return Err(Refuse::new(
                    StatusCode::BAD_REQUEST,
                    RpcError::new(codes::INVALID_REQUEST, "Invalid request").with_data(json!({
                        "method": m.method,
                        "reason": "a request needs an id; only notifications/* may omit it",
                    })),
                ));
            }
            let _ = server.handle_in(m, era, extensions);
            return Ok(empty(StatusCode::ACCEPTED));
        }
        // The envelope is checked before routing: a malformed one is a 400, not a 200 about
        // content.
        server
            .revision_for(&m, era)
            .map_err(|e| with_id(Refuse::new(refusal::status_of(Some(e.code())).max_400(), e)))?;
        let reply = match server.handle_in(m, era, extensions) {
            Step::Reply(r) | Step::Close(Some(r)) => r,
            Step::Pending(p) => self.config.exec.run(p).await,
            Step::Silent | Step::Close(None) => return Ok(empty(StatusCode::ACCEPTED)),
        };
        let status = refusal::status_of(reply.error_code());
        if let Some(code) = reply.error_code() {
            crate::metrics::refusal(code, Some(status.as_u16()), Carrier::Http);
        }
        Ok(refusal::json(status, reply.into_bytes()))
    }

    /// `Mcp-Name` and the `Mcp-Param-*` headers of a tool call: required at 2026-07-28; at
    /// 2025-11-25, which defines none of them, checked against the body when present. At both,
    /// an `Mcp-Name` on a method that names nothing, and an `Mcp-Param-*` that names no
    /// `x-mcp-header` argument of the called tool (or sits on a request that calls no tool),
    /// are refused: a proxy would route on what the server never reads.
    fn check_names(
        &self,
        head: &Head<'_>,
        m: &Incoming<'_>,
        presence: Presence,
    ) -> Result<(), HeaderError> {
        let field = match &*m.method {
            "tools/call" | "prompts/get" => "name",
            "resources/read" => "uri",
            // A method that names nothing: an `Mcp-Name` would route it as if it did.
            _ if head.has(Read::McpName) => {
                return Err(HeaderError::Unexpected(Read::McpName.name().to_string()))
            }
            _ => return params_named_in(head, &[]),
        };
        let params = m.params.as_ref();
        let named = params.and_then(|p| p.text(field));
        head.require_eq(Read::McpName, Encoding::MayEncode, named, presence)?;
        if m.method != "tools/call" {
            return params_named_in(head, &[]);
        }
        let server = &self.config.server;
        let Some((name, annotated)) = named.and_then(|n| Some((n, server.tool_headers(n)?))) else {
            // No such tool: it has no annotated argument for a header to name.
            return params_named_in(head, &[]);
        };
        let args = params
            .and_then(|p| p.arguments.as_ref())
            .and_then(Value::as_object);
        for (header, property) in annotated {
            let arg = args.and_then(|a| a.get(&**property));
            headers::check_param(head.map(), header, arg, presence)?;
        }
        match params_named_in(head, annotated) {
            // A tool whose own annotations are faulty is refused as an internal error when it
            // is called (500, the diagnosis logged): the caller's headers are not at fault.
            Err(_) if server.tool_has_header_fault(name) => Ok(()),
            checked => checked,
        }
    }
}

/// Every `Mcp-Param-*` header must name one of `annotated` (the called tool's `x-mcp-header`
/// names, compared case-insensitively as header names are).
fn params_named_in(head: &Head<'_>, annotated: &[(String, Arc<str>)]) -> Result<(), HeaderError> {
    for name in head.params() {
        let suffix = &name.as_str()[headers::PARAM_PREFIX.len()..];
        if !annotated
            .iter()
            .any(|(h, _)| h.eq_ignore_ascii_case(suffix))
        {
            return Err(HeaderError::Unannotated(name.to_string()));
        }
    }
    Ok(())
}

/// Whether the request's `MCP-Protocol-Version` names 2026-07-28 (in any of its values).
fn says_modern(head: &Head<'_>) -> bool {
    head.values(Read::ProtocolVersion)
        .any(|v| v.as_bytes() == MODERN.as_bytes())
}

/// `Content-Type`, when given, must be JSON (415); `Accept`, when given, must admit JSON, the
/// only thing this endpoint answers with (406). Absent headers are taken as JSON.
fn media_refusal(head: &Head<'_>) -> Option<Refuse> {
    // The media type's essence (before any parameter), compared byte-wise without
    // allocating: a value that is not visible ASCII (`to_str` fails) admits nothing.
    let essence_is = |v: &[u8], wanted: &[&str]| {
        let end = v.iter().position(|&b| b == b';').unwrap_or(v.len());
        let essence = v[..end].trim_ascii();
        wanted
            .iter()
            .any(|w| essence.eq_ignore_ascii_case(w.as_bytes()))
    };
    for v in head.values(Read::ContentType) {
        let json = v.to_str().is_ok() && essence_is(v.as_bytes(), &["application/json"]);
        if !json {
            return Some(Refuse::new(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                RpcError::invalid_request("Content-Type must be application/json"),
            ));
        }
    }
    let mut accepts = head.values(Read::Accept).peekable();
    if accepts.peek().is_some() {
        let admits_json = accepts.any(|v| {
            v.to_str().is_ok()
                && v.as_bytes()
                    .split(|&b| b == b',')
                    .any(|range| essence_is(range, &["application/json", "application/*", "*/*"]))
        });
        if !admits_json {
            return Some(Refuse::new(
                StatusCode::NOT_ACCEPTABLE,
                RpcError::invalid_request("Accept must admit application/json"),
            ));
        }
    }
    None
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

fn unsupported(requested: &str, served: &[Revision]) -> RpcError {
    let served: Vec<&str> = served.iter().map(|r| r.as_str()).collect();
    RpcError::new(
        codes::UNSUPPORTED_PROTOCOL_VERSION,
        "Unsupported protocol version",
    )
    .with_data(json!({ "supported": served, "requested": requested }))
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
