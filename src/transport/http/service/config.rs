//! What an [`HttpService`](super::HttpService) is configured with: the caller's hook types,
//! the `Origin` policy, CORS ([`Cors`]), the defaults, and the configuration the builder
//! methods fill.

use crate::dispatch::Extensions;
use crate::health::Probe;
use crate::protocol::Revision;
use crate::server::{Server, MODERN_ONLY};
use crate::transport::http::headers;
use crate::transport::http::oauth::ResourceServer;
use crate::transport::http::rejection::Forbidden;
use crate::transport::RunPending;
use bytes::Bytes;
use http::request::Parts;
use http::HeaderValue;
use std::sync::Arc;
use std::time::Duration;

/// The largest body accepted: 1 MiB.
pub const MAX_BODY_BYTES: usize = 1024 * 1024;

/// The default deadline for reading a whole body.
pub const DEFAULT_READ_TIMEOUT: Duration = Duration::from_secs(15);

/// The `authorize` hook: the head alone, before anything else the caller chose runs.
pub(super) type Authorize = dyn Fn(&Parts) -> Result<(), Forbidden> + Send + Sync;
/// The `authorize_body` hook: the head and the body as received, before decoding.
pub(super) type AuthorizeBody = dyn Fn(&Parts, &Bytes) -> Result<(), Forbidden> + Send + Sync;
/// The `authorize_async` hook: the head, answered later with the caller's [`Extensions`].
pub(super) type AuthorizeAsync =
    dyn Fn(&Parts) -> crate::BoxFuture<Result<Extensions, Forbidden>> + Send + Sync;

/// How long a browser may keep a preflight's answer by default: two hours, the most Chromium
/// keeps one (Firefox keeps up to a day).
pub const DEFAULT_PREFLIGHT_MAX_AGE: Duration = Duration::from_secs(7200);

/// CORS for browser clients: a page served from an origin the service's
/// [`AllowedOrigins`](super::AllowedOrigins) accepts may call the endpoint (and, in the
/// resource-server mode, fetch the metadata document) with `fetch`. Off unless set with
/// [`HttpService::cors`](super::HttpService::cors).
///
/// - A preflight (`OPTIONS` with `Origin` and `Access-Control-Request-Method`) on the endpoint
///   or a metadata path is answered 204 when its `Host` and `Origin` pass the rules every
///   request meets, and otherwise refused 403 with no CORS header, as any request from that
///   origin or to that host is. It runs no hook and verifies no token (a browser never sends
///   credentials on a preflight); nothing reaches the host. Any other `OPTIONS` is 405 as
///   without CORS.
/// - The endpoint's preflight admits `POST` (`GET` and `HEAD` need no admitting: the endpoint
///   answers them 405, which the page can then read) and exactly the headers MCP clients
///   write: `Content-Type`, `Accept`, `Authorization`, `MCP-Protocol-Version`, `Mcp-Method`,
///   `Mcp-Name`, and each `Mcp-Param-*` header the preflight asks for (echoed, never listed
///   from the catalog: a preflight carries no credentials, so a per-caller view could not
///   apply; the request itself still has its `Mcp-Param-*` headers checked against the tool
///   it calls). The metadata's preflight admits `GET` with `Accept` and
///   `MCP-Protocol-Version`. Anything else a preflight asks for is left out, and the browser
///   then refuses the request itself.
/// - Every answer to an allowed origin on those paths, refusals included, carries
///   `Access-Control-Allow-Origin` (the request's origin; `*` under
///   [`AllowedOrigins::Any`](super::AllowedOrigins::Any)) and
///   `Access-Control-Expose-Headers: WWW-Authenticate` (the resource-server mode's
///   challenges; the endpoint sends no `Mcp-Session-Id` nor `MCP-Protocol-Version` to expose).
///   Every answer on those paths carries `Vary: Origin` (a preflight's, also
///   `Access-Control-Request-Method` and `-Headers`).
/// - Credentials are never allowed: no answer carries `Access-Control-Allow-Credentials`, so a
///   browser sends no cookie or HTTP authentication it holds for the server and gives the page
///   no answer to a request that did. A browser client authenticates with a bearer token it
///   writes into `Authorization` itself. So `*` is never paired with credentials.
///
/// Every other rule is unchanged: a request from a page meets the same `Host`, `Origin`, hook,
/// token, media-type and MCP-header checks as any other.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cors {
    max_age: HeaderValue,
}

impl Cors {
    /// CORS for the origins the service's [`AllowedOrigins`](super::AllowedOrigins) accepts,
    /// preflights kept for [`DEFAULT_PREFLIGHT_MAX_AGE`].
    pub fn new() -> Self {
        Cors::default()
    }

    /// How long a browser may keep a preflight's answer (`Access-Control-Max-Age`, whole
    /// seconds; browsers cap it: Chromium at two hours).
    #[must_use]
    pub fn max_age(self, max_age: Duration) -> Self {
        Cors {
            max_age: HeaderValue::from(max_age.as_secs()),
        }
    }
}

impl Cors {
    /// `Access-Control-Max-Age`, ready for the wire.
    pub(super) fn max_age_header(&self) -> &HeaderValue {
        &self.max_age
    }
}

impl Default for Cors {
    fn default() -> Self {
        Cors {
            max_age: HeaderValue::from(DEFAULT_PREFLIGHT_MAX_AGE.as_secs()),
        }
    }
}

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

    /// Whether `origin` is accepted.
    pub(super) fn allows(&self, origin: &HeaderValue) -> bool {
        match self {
            AllowedOrigins::Any => true,
            AllowedOrigins::List(list) => headers::origin_listed(origin.as_bytes(), list),
        }
    }
}

/// Where liveness and readiness are answered.
#[derive(Debug, Clone)]
pub(super) struct HealthPaths {
    pub(super) live: String,
    pub(super) ready: String,
}

/// Everything a service decides with, shared by its clones.
#[derive(Clone)]
pub(super) struct Config {
    /// The core every request is answered by.
    pub(super) server: Server,
    /// The head hook, always set (`HttpService::new` takes it).
    pub(super) authorize: Arc<Authorize>,
    /// The body hook, when one is set.
    pub(super) authorize_body: Option<Arc<AuthorizeBody>>,
    /// The asynchronous head hook, when one is set.
    pub(super) authorize_async: Option<Arc<AuthorizeAsync>>,
    /// The health and readiness paths, when the host chose them.
    pub(super) health: Option<HealthPaths>,
    /// Who says how the server is: the runtime, or the transport's own answering.
    pub(super) probe: Arc<dyn Probe>,
    /// The resource-server mode, when on.
    pub(super) resource_server: Option<ResourceServer>,
    /// The `Origin` policy.
    pub(super) origins: AllowedOrigins,
    /// CORS for browser clients, when on (for the origins `origins` accepts).
    pub(super) cors: Option<Cors>,
    /// The host names `Host` (or `:authority`) may carry.
    pub(super) hosts: Vec<String>,
    /// The one path served, when set; every path otherwise.
    pub(super) path: Option<String>,
    /// The deadline for `authorize_async` and the body together, counted from the head.
    pub(super) read_timeout: Duration,
    /// Whether 2025-11-25 is served beside 2026-07-28.
    pub(super) legacy: bool,
    /// Who runs host work: the request's own task, or the runtime's dispatch pool.
    pub(super) exec: Arc<dyn RunPending>,
}

impl Config {
    /// The revisions this endpoint serves.
    pub(super) fn served(&self) -> &'static [Revision] {
        if self.legacy {
            &Revision::ALL
        } else {
            MODERN_ONLY
        }
    }
}
