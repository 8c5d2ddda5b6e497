//! The server core: a validated catalog plus the routing of every method at both revisions.
//!
//! Sans-IO: [`Server::handle`] turns one frame into a [`Step`]: a reply ready for the wire,
//! nothing (a notification), a [`Pending`] piece of host work (a tool call, a resource read,
//! a prompt rendering) whose [`Pending::run`] awaits the host and yields the reply, or the end
//! of the connection. The core never touches a socket or a pipe; transports do.

mod cancel;
mod complete;
mod config;
mod inner;
mod negotiate;
mod pending;
mod refusals;
mod reply;
mod route;
mod step;
mod visible;

pub use config::{ServerConfig, DEFAULT_PAGE_SIZE};
#[cfg_attr(not(feature = "http"), allow(unused_imports))]
pub(crate) use negotiate::{Era, VersionHeaderFault, MODERN_ONLY};
#[cfg_attr(not(feature = "http"), allow(unused_imports))]
pub(crate) use pending::guarded;
pub(crate) use pending::HostOutcome;
pub use pending::Pending;
pub(crate) use refusals::unserved_reply;
pub use reply::Reply;
pub use step::{Answer, Step};

use inner::{Inner, Live};

use crate::catalog::cursor::CursorCodec;
use crate::catalog::icon::{check_link, WEBSITE_SCHEMES};
use crate::catalog::meta::check_extension_id;
use crate::catalog::validated::{Rules, ValidatedCatalog};
use crate::catalog::CatalogChange;
#[cfg(feature = "connectome")]
use crate::connectome::observed::Collector;
use crate::dispatch::Carrier;
use crate::dispatch::Extensions;
use crate::error::{ConfigError, ConfigItem};
use crate::otel::{RequestSpan, TransportContext};
use crate::protocol::{decode, Envelope, RequestId, RpcError, ServerInfo};
use serde_json::{Map, Value};
use std::fmt;
use std::sync::Arc;

/// A validated, ready server. Cheap to clone: every clone shares one live catalog, which
/// [`Server::change`] changes for all of them.
#[derive(Clone)]
pub struct Server {
    live: Arc<Live>,
}

impl fmt::Debug for Server {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let now = self.live.current.load();
        f.debug_struct("Server")
            .field("info", &now.info)
            .field("generation", &now.generation)
            .field("catalog", &now.catalog)
            .finish_non_exhaustive()
    }
}

/// The snapshot one request routes on, loaded once: every check a transport makes before
/// routing (the HTTP header rules) and the routing itself see the same catalog.
#[cfg_attr(not(feature = "http"), allow(dead_code))]
pub(crate) struct Snapshot(arc_swap::Guard<Arc<Inner>>);

impl Server {
    /// Validates `config` and builds the server.
    ///
    /// # Errors
    /// A [`ConfigError`] naming the item at fault: repeated names or uris, schemas the crate
    /// cannot validate (a keyword outside JSON Schema 2020-12, a remote `$ref`), forbidden `x-mcp-header` annotations, bad templates, resources or prompts
    /// with no reader or renderer, tools with no dispatch, a page size of 0, no cursor key
    /// and no OS randomness to draw one from; a read-only tool that says `destructiveHint:
    /// true`, an icon whose `src` is not an https, http or data URI, a `_meta` key breaking
    /// the MCP naming rules or using a reserved prefix, a `websiteUrl` that is not an https
    /// or http URL, and an extension with a bad identifier, settings that are not an object,
    /// or declared twice.
    pub fn new(config: ServerConfig) -> Result<Server, ConfigError> {
        if config.page_size == 0 {
            return Err(ConfigError::InvalidOption {
                option: "page_size",
                reason: "must be at least 1",
            });
        }
        let rules = Rules {
            header_faults: config.header_faults,
            has_dispatch: config.dispatch.is_some(),
        };
        let catalog = ValidatedCatalog::build(config.catalog, rules)?;
        // Cursor tags resist forgery only under a secret key: without OS randomness and
        // without a host key, refuse to start rather than fall back to a guessable one.
        let cursor_key = match config.cursor_key {
            Some(k) => k,
            None => {
                let mut k = [0u8; 32];
                getrandom::fill(&mut k).map_err(|_| ConfigError::NoRandomness)?;
                k
            }
        };
        crate::catalog::validated::check_icons(&config.server_icons, || ConfigItem::Server)?;
        if let Some(url) = &config.server_website_url {
            check_link(url, WEBSITE_SCHEMES).map_err(|fault| ConfigError::WebsiteUrl {
                url: url.clone(),
                fault,
            })?;
        }
        let mut extensions = Map::new();
        for (id, settings) in config.extensions {
            check_extension_id(&id).map_err(|fault| ConfigError::ExtensionId {
                id: id.clone(),
                fault,
            })?;
            if !settings.is_object() {
                return Err(ConfigError::ExtensionSettings { id });
            }
            if extensions.contains_key(&id) {
                return Err(ConfigError::DuplicateExtension { id });
            }
            extensions.insert(id, settings);
        }
        let info = ServerInfo {
            name: config.server_name,
            version: config.server_version,
            title: config.server_title,
            description: config.server_description,
            website_url: config.server_website_url,
            icons: config.server_icons,
        };
        let inner = Inner {
            catalog,
            generation: 0,
            rules,
            view: config.view,
            dispatch: config.dispatch,
            envelope: Envelope::new(&info),
            info,
            instructions: config.instructions,
            extensions,
            cache_hints: config.cache_hints,
            page_size: config.page_size,
            validation_budget: config.validation_budget,
            #[cfg(feature = "connectome")]
            collector: config.collector,
            cursors: CursorCodec::new(cursor_key),
        };
        Ok(Server {
            live: Arc::new(Live {
                current: arc_swap::ArcSwap::from_pointee(inner),
                writer: std::sync::Mutex::new(()),
            }),
        })
    }

    /// Changes the catalog while serving: every step of `change` validated as
    /// [`Server::new`] validates a catalog, then the whole change published at once to every
    /// clone of this server. A request already routed finishes on the catalog it started
    /// with; the next request sees the change. Changes are applied one at a time, each on the
    /// one before it. The cost is that of the items the change carries (their schemas
    /// compiled, their list entries encoded) plus a logarithmic path in each map: it does not
    /// grow with the catalog.
    ///
    /// # Errors
    /// The [`ConfigError`] of the first step refused (as at startup, plus
    /// [`ConfigError::NotInCatalog`] for a replace or remove of an item the catalog does not
    /// hold); the catalog is then unchanged.
    pub fn change(&self, change: CatalogChange) -> Result<u64, ConfigError> {
        let _writer = self.live.writer.lock().unwrap_or_else(|e| e.into_inner());
        let now = self.live.current.load_full();
        let catalog = now.catalog.apply(change, now.rules)?;
        let next = Inner {
            catalog,
            generation: now.generation + 1,
            ..Inner::clone(&now)
        };
        let generation = next.generation;
        self.live.current.store(Arc::new(next));
        Ok(generation)
    }

    /// How many changes the catalog has taken since [`Server::new`] (0 before the first).
    pub fn generation(&self) -> u64 {
        self.live.current.load().generation
    }

    /// The snapshot the next request would route on.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn snapshot(&self) -> Snapshot {
        Snapshot(self.live.current.load())
    }

    /// The collector the dispatch site records into, when the host configured one.
    #[cfg(feature = "connectome")]
    pub(crate) fn collector(&self) -> Option<Collector> {
        self.live.current.load().collector.clone()
    }

    /// The server's identity.
    pub fn info(&self) -> ServerInfo {
        self.live.current.load().info.clone()
    }

    /// Handles one frame: decode, route, and either answer or hand back host work.
    ///
    /// A frame that cannot be decoded is answered with -32700 or -32600 (id omitted when it
    /// could not be read).
    pub fn handle(&self, frame: &[u8], carrier: Carrier) -> Step {
        self.handle_with(frame, carrier, Extensions::new())
    }

    /// [`Server::handle`] for a request the host attached `extensions` to (the principal it
    /// authenticated, say): they reach the tool, the reader, the renderer and the completer
    /// as [`crate::CallContext::extensions`].
    pub fn handle_with(&self, frame: &[u8], carrier: Carrier, extensions: Extensions) -> Step {
        match decode(frame) {
            Ok(message) => {
                let span = RequestSpan::open(&message, carrier, TransportContext::default);
                route::route(
                    &self.live.current.load(),
                    message,
                    negotiate::Era::of(carrier),
                    extensions,
                    span,
                )
            }
            Err(e) => Step::Reply(Reply::error(e.id.as_ref(), e.error)),
        }
    }

    /// Answers one frame: [`Server::handle`], then any host work it needs run here, the
    /// whole request in one await. (To *serve* is to run a transport over a connection until
    /// it ends: `transport::stdio::serve`, `transport::http::serve`.)
    ///
    /// # Cancel safety
    /// Dropping the future drops the host's future with it (see [`crate::Dispatch`]).
    pub async fn answer(&self, frame: &[u8], carrier: Carrier) -> Answer {
        self.answer_with(frame, carrier, Extensions::new()).await
    }

    /// [`Server::answer`] with the host's `extensions` attached.
    ///
    /// # Cancel safety
    /// As [`Server::answer`].
    pub async fn answer_with(
        &self,
        frame: &[u8],
        carrier: Carrier,
        extensions: Extensions,
    ) -> Answer {
        match self.handle_with(frame, carrier, extensions) {
            Step::Reply(r) => Answer::Reply(r),
            Step::Silent | Step::Cancel(_) => Answer::Silent,
            Step::Pending(p) => Answer::Reply(p.run().await),
            Step::Close(r) => Answer::Close(r),
        }
    }

    /// A `tools/call` from a host actor ([`Carrier::Host`]), routed through the same method
    /// table, validator and normaliser as one read off a wire. The request id is 0. The work
    /// to run, or the reply that refuses it.
    pub(crate) fn host_call(
        &self,
        tool: &str,
        arguments: Value,
        extensions: Extensions,
    ) -> Result<Pending, Reply> {
        let params = crate::protocol::Params {
            name: Some(crate::protocol::Text::Str(tool.into())),
            arguments: Some(arguments),
            ..Default::default()
        };
        let id = RequestId::Number(0.into());
        let message = crate::protocol::Incoming {
            id: Some(id.clone()),
            method: "tools/call".into(),
            params: Some(params),
            top_level_meta: false,
        };
        match route::route(
            &self.live.current.load(),
            message,
            negotiate::Era::of(Carrier::Host),
            extensions,
            // A host's own dispatch is not an MCP request: its dispatch span opens under the
            // host's current span, if any.
            RequestSpan::none(),
        ) {
            Step::Pending(p) => Ok(p),
            Step::Reply(r) | Step::Close(Some(r)) => Err(r),
            // A `tools/call` with an id is always answered; were it not, say so rather than hang.
            Step::Silent | Step::Cancel(_) | Step::Close(None) => {
                tracing::error!(%tool, "a host tools/call was routed to no answer");
                Err(Reply::error(Some(&id), RpcError::internal()))
            }
        }
    }

    /// The names of the tools served now, in name order (to every caller: no view applies).
    pub fn tool_names(&self) -> Vec<String> {
        let now = self.live.current.load();
        now.catalog.tools.keys().map(|k| k.to_string()).collect()
    }

    /// The `tools/list` entry of a tool, exactly as advertised now (to every caller: no view
    /// applies).
    pub fn advertised_tool(&self, name: &str) -> Option<Value> {
        self.live
            .current
            .load()
            .catalog
            .tool(name)
            .map(|t| t.advertised.clone())
    }
}

impl Snapshot {
    /// Routes one decoded message in the era its transport found (the HTTP header rules).
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn handle_in(
        &self,
        message: crate::protocol::Incoming<'_>,
        era: negotiate::Era,
        extensions: Extensions,
        span: RequestSpan,
    ) -> Step {
        route::route(&self.0, message, era, extensions, span)
    }

    /// The revision a decoded request is served at, or the -32602/-32022 its `_meta` earns
    /// (and the -32602 of a 2025-11-25 `initialize` whose params break its schema): the HTTP
    /// transport needs it before routing, to tell a malformed envelope (400) from a
    /// request-level error (200).
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn revision_for(
        &self,
        message: &crate::protocol::Incoming<'_>,
        era: negotiate::Era,
    ) -> Result<crate::protocol::Revision, RpcError> {
        if message.top_level_meta {
            return Err(RpcError::invalid_params(
                "_meta belongs in params",
                serde_json::json!({ "field": "_meta", "expected": "params._meta" }),
            ));
        }
        if message.method == "initialize" && era.bare_is_legacy {
            negotiate::check_initialize(message.params.as_ref())?;
        }
        negotiate::revision_of(message, era)
    }

    /// The `x-mcp-header` annotations of a tool: (header name, property name). A tool the
    /// caller does not see has none: it is answered as one that does not exist.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn tool_headers(
        &self,
        name: &str,
        caller: &Extensions,
    ) -> Option<&[(String, Arc<str>)]> {
        visible::visible_tool(&self.0, name, caller).map(|t| t.headers.as_slice())
    }

    /// Whether a tool's `x-mcp-header` annotations are faulty (served under
    /// [`HeaderFaultPolicy::RefuseCalls`](crate::HeaderFaultPolicy), every call refused as internal).
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn tool_has_header_fault(&self, name: &str) -> bool {
        self.0
            .catalog
            .tool(name)
            .is_some_and(|t| t.header_fault.is_some())
    }
}
