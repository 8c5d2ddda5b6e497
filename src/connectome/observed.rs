//! The observed graph: what did happen.
//!
//! A host starts a [`Collector`] (or its actor, [`CollectorActor`]), attaches it, and the one
//! dispatch site calls [`Collector::record_dispatch`] with the tool's name. The optional
//! [`EdgeLayer`] records module-level edges between `tracing` span targets into the same
//! collector. Edge identity only: no argument, result or field value is ever read or kept.
//! Threat model and costs: `docs/connectome-observed.md`.

mod actor;
mod collector;
mod layer;

pub use actor::{CollectorActor, CollectorMsg};
pub use collector::{Collector, DEFAULT_MAX_EDGES};
pub use layer::EdgeLayer;

/// The `tracing` target of the dispatch span (the same as [`crate::DISPATCH_TARGET`]).
pub const DISPATCH_TARGET: &str = crate::dispatch::DISPATCH_TARGET;

/// A span for the one dispatch site, carrying the tool's name (edge identity) and nothing else:
/// the span the core enters around every tool call.
pub fn dispatch_span(tool: &str) -> tracing::Span {
    crate::dispatch::dispatch_span(tool)
}
