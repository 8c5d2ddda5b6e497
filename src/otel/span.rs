//! The request span (feature `otel`): opened when a frame is decoded, parented on the trace
//! context the request carries, attributed as routing learns what the request is, and given
//! its outcome when its reply is made.

use super::context::TransportContext;
use super::traceparent::remote_parent;
use crate::dispatch::Carrier;
use crate::protocol::methods::METHODS;
use crate::protocol::outcome::Outcome;
use crate::protocol::{bounded, Incoming, RequestId, Revision, RpcError};
use opentelemetry::trace::{SpanContext, TraceContextExt as _};
use serde_json::Value;
use std::future::Future;
use tracing::field::Empty;
use tracing::Instrument as _;
use tracing_opentelemetry::OpenTelemetrySpanExt as _;

/// The `tracing` target of the span opened for every MCP request and notification (the
/// OpenTelemetry semantic conventions' MCP server span; [`crate::otel`] lists its name and
/// attributes). The dispatch span ([`crate::DISPATCH_TARGET`]) of a tool call opens beneath it.
pub const REQUEST_TARGET: &str = "beam_mcp::request";

/// The span name of a method outside the MCP method table: OpenTelemetry's fallback value, so
/// that a caller cannot grow the set of span names.
const OTHER: &str = "_OTHER";

/// One request's span. Cloning it is cloning the [`tracing::Span`] handle: the span closes
/// when the last clone goes. [`RequestSpan::none`] and a span no subscriber wants record
/// nothing and cost nothing past the check.
#[derive(Debug, Clone)]
pub(crate) struct RequestSpan(tracing::Span);

impl RequestSpan {
    /// No span: a host's own dispatch (`Carrier::Host`), which is not an MCP request.
    pub(crate) fn none() -> Self {
        RequestSpan(tracing::Span::none())
    }

    /// Opens the span of the decoded message `m`, arrived on `carrier`, parented on the trace
    /// context in its `params._meta`, else on the one in `beside()` (the HTTP headers), which
    /// is a link when both are present. `beside` is called only when the span is recorded.
    pub(crate) fn open<'a>(
        m: &Incoming<'_>,
        carrier: Carrier,
        beside: impl FnOnce() -> TransportContext<'a>,
    ) -> Self {
        let transport = match carrier {
            Carrier::Stdio => "pipe",
            Carrier::Http => "tcp",
            Carrier::Host => return RequestSpan::none(),
        };
        let span = tracing::info_span!(
            target: REQUEST_TARGET,
            "mcp.request",
            "otel.name" = Empty,
            "otel.kind" = "server",
            "otel.status_code" = Empty,
            "otel.status_description" = Empty,
            "mcp.method.name" = Empty,
            "mcp.protocol.version" = Empty,
            "jsonrpc.request.id" = Empty,
            "network.transport" = transport,
            "network.protocol.name" = Empty,
            "network.protocol.version" = Empty,
            "gen_ai.operation.name" = Empty,
            "gen_ai.tool.name" = Empty,
            "gen_ai.prompt.name" = Empty,
            "mcp.resource.uri" = Empty,
            "error.type" = Empty,
            "rpc.response.status_code" = Empty,
        );
        if span.is_disabled() {
            return RequestSpan(span);
        }
        let method: &str = &m.method;
        let name = METHODS
            .iter()
            .find(|known| **known == method)
            .map_or(OTHER, |k| k);
        span.record("otel.name", name);
        span.record("mcp.method.name", bounded(method));
        if let Some(id) = &m.id {
            span.record("jsonrpc.request.id", id_text(id));
        }
        let beside = beside();
        if let Some(version) = beside.http_version {
            span.record("network.protocol.name", "http");
            span.record("network.protocol.version", version);
        }
        let meta = m.meta();
        let text = |key: &str| meta.and_then(|meta| meta.get(key)).and_then(Value::as_str);
        let from_meta = text("traceparent").and_then(|tp| remote_parent(tp, text("tracestate")));
        let from_headers = beside
            .traceparent
            .and_then(|tp| remote_parent(tp, beside.tracestate.as_deref()));
        let (parent, link) = match (from_meta, from_headers) {
            (Some(meta), headers) => (Some(meta), headers),
            (None, headers) => (headers, None),
        };
        if let Some(parent) = parent {
            // Refused only when no OpenTelemetry layer is there to take it: then there is no
            // OpenTelemetry span to parent either.
            let _ = span.set_parent(remote(parent));
        }
        if let Some(link) = link {
            span.add_link(link);
        }
        RequestSpan(span)
    }

    /// The revision the request is served at.
    pub(crate) fn revision(&self, revision: Revision) {
        self.0.record("mcp.protocol.version", revision.as_str());
    }

    /// The request calls `tool`, the catalog's name of a tool the caller sees.
    pub(crate) fn tool(&self, tool: &str) {
        if self.0.is_disabled() {
            return;
        }
        self.0.record("otel.name", format!("tools/call {tool}"));
        self.0.record("gen_ai.tool.name", tool);
        self.0.record("gen_ai.operation.name", "execute_tool");
    }

    /// The request renders `prompt`, the catalog's name of a prompt the caller sees.
    pub(crate) fn prompt(&self, prompt: &str) {
        if self.0.is_disabled() {
            return;
        }
        self.0.record("otel.name", format!("prompts/get {prompt}"));
        self.0.record("gen_ai.prompt.name", prompt);
    }

    /// The request reads `uri`, which the caller may read.
    pub(crate) fn resource(&self, uri: &str) {
        if self.0.is_disabled() {
            return;
        }
        self.0.record("mcp.resource.uri", bounded(uri));
    }

    /// What the request's reply answers (`error`: the refusal's error object, when the reply
    /// is one): a tool error or a refusal is the span's error. Entered while it records, so
    /// that the span ends now (its end is its last exit).
    pub(crate) fn answered(&self, outcome: Outcome, error: Option<&RpcError>) {
        if self.0.is_disabled() {
            return;
        }
        let _now = self.0.enter();
        match (outcome, error) {
            (Outcome::Result, _) => {}
            (Outcome::ToolError, _) => self.failed("tool_error", None),
            (Outcome::Refused(_), Some(error)) => self.refused(error),
            (Outcome::Refused(refused), None) => {
                let code = refused.code().to_string();
                self.0.record("rpc.response.status_code", code.as_str());
                self.failed(&code, None);
            }
        }
    }

    /// A refusal made outside the core (the HTTP transport's, after decoding).
    pub(crate) fn refused(&self, error: &RpcError) {
        if self.0.is_disabled() {
            return;
        }
        let code = error.code().to_string();
        self.0.record("rpc.response.status_code", code.as_str());
        self.failed(&code, Some(error.message()));
    }

    /// The request's work was dropped before it answered: its caller cancelled it or left.
    pub(crate) fn cancelled(&self) {
        if self.0.is_disabled() {
            return;
        }
        let _now = self.0.enter();
        self.failed("cancelled", None);
    }

    fn failed(&self, kind: &str, description: Option<&str>) {
        self.0.record("error.type", kind);
        self.0.record("otel.status_code", "error");
        if let Some(description) = description {
            self.0
                .record("otel.status_description", bounded(description));
        }
    }

    /// `work`, entered into the span at every poll: spans it opens (the dispatch span) are
    /// its children.
    pub(crate) fn around<F: Future>(&self, work: F) -> impl Future<Output = F::Output> {
        work.instrument(self.0.clone())
    }
}

/// `jsonrpc.request.id`: an integer's digits, a string as it is (not quoted).
fn id_text(id: &RequestId) -> String {
    match id {
        RequestId::Number(n) => n.to_string(),
        RequestId::String(s) => s.clone(),
    }
}

/// An OpenTelemetry context whose span is the remote `parent`.
fn remote(parent: SpanContext) -> opentelemetry::Context {
    opentelemetry::Context::new().with_remote_span_context(parent)
}
