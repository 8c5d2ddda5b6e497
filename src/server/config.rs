//! What a host configures: the catalog, the dispatch function, the server's identity and the
//! cache hints of each list.

use crate::catalog::validated::HeaderFaultPolicy;
use crate::catalog::{Catalog, CatalogView, Icon};
#[cfg(feature = "connectome")]
use crate::connectome::observed::Collector;
use crate::dispatch::Dispatch;
use crate::protocol::{CacheHint, CacheHints, Cacheable};
use crate::schema::Budget;
use serde_json::Value;
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
    pub(crate) server_title: Option<String>,
    pub(crate) server_description: Option<String>,
    pub(crate) server_website_url: Option<String>,
    pub(crate) server_icons: Vec<Icon>,
    /// The MCP extensions declared, in declaration order (repeats are refused at startup).
    pub(crate) extensions: Vec<(String, Value)>,
    pub(crate) instructions: Option<String>,
    pub(crate) cache_hints: CacheHints,
    pub(crate) page_size: usize,
    pub(crate) header_faults: HeaderFaultPolicy,
    pub(crate) cursor_key: Option<[u8; 32]>,
    pub(crate) validation_budget: u64,
    pub(crate) view: Option<Arc<dyn CatalogView>>,
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
            .field("extensions", &self.extensions)
            .field("page_size", &self.page_size)
            .field("validation_budget", &self.validation_budget)
            .field("view", &self.view.is_some())
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
            server_title: None,
            server_description: None,
            server_website_url: None,
            server_icons: Vec::new(),
            extensions: Vec::new(),
            instructions: None,
            cache_hints: CacheHints::default(),
            page_size: DEFAULT_PAGE_SIZE,
            header_faults: HeaderFaultPolicy::RefuseAtStartup,
            cursor_key: None,
            validation_budget: Budget::DEFAULT_STEPS,
            view: None,
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

    /// The human-readable name the server reports (`serverInfo.title`), for display; without
    /// one, clients show the name.
    ///
    /// Every `server_*` member is sent wherever `serverInfo` is: in the 2025-11-25
    /// `initialize` result, and in `_meta["io.modelcontextprotocol/serverInfo"]` on every
    /// 2026-07-28 result (`server/discover` included), whose schema makes it the same
    /// `Implementation`. Each is sent only when set.
    ///
    /// ```
    /// use beam_mcp::catalog::{Icon, IconTheme};
    /// use beam_mcp::{Catalog, Server, ServerConfig};
    ///
    /// let config = ServerConfig::new(Catalog::new())
    ///     .server_name("weather")
    ///     .server_title("Weather")
    ///     .server_description("Current weather and forecasts.")
    ///     .server_website_url("https://example.com/weather")
    ///     .server_icon(Icon::new("https://example.com/sun.png").with_theme(IconTheme::Light));
    /// let server = Server::new(config)?;
    /// assert_eq!(server.info().title.as_deref(), Some("Weather"));
    /// assert_eq!(server.info().icons.len(), 1);
    /// # Ok::<(), beam_mcp::ConfigError>(())
    /// ```
    #[must_use]
    pub fn server_title(mut self, title: impl Into<String>) -> Self {
        self.server_title = Some(title.into());
        self
    }

    /// What the server does (`serverInfo.description`); see [`ServerConfig::server_title`].
    #[must_use]
    pub fn server_description(mut self, description: impl Into<String>) -> Self {
        self.server_description = Some(description.into());
        self
    }

    /// The server's website (`serverInfo.websiteUrl`); see [`ServerConfig::server_title`].
    /// [`crate::Server::new`] refuses anything but an `https:` or `http:` URL with a host
    /// ([`crate::ConfigError::WebsiteUrl`]): a client shows it as a link.
    #[must_use]
    pub fn server_website_url(mut self, url: impl Into<String>) -> Self {
        self.server_website_url = Some(url.into());
        self
    }

    /// Adds an icon of the server (`serverInfo.icons`; each call adds one, in order); see
    /// [`ServerConfig::server_title`]. Checked as every icon is ([`crate::catalog::Icon`]);
    /// as the 2026-07-28 `serverInfo` travels on every result, an `https:` icon costs each
    /// result its URL where a `data:` one costs it the whole image.
    #[must_use]
    pub fn server_icon(mut self, icon: Icon) -> Self {
        self.server_icons.push(icon);
        self
    }

    /// Declares support for the MCP extension `id` with its `settings` (a JSON object; `{}`
    /// for an extension with none), advertised in `capabilities.extensions` at 2026-07-28.
    ///
    /// The 2025-11-25 schema's `ServerCapabilities` has no `extensions` member, so the
    /// `initialize` result carries none, and an extension is not moved under `experimental`
    /// there either: `experimental` is for non-standard capabilities, and an extension is
    /// not one. (These are MCP extensions, not the [`crate::Extensions`] a host attaches to a
    /// request.)
    ///
    /// [`crate::Server::new`] refuses, with a [`crate::ConfigError`]: an `id` breaking the
    /// `_meta` key naming rules or without a prefix (`ExtensionId`; a prefix reserved for MCP,
    /// as in `io.modelcontextprotocol/ui`, is accepted here: it names an extension MCP
    /// defines), `settings` that are not an object (`ExtensionSettings`), and one `id` twice
    /// (`DuplicateExtension`).
    ///
    /// ```
    /// use beam_mcp::{Catalog, ServerConfig};
    /// use serde_json::json;
    ///
    /// let config = ServerConfig::new(Catalog::new())
    ///     .extension("io.modelcontextprotocol/ui", json!({"mimeTypes": ["text/html;profile=mcp-app"]}))
    ///     .extension("com.example/maps", json!({}));
    /// assert!(beam_mcp::Server::new(config).is_ok());
    /// ```
    #[must_use]
    pub fn extension(mut self, id: impl Into<String>, settings: Value) -> Self {
        self.extensions.push((id.into(), settings));
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
    /// any invalid arguments, with keyword `budget` (`docs/schemas.md`, "Bounded validation").
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

    /// The host's per-caller view of the catalog ([`CatalogView`]): given an item and a
    /// request's extensions (the principal), whether that caller sees the item. A hidden item
    /// is left out of lists and answered as one that does not exist; lists served under a
    /// view are cached `private`. Default: every caller sees every item.
    #[must_use]
    pub fn view(mut self, view: impl CatalogView) -> Self {
        self.view = Some(Arc::new(view));
        self
    }

    /// How a forbidden `x-mcp-header` annotation is treated (default: refused at startup).
    #[must_use]
    pub fn header_faults(mut self, mode: HeaderFaultPolicy) -> Self {
        self.header_faults = mode;
        self
    }
}
