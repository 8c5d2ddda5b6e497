//! What every clone of a [`Server`](super::Server) shares: the validated catalog and the
//! configuration the method table reads.

use crate::catalog::cursor::CursorCodec;
use crate::catalog::validated::ValidatedCatalog;
#[cfg(feature = "connectome")]
use crate::connectome::observed::Collector;
use crate::dispatch::Dispatch;
use crate::protocol::{CacheHints, Envelope, ServerInfo};
use serde_json::{Map, Value};
use std::sync::Arc;

/// The server's shared state, behind one `Arc`.
pub(crate) struct Inner {
    pub(crate) catalog: ValidatedCatalog,
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
