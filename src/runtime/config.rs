//! What a host configures about the supervised runtime.

use super::stdio::{StdioConnector, StdioIo};
#[cfg(feature = "connectome")]
use crate::connectome::canonical::DigestAlgorithm;
#[cfg(feature = "connectome")]
use crate::connectome::declared::Declared;
use crate::transport::stdio::StdioOptions;
use beam_mcp_supervisors::ChildSpec;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

/// The default number of dispatch workers.
pub const DEFAULT_WORKERS: usize = 8;

/// The default bound on jobs waiting for a worker.
pub const DEFAULT_QUEUE: usize = 1024;

/// The default deadline of one piece of host work.
pub const DEFAULT_DEADLINE: Duration = Duration::from_secs(30);

/// The runtime's configuration: pool size and bounds, the
/// transports.
///
/// ```
/// use beam_mcp::runtime::ApplicationConfig;
/// use std::time::Duration;
/// let config = ApplicationConfig::new()
///     .workers(4)
///     .queue(256)
///     .deadline(Duration::from_secs(10));
/// # let _ = config;
/// ```
#[derive(Clone)]
pub struct ApplicationConfig {
    pub(crate) workers: usize,
    pub(crate) queue: usize,
    pub(crate) deadline: Duration,
    pub(crate) stdio: Option<(StdioConnector, StdioOptions)>,
    pub(crate) transports: Vec<ChildSpec>,
    #[cfg(feature = "connectome")]
    pub(crate) reporter: Option<(Declared, DigestAlgorithm)>,
    #[cfg(feature = "http")]
    pub(crate) http: Option<super::http::HttpSlot>,
    pub(crate) intensity: (u32, Duration),
    pub(crate) name: Option<String>,
}

impl Default for ApplicationConfig {
    fn default() -> Self {
        ApplicationConfig::new()
    }
}

impl fmt::Debug for ApplicationConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ApplicationConfig")
            .field("workers", &self.workers)
            .field("queue", &self.queue)
            .field("deadline", &self.deadline)
            .field("stdio", &self.stdio.as_ref().map(|(_, o)| o))
            .field("transports", &self.transports)
            .field("intensity", &self.intensity)
            .field("name", &self.name)
            .finish()
    }
}

impl ApplicationConfig {
    /// [`DEFAULT_WORKERS`] workers, a [`DEFAULT_QUEUE`] queue, a [`DEFAULT_DEADLINE`]
    /// deadline, no transport (host dispatch only), and a restart intensity of
    /// 10 restarts in 10 s at every supervisor of the tree.
    pub fn new() -> Self {
        ApplicationConfig {
            workers: DEFAULT_WORKERS,
            queue: DEFAULT_QUEUE,
            deadline: DEFAULT_DEADLINE,
            stdio: None,
            #[cfg(feature = "connectome")]
            reporter: None,
            #[cfg(feature = "http")]
            http: None,
            transports: Vec::new(),
            intensity: (10, Duration::from_secs(10)),
            name: None,
        }
    }

    /// The number of dispatch workers: at most this many host calls run at once.
    #[must_use]
    pub fn workers(mut self, workers: usize) -> Self {
        self.workers = workers;
        self
    }

    /// The number of jobs that may wait for a worker; past it, calls are refused with
    /// -32603 `{"reason": "overloaded"}`. 0 refuses every call made while all workers are busy.
    #[must_use]
    pub fn queue(mut self, queue: usize) -> Self {
        self.queue = queue;
        self
    }

    /// How long one piece of host work may run; past it the caller gets -32603
    /// `{"reason": "deadline"}` and the worker is replaced.
    #[must_use]
    pub fn deadline(mut self, deadline: Duration) -> Self {
        self.deadline = deadline;
        self
    }

    /// Serves one stdio connection under the transports supervisor, opened by `connect`
    /// at every (re)start.
    #[must_use]
    pub fn stdio<F>(mut self, connect: F, options: StdioOptions) -> Self
    where
        F: Fn() -> StdioIo + Send + Sync + 'static,
    {
        self.stdio = Some((Arc::new(connect), options));
        self
    }

    /// Serves the process's stdin and stdout.
    #[must_use]
    pub fn process_stdio(self) -> Self {
        self.stdio(StdioIo::process, StdioOptions::default())
    }

    /// Serves stateless Streamable HTTP on `listener` (already bound, so the host chooses the
    /// address and a restart keeps the port) under the transports supervisor, as the child
    /// [`super::HTTP`]: the listener actor, each accepted connection a task it owns (stopped
    /// with it), and host work runs in the dispatch pool. `service` carries the host's
    /// `authorize`, origins and bounds; the runtime serves its own catalog through it.
    #[cfg(feature = "http")]
    #[must_use]
    pub fn http(
        mut self,
        listener: std::net::TcpListener,
        service: crate::transport::http::HttpService,
        options: crate::transport::http::ServeOptions,
    ) -> Self {
        self.http = Some(super::http::HttpSlot {
            listener: Arc::new(listener),
            service,
            options,
        });
        self
    }

    /// Runs the connectome reporter under Root, after the collector: it builds the declared,
    /// observed and diff exports on demand ([`super::ApplicationRef::export`]), off the request
    /// path. The observed graph is the server's collector (an empty graph when it has none).
    #[cfg(feature = "connectome")]
    #[must_use]
    pub fn reporter(mut self, declared: Declared, algorithm: DigestAlgorithm) -> Self {
        self.reporter = Some((declared, algorithm));
        self
    }

    /// Adds a transport of the host's own (the HTTP listener's slot) under the transports
    /// supervisor, after stdio. Its id must be unique among the transports.
    #[must_use]
    pub fn transport(mut self, spec: ChildSpec) -> Self {
        self.transports.push(spec);
        self
    }

    /// The restart intensity of each supervisor in the tree: at most `max_restarts` in
    /// `period`, past which it gives up and its parent decides.
    #[must_use]
    pub fn intensity(mut self, max_restarts: u32, period: Duration) -> Self {
        self.intensity = (max_restarts, period);
        self
    }

    /// Registers the Root supervisor under `name` in ractor's registry.
    #[must_use]
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }
}
