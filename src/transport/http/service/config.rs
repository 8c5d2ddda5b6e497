//! What an [`HttpService`](super::HttpService) is configured with: the caller's hook types,
//! the `Origin` policy, the defaults, and the configuration the builder methods fill.

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
