//! The hyper service: one POST endpoint, every check in the order the request arrives.
//!
//! [`HttpService::respond`] is the order: the HTTP gatekeeping decided from the head
//! (`service/gatekeeping.rs`), the body read within its bounds, the `authorize_body` hook,
//! the decoder, then the MCP headers against the body and the revision they pick
//! (`service/mcp_headers.rs`), then the core. What a service is built with is
//! `service/builder.rs`.

mod builder;
mod gatekeeping;
mod mcp_headers;

pub use builder::{AllowedOrigins, DEFAULT_READ_TIMEOUT, MAX_BODY_BYTES};

use super::body;
use super::headers::{Encoding, Head, Presence, Read};
use super::refusal::{self, Refuse};
use crate::dispatch::Carrier;
use crate::extensions::Extensions;
use crate::protocol::{codes, decode, Incoming, RpcError};
use crate::server::Step;
use builder::Config;
use bytes::Bytes;
use gatekeeping::body_refusal;
use http::{Request, Response, StatusCode};
use http_body_util::Full;
use mcp_headers::{mismatch, says_modern};
use serde_json::json;
use std::convert::Infallible;
use std::fmt;
use std::sync::Arc;
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
            .field("hosts", &self.config.hosts)
            .field("path", &self.config.path)
            .field("read_timeout", &self.config.read_timeout)
            .field("served", &self.config.served())
            .finish_non_exhaustive()
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
            .map_err(|e| body_refusal(e).unread())?;
        self.run_authorize_body(&parts, &bytes)?;
        let message = decode(&bytes)
            .map_err(|e| Refuse::new(refusal::status_of(Some(e.error.code())), e.error).id(e.id))?;
        self.route(&head, message, extensions).await
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
