//! The hyper service: one POST endpoint, every check in the order the request arrives.
//!
//! [`HttpService::respond`] is the order: the HTTP gatekeeping decided from the head
//! (`service/gatekeeping.rs`), the body read within its bounds, the `authorize_body` hook,
//! the decoder, then the MCP headers against the body and the revision they pick
//! (`service/mcp_headers.rs`), then the core. What a service is built with is
//! `service/builder.rs`.

mod bearer;
mod config;
mod cors;
mod gatekeeping;
mod health;
mod mcp_headers;
mod trace;

pub use config::{
    AllowedOrigins, Cors, DEFAULT_PREFLIGHT_MAX_AGE, DEFAULT_READ_TIMEOUT, MAX_BODY_BYTES,
};

use super::body;
use super::headers::{Encoding, Head, Presence, Read};
use super::rejection::{self, Rejection};
use crate::dispatch::Carrier;
use crate::dispatch::Extensions;
use crate::otel::RequestSpan;
use crate::protocol::{codes, decode, Incoming, RpcError};
use crate::server::{Server, Step};
use crate::transport::http::oauth::ResourceServer;
use crate::transport::http::rejection::Forbidden;
use crate::transport::{Direct, RunPending};
use bytes::Bytes;
use config::{AuthorizeAsync, Config};
use gatekeeping::body_refusal;
use http::request::Parts;
use http::{Request, Response, StatusCode};
use http_body_util::Full;
use mcp_headers::{mismatch, says_modern};
use serde_json::json;
use std::convert::Infallible;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;
use tokio::time::Instant;

/// Stateless Streamable HTTP for a [`Server`](crate::Server): a `hyper` service, cheap to clone.
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
            .field("cors", &self.config.cors)
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
        A: Fn(&Parts) -> Result<(), Forbidden> + Send + Sync + 'static,
    {
        HttpService {
            config: Arc::new(Config {
                server,
                authorize: Arc::new(authorize),
                authorize_body: None,
                authorize_async: None,
                resource_server: None,
                health: None,
                probe: Arc::new(crate::health::Answering),
                origins,
                cors: None,
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

    /// The same service over `server`, its host work run by `exec` (the runtime's pool), its
    /// health said by `probe` (the runtime's).
    pub(crate) fn managed(
        self,
        server: Server,
        exec: Arc<dyn RunPending>,
        probe: Arc<dyn crate::health::Probe>,
    ) -> Self {
        self.with(|c| {
            c.server = server;
            c.exec = exec;
            c.probe = probe;
        })
    }

    /// The same service with its configuration changed by `f` (copied if shared).
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
        F: Fn(&Parts, &Bytes) -> Result<(), Forbidden> + Send + Sync + 'static,
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
    /// use beam_mcp::transport::http::{AllowedOrigins, HttpService, Forbidden};
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
    ///                 _ => Err(Forbidden::new("no valid bearer token")),
    ///             }
    ///         }
    ///     });
    /// # let _ = service;
    /// ```
    #[must_use]
    pub fn authorize_async<F, Fut>(self, hook: F) -> Self
    where
        F: Fn(&Parts) -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<Output = Result<Extensions, Forbidden>> + Send + 'static,
    {
        let hook: Arc<AuthorizeAsync> = Arc::new(move |parts: &Parts| {
            let fut: crate::BoxFuture<Result<Extensions, Forbidden>> = Box::pin(hook(parts));
            fut
        });
        self.with(|c| c.authorize_async = Some(hook))
    }

    /// Makes the endpoint an OAuth 2.1 resource server ([`crate::transport::http::oauth`]):
    /// the metadata document is served at its well-known locations (`GET`, no hook runs;
    /// `Host` and `Origin` are checked as everywhere), and every other request must carry a
    /// bearer token `resource_server`'s verifier accepts, issued for its resource and not
    /// expired, checked after `authorize` and before `authorize_async` and the body:
    ///
    /// | request | answer |
    /// |---|---|
    /// | no `Authorization: Bearer` | 401, `WWW-Authenticate: Bearer resource_metadata="…", scope="…"` |
    /// | a malformed, invalid, expired or foreign-audience token | 401, the same with `error="invalid_token"` and a fixed `error_description` |
    /// | a token in the query string, or two `Authorization` headers | 400, `error="invalid_request"` |
    /// | a scope missing by the verifier's, the policy's or a hook's answer | 403, `error="insufficient_scope"`, `scope` naming what to ask for |
    /// | a verifier that cannot decide, or still runs at the read deadline | 503, nothing said |
    /// | a verifier that panics | 500, nothing said |
    ///
    /// Every refusal is decided before the body is read (an HTTP/1.1 connection is then
    /// closed), except the scope policy's, which needs the message; each carries a JSON-RPC
    /// error (-32600) whose `data` repeats the RFC 6750 `error` and `error_description`. A
    /// scope policy that panics, or a scope the host names that is not an RFC 6749
    /// `scope-token`, is the host's bug: 500, nothing said, logged.
    ///
    /// The token itself is never logged, never recorded in a metric and never reaches host
    /// code but the verifier: the `Authorization` header is taken out of the head before
    /// `authorize`, `authorize_async` and `authorize_body` see it. Tools, readers, renderers
    /// and completers see what the verifier built from it and a
    /// [`Grant`](crate::transport::http::oauth::Grant) in their context's extensions.
    #[must_use]
    pub fn resource_server(self, resource_server: ResourceServer) -> Self {
        self.with(|c| c.resource_server = Some(resource_server))
    }

    /// Answers liveness at `live` and readiness at `ready` ([`crate::health`]), to `GET` and
    /// `HEAD`, for a load balancer or an orchestrator: 200 `{"status":"live"}` /
    /// `{"status":"ready"}`, or 503 naming why (`{"status":"unready","unready":["catalog"]}`),
    /// `Cache-Control: no-store`. `Host` and `Origin` are checked as on the endpoint; no hook
    /// runs and no token is asked for. Under the runtime the answer is
    /// [`ApplicationRef::health`](crate::runtime::ApplicationRef::health)'s; served alone, the
    /// service is live and ready while it answers. The paths must differ from the MCP
    /// endpoint's, whose `GET` stays 405.
    #[must_use]
    pub fn health_paths(self, live: impl Into<String>, ready: impl Into<String>) -> Self {
        let paths = config::HealthPaths {
            live: live.into(),
            ready: ready.into(),
        };
        self.with(|c| c.health = Some(paths))
    }

    /// Answers browser clients' CORS preflights and lets a page read the answers, for the
    /// origins this service's [`AllowedOrigins`] accepts ([`Cors`] says exactly what is
    /// answered). Off by default: without it an `OPTIONS` is answered 405 like every method
    /// but `POST`, and no answer carries a CORS header.
    ///
    /// ```
    /// use beam_mcp::transport::http::{AllowedOrigins, Cors, HttpService};
    /// use beam_mcp::{Catalog, Server, ServerConfig};
    ///
    /// let server = Server::new(ServerConfig::new(Catalog::new())).unwrap();
    /// let service = HttpService::new(server, |_| Ok(()), AllowedOrigins::list(["https://app.example.com"]))
    ///     .path("/mcp")
    ///     .cors(Cors::new());
    /// # let _ = service;
    /// ```
    #[must_use]
    pub fn cors(self, cors: Cors) -> Self {
        self.with(|c| c.cors = Some(cors))
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
}

impl HttpService {
    /// Answers one request. Never fails: every refusal is a response.
    pub async fn respond<B>(&self, req: Request<B>) -> Response<Full<Bytes>>
    where
        B: http_body::Body,
        B::Data: bytes::Buf,
    {
        let version = req.version();
        let cors = cors::Answer::of(&self.config, &req);
        let mut response = match self.answer(req).await {
            Ok(r) => r,
            Err(refuse) => {
                crate::metrics::refusal(
                    refuse.error.code(),
                    Some(refuse.status.as_u16()),
                    Carrier::Http,
                );
                refuse.into_response(version)
            }
        };
        if let Some(cors) = cors {
            cors.apply(&mut response);
        }
        response
    }

    async fn answer<B>(&self, req: Request<B>) -> Result<Response<Full<Bytes>>, Rejection>
    where
        B: http_body::Body,
        B::Data: bytes::Buf,
    {
        let c = &*self.config;
        let deadline = Instant::now() + c.read_timeout;
        let (mut parts, body) = req.into_parts();
        // A preflight on a health path is not covered by CORS: it falls through to the probes.
        if let Some(answered) = cors::preflight(c, &parts) {
            return answered;
        }
        if let Some(answered) = self.document(&parts) {
            return answered.map_err(Rejection::unread);
        }
        // Taken before any hook sees the head: no host code but the verifier reads a token.
        let presented = c
            .resource_server
            .as_ref()
            .map(|rs| (rs, bearer::take_credentials(&mut parts)));
        let head = Head::scan(&parts.headers);
        gatekeeping::check_head(c, &parts, &head).map_err(Rejection::unread)?;
        let mut extensions = match presented {
            Some((rs, presented)) => bearer::admit(rs, presented, deadline)
                .await
                .map_err(Rejection::unread)?,
            None => Extensions::new(),
        };
        if let Some(hook) = &c.authorize_async {
            let theirs = gatekeeping::run_authorize_async(c, hook, &parts, deadline)
                .await
                .map_err(Rejection::unread)?;
            extensions.extend(theirs);
        }
        let declared = head
            .values(Read::ContentLength)
            .next()
            .and_then(|v| v.to_str().ok()?.trim().parse::<usize>().ok());
        let bytes = body::read(body, MAX_BODY_BYTES, declared, deadline)
            .await
            .map_err(|e| body_refusal(e).unread())?;
        gatekeeping::run_authorize_body(&self.config, &parts, &bytes)?;
        let message = decode(&bytes).map_err(|e| {
            Rejection::new(rejection::status_of(Some(e.error.code())), e.error).id(e.id)
        })?;
        let span = RequestSpan::open(&message, Carrier::Http, || {
            trace::trace_context(head.map(), parts.version)
        });
        let answered = self.route(&head, message, extensions, span.clone()).await;
        if let Err(refused) = &answered {
            span.refused(&refused.error);
        }
        answered
    }

    /// The answer on a path of its own beside the endpoint — a health path, or a location of
    /// the OAuth metadata — under the same `Host` and `Origin` rules; `None` on any other path.
    fn document(&self, parts: &Parts) -> Option<Result<Response<Full<Bytes>>, Rejection>> {
        let c = &*self.config;
        let path = parts.uri.path();
        let checked = || {
            let head = Head::scan(&parts.headers);
            gatekeeping::check_host_and_origin(c, parts, &head)
        };
        if let Some(asked) = c
            .health
            .as_ref()
            .and_then(|paths| health::which(paths, path))
        {
            return Some(checked().and_then(|()| health::answer(asked, c.probe.health(), parts)));
        }
        let rs = c
            .resource_server
            .as_ref()
            .filter(|rs| rs.is_metadata_path(path))?;
        Some(checked().and_then(|()| bearer::metadata(rs, parts)))
    }

    /// The decoded message against its headers, then the core, in the request's `span`.
    async fn route(
        &self,
        head: &Head<'_>,
        m: Incoming<'_>,
        extensions: Extensions,
        span: RequestSpan,
    ) -> Result<Response<Full<Bytes>>, Rejection> {
        // One snapshot for the header checks and the routing: both see the same catalog.
        let server = self.config.server.snapshot();
        let id = m.id.clone();
        let with_id = |r: Rejection| r.id(id.clone());
        let not_found = || {
            with_id(Rejection::new(
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
        let era = mcp_headers::era_of(&self.config, head, &m).map_err(with_id)?;
        let presence = if era.bare_is_legacy {
            Presence::IfPresent
        } else {
            Presence::Required
        };
        head.require_eq(Read::McpMethod, Encoding::Plain, Some(&m.method), presence)
            .map_err(|e| with_id(mismatch(&e)))?;
        mcp_headers::check_names(&server, head, &m, presence, &extensions)
            .map_err(|e| with_id(mismatch(&e)))?;
        bearer::check_scopes(&self.config, &m, &extensions).map_err(with_id)?;
        if m.is_notification() {
            // Every MCP notification is `notifications/…`. Anything else without an id is a
            // request that lost it: nothing would run and nothing would say so, so it is
            // refused (the transport lets a server refuse a notification with a 4xx).
            if !m.method.starts_with("notifications/") {
                return Err(Rejection::new(
                    StatusCode::BAD_REQUEST,
                    RpcError::new(codes::INVALID_REQUEST, "Invalid request").with_data(json!({
                        "method": m.method,
                        "reason": "a request needs an id; only notifications/* may omit it",
                    })),
                ));
            }
            let _ = server.handle_in(m, era, extensions, span);
            return Ok(empty(StatusCode::ACCEPTED));
        }
        // The envelope is checked before routing: a malformed one is a 400, not a 200 about
        // content.
        let revision = server.revision_for(&m, era).map_err(|e| {
            with_id(Rejection::new(
                rejection::status_of(Some(e.code())).max_400(),
                e,
            ))
        })?;
        let era = era.with_revision(revision);
        let step = server.handle_in(m, era, extensions, span);
        drop(server);
        let reply = match step {
            Step::Reply(r) | Step::Close(Some(r)) => r,
            Step::Pending(p) => self.config.exec.run(p).await,
            Step::Silent | Step::Cancel(_) | Step::Close(None) => {
                return Ok(empty(StatusCode::ACCEPTED))
            }
        };
        let status = rejection::status_of(reply.error_code());
        if let Some(code) = reply.error_code() {
            crate::metrics::refusal(code, Some(status.as_u16()), Carrier::Http);
        }
        Ok(rejection::json(status, reply.into_bytes()))
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
    use crate::{Catalog, Server, ServerConfig};

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
