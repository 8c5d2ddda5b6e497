//! What every clone of a [`Server`](super::Server) shares: the current snapshot of the
//! validated catalog and the configuration the method table reads, swapped whole by a change.

use crate::catalog::cursor::CursorCodec;
use crate::catalog::validated::{Rules, ValidatedCatalog};
use crate::catalog::CatalogView;
#[cfg(feature = "connectome")]
use crate::connectome::observed::Collector;
use crate::dispatch::Dispatch;
use crate::protocol::{CacheHint, CacheHints, Cacheable, Envelope, ServerInfo};
use arc_swap::ArcSwap;
use serde_json::{Map, Value};
use std::sync::{Arc, Mutex};

/// The cell every clone of a server reads its current snapshot from.
pub(crate) struct Live {
    /// Read without a lock by every request (one atomic load); replaced whole by a change.
    pub(crate) current: ArcSwap<Inner>,
    /// Held by the one change being applied, so two changes never build on one snapshot and
    /// lose one. Never taken on the request path.
    pub(crate) writer: Mutex<()>,
}

/// One snapshot of the server: a request routes on the one it loaded, to its end (a request in
/// flight when a change lands finishes on the catalog it started with).
#[derive(Clone)]
pub(crate) struct Inner {
    pub(crate) catalog: ValidatedCatalog,
    /// 0 at startup, one more per change applied.
    pub(crate) generation: u64,
    /// What a change is validated against beside its items.
    pub(crate) rules: Rules,
    /// The host's per-caller view, when it configured one.
    pub(crate) view: Option<Arc<dyn CatalogView>>,
    pub(crate) dispatch: Option<Arc<dyn Dispatch>>,
    pub(crate) info: ServerInfo,
    pub(crate) envelope: Envelope,
    pub(crate) instructions: Option<String>,
    /// The MCP extensions declared, by identifier: `capabilities.extensions` at 2026-07-28.
    pub(crate) extensions: Map<String, Value>,
    pub(crate) cache_hints: CacheHints,
    pub(crate) page_size: usize,
    /// Steps one request's general-schema validation may take.
    pub(crate) validation_budget: u64,
    pub(crate) cursors: CursorCodec,
    #[cfg(feature = "connectome")]
    pub(crate) collector: Option<Collector>,
}

impl Inner {
    /// The cache hint of a result whose content the caller's view decides (a list, a read): as
    /// configured, but `private` (its ttl kept) under a view, where what the result holds
    /// depends on who asked and no shared cache may keep it.
    pub(crate) fn viewed_cache_hint(&self, cacheable: Cacheable) -> CacheHint {
        let hint = self.cache_hints.get(cacheable);
        match self.view {
            Some(_) => CacheHint::private(hint.ttl()),
            None => hint,
        }
    }
}
