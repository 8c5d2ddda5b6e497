//! The optional `tracing` layer: module-level edges between span targets.

use tracing::span::{Attributes, Id};
use tracing::Subscriber;
use tracing_subscriber::layer::Context;
use tracing_subscriber::registry::LookupSpan;
use tracing_subscriber::Layer;

use super::collector::Collector;

/// A [`Layer`] recording, for each new span with a parent of another target, the edge
/// `module:PARENT_TARGET` → `module:CHILD_TARGET` into a [`Collector`]. It reads span
/// metadata only — never a field value. Off unless the host adds it to its subscriber, and
/// silent while the collector is detached.
///
/// ```
/// use beam_mcp::connectome::observed::{Collector, EdgeLayer};
/// use tracing_subscriber::layer::SubscriberExt;
/// let collector = Collector::new();
/// collector.attach();
/// let subscriber = tracing_subscriber::registry().with(EdgeLayer::new(collector.clone()));
/// tracing::subscriber::with_default(subscriber, || {
///     let _outer = tracing::info_span!(target: "host::api", "outer").entered();
///     let _inner = tracing::info_span!(target: "host::db", "inner").entered();
/// });
/// assert_eq!(collector.snapshot().edge_count(), 1);
/// ```
#[derive(Debug, Clone)]
pub struct EdgeLayer {
    collector: Collector,
}

impl EdgeLayer {
    /// A layer recording into `collector`.
    pub fn new(collector: Collector) -> Self {
        EdgeLayer { collector }
    }
}

impl<S> Layer<S> for EdgeLayer
where
    S: Subscriber + for<'a> LookupSpan<'a>,
{
    fn on_new_span(&self, _attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        if !self.collector.is_attached() {
            return;
        }
        let Some(span) = ctx.span(id) else { return };
        let Some(parent) = span.parent() else { return };
        let (from, to) = (parent.metadata().target(), span.metadata().target());
        if from != to {
            self.collector.record_module_edge(from, to);
        }
    }
}
