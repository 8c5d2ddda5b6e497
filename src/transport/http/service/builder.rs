//! What an [`HttpService`] is built with: its builder methods, the caller's hook types, the
//! `Origin` policy and the defaults.

use super::HttpService;
use crate::extensions::Extensions;
use crate::protocol::Revision;
use crate::server::{Server, MODERN_ONLY};
use crate::transport::http::headers;
use crate::transport::http::refusal::Refusal;
use crate::transport::{Direct, RunPending};
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
pub(super) type Authorize = dyn Fn(&Parts) -> Result<(), Refusal> + Send + Sync;
/// The `authorize_body` hook: the head and the body as received, before decoding.
pub(super) type AuthorizeBody = dyn Fn(&Parts, &Bytes) -> Result<(), Refusal> + Send + Sync;
/// The `authorize_async` hook: the head, answered later with the caller's [`Extensions`].
pub(super) type AuthorizeAsync =
    dyn Fn(&Parts) -> crate::BoxFuture<Result<Extensions, Refusal>> + Send + Sync;

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
}
