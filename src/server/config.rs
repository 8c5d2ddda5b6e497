//! What a host configures: the catalog, the dispatch function, the server's identity and the
//! cache hints of each list.

use crate::catalog::validated::HeaderFaults;
use crate::catalog::Catalog;
#[cfg(feature = "connectome")]
use crate::connectome::observed::Collector;
use crate::dispatch::Dispatch;
use crate::protocol::{CacheHint, CacheHints, Cacheable};
use crate::schema::Budget;
use std::fmt;
use std::sync::Arc;

/// The default page size of every paginated list.
pub const DEFAULT_PAGE_SIZE: usize = 50;

/// A server's configuration, checked by [`crate::Server::new`].
///
/// ```
/// use beam_mcp::{Catalog, ServerConfig, ToolOutput, ToolSpec};
/// let config = ServerConfig::new(Catalog::new().tool(ToolSpec::new("hello", "Say hello.")))
///     .server_name("my-app")
///     .dispatch(|_call| async { Ok(ToolOutput::text("hello")) });
/// let server = beam_mcp::Server::new(config).unwrap();
/// # let _ = server;
/// ```
#[derive(Clone)]
pub struct ServerConfig {
    pub(crate) catalog: Catalog,
    pub(crate) dispatch: Option<Arc<dyn Dispatch>>,
    pub(crate) server_name: String,
    pub(crate) server_version: String,
    pub(crate) instructions: Option<String>,
    pub(crate) cache_hints: CacheHints,
    pub(crate) page_size: usize,
    pub(crate) header_faults: HeaderFaults,
    pub(crate) cursor_key: Option<[u8; 32]>,
    pub(crate) validation_budget: u64,
    #[cfg(feature = "connectome")]
    pub(crate) collector: Option<Collector>,
}

impl fmt::Debug for ServerConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ServerConfig")
            .field("catalog", &self.catalog)
            .field("dispatch", &self.dispatch.is_some())
            .field("server_name", &self.server_name)
            .field("server_version", &self.server_version)
            .field("page_size", &self.page_size)
            .field("validation_budget", &self.validation_budget)
            .finish_non_exhaustive()
    }
}

impl ServerConfig {
    /// A configuration serving `catalog`, named `beam-mcp` at this crate's version.
    pub fn new(catalog: Catalog) -> Self {
        ServerConfig {
            catalog,
            dispatch: None,
            server_name: "beam-mcp".into(),
            server_version: env!("CARGO_PKG_VERSION").into(),
            instructions: None,
            cache_hints: CacheHints::default(),
            page_size: DEFAULT_PAGE_SIZE,
            header_faults: HeaderFaults::RefuseAtStartup,
            cursor_key: None,
            validation_budget: Budget::DEFAULT_STEPS,
            #[cfg(feature = "connectome")]
            collector: None,
        }
    }

    /// The dispatch function. Required when the catalog lists any tool.
    #[must_use]
    pub fn dispatch(mut self, dispatch: impl Dispatch) -> Self {
        self.dispatch = Some(Arc::new(dispatch));
        self
    }

    /// The same, from a shared dispatch.
    #[must_use]
    pub fn dispatch_arc(mut self, dispatch: Arc<dyn Dispatch>) -> Self {
        self.dispatch = Some(dispatch);
        self
    }

    /// The name the server reports (default `beam-mcp`): a host that wants its own says so.
    #[must_use]
    pub fn server_name(mut self, name: impl Into<String>) -> Self {
        self.server_name = name.into();
        self
    }

    /// The version the server reports (default: this crate's).
    #[must_use]
    pub fn server_version(mut self, version: impl Into<String>) -> Self {
        self.server_version = version.into();
        self
    }

    /// Natural-language instructions for clients.
    #[must_use]
    pub fn instructions(mut self, text: impl Into<String>) -> Self {
        self.instructions = Some(text.into());
        self
    }

    /// The `ttlMs` and `cacheScope` a cacheable result carries at 2026-07-28 (2025-11-25
    /// results carry neither). Default [`CacheHint::NONE`] for each: `ttlMs: 0`, private, as
    /// the lists a host serves may differ by caller, which this crate cannot see.
    ///
    /// ```
    /// use beam_mcp::protocol::{CacheHint, Cacheable};
    /// use beam_mcp::{Catalog, ServerConfig};
    /// use std::time::Duration;
    ///
    /// let config = ServerConfig::new(Catalog::new())
    ///     .cache_hint(Cacheable::Tools, CacheHint::public(Duration::from_secs(60)))
    ///     .cache_hint(Cacheable::Resources, CacheHint::private(Duration::from_secs(5)));
    /// # let _ = config;
    /// ```
    #[must_use]
    pub fn cache_hint(mut self, cacheable: Cacheable, hint: CacheHint) -> Self {
        self.cache_hints.set(cacheable, hint);
        self
    }

    /// The page size of every list (default [`DEFAULT_PAGE_SIZE`]; at least 1).
    #[must_use]
    pub fn page_size(mut self, size: usize) -> Self {
        self.page_size = size;
        self
    }

    /// The key list cursors are tagged under (default: random per process). Replicas serving
    /// one address share a key so that a cursor from one is honoured by the next.
    #[must_use]
    pub fn cursor_key(mut self, key: [u8; 32]) -> Self {
        self.cursor_key = Some(key);
        self
    }

    /// The connectome collector the dispatch site records into. Recording happens only while
    /// the collector is attached, and only for calls that passed validation: an edge names a
    /// catalog tool, never a caller's string.
    #[must_use]
    #[cfg(feature = "connectome")]
    pub fn collector(mut self, collector: Collector) -> Self {
        self.collector = Some(collector);
        self
    }

    /// The steps validating one request's arguments against a general (JSON Schema 2020-12)
    /// schema may take (default [`Budget::DEFAULT_STEPS`]). Past it the request is refused like
    /// any invalid arguments, with keyword `budget` (`README.md`, "Bounded validation").
    /// Validation is linear in the request whatever the schema; this is the bound on the
    /// constant.
    ///
    /// ```
    /// use beam_mcp::{Catalog, ServerConfig};
    ///
    /// let config = ServerConfig::new(Catalog::new()).validation_budget(1 << 20);
    /// # let _ = config;
    /// ```
    #[must_use]
    pub fn validation_budget(mut self, steps: u64) -> Self {
        self.validation_budget = steps;
        self
    }

    /// How a forbidden `x-mcp-header` annotation is treated (default: refused at startup).
    #[must_use]
    pub fn header_faults(mut self, mode: HeaderFaults) -> Self {
        self.header_faults = mode;
        self
    }
}
