//! The dispatch contract: the one function through which the host does the work of a tool,
//! the call it receives, and the typed values (`Extensions`) a host attaches to a call.

use crate::content::Content;
use crate::protocol::Revision;
use crate::schema::Arguments;
use serde_json::Value;
use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::sync::Arc;
pub use tokio_util::sync::CancellationToken;

/// A boxed, sendable future: what the host callbacks return.
pub type BoxFuture<T> = std::pin::Pin<Box<dyn std::future::Future<Output = T> + Send + 'static>>;

/// One validated tool call, as the host receives it.
///
/// `#[non_exhaustive]`: read its fields; build one (to test a tool) with [`ToolCall::new`].
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ToolCall {
    /// The tool's name (the catalog's own `Arc`, not the caller's string).
    pub tool: Arc<str>,
    /// The arguments, keyed by the schema's own property names, values untouched.
    pub arguments: Arguments,
    /// Where the call came from, and what the host attached to it.
    pub context: CallContext,
}

impl ToolCall {
    /// A call of `tool` with `arguments` (a host testing its dispatch function; the server
    /// builds its own from a validated request).
    pub fn new(tool: impl Into<Arc<str>>, arguments: Arguments, context: CallContext) -> Self {
        ToolCall {
            tool: tool.into(),
            arguments,
            context,
        }
    }

    /// What the host attached to the call (the principal its authorize hook returned, say).
    pub fn extensions(&self) -> &Extensions {
        &self.context.extensions
    }
}

/// What the host may know about a call's origin: the revision, the carrier, what the host
/// itself attached (its HTTP authorize hook's principal, a stdio connection's context, a host
/// dispatch's extensions), and whether the answer is still wanted. Self-reported client data
/// is not included: the specification says servers should not act on it.
///
/// `#[non_exhaustive]`: read its fields; build one with [`CallContext::new`].
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct CallContext {
    /// The revision the request was served at.
    pub revision: Revision,
    /// The carrier.
    pub carrier: Carrier,
    /// What the host attached to the request, by type.
    pub extensions: Extensions,
    /// Fires when nobody will read the call's answer: the caller cancelled it (stdio
    /// `notifications/cancelled`), went away (an HTTP connection closed, an h2 stream reset),
    /// or the dispatch pool's deadline passed. The host's future is dropped at the same
    /// moment, so a host whose work lives only in its future needs nothing more; the token is
    /// for work it handed elsewhere (a thread, a subprocess, a child task), which it should
    /// stop when the token fires.
    ///
    /// ```
    /// # use beam_mcp::{CallContext, ToolCall, ToolError, ToolOutput};
    /// async fn crunch(call: ToolCall) -> Result<ToolOutput, ToolError> {
    ///     let stop = call.context.cancellation.clone();
    ///     let work = std::thread::spawn(move || {
    ///         let mut n = 0u64;
    ///         while !stop.is_cancelled() && n < 1_000 {
    ///             n += 1;
    ///         }
    ///         n
    ///     });
    ///     let n = work.join().map_err(|_| ToolError::new("the worker failed"))?;
    ///     Ok(ToolOutput::text(n.to_string()))
    /// }
    /// ```
    pub cancellation: CancellationToken,
}

impl CallContext {
    /// A context with no extensions and a cancellation token of its own.
    pub fn new(revision: Revision, carrier: Carrier) -> Self {
        CallContext {
            revision,
            carrier,
            extensions: Extensions::new(),
            cancellation: CancellationToken::new(),
        }
    }

    /// The same context carrying `extensions`.
    #[must_use]
    pub fn with_extensions(mut self, extensions: Extensions) -> Self {
        self.extensions = extensions;
        self
    }
}

/// The `tracing` target of the span the one dispatch site enters around every tool call
/// (named `tools/call`, one field: `tool`). The connectome's collector layer reads it; any
/// subscriber of the host's may filter on it. It is emitted whether or not the `connectome`
/// feature is built.
pub const DISPATCH_TARGET: &str = "beam_mcp::dispatch";

/// The span of the one dispatch site, carrying the tool's name (edge identity) and nothing else.
pub(crate) fn dispatch_span(tool: &str) -> tracing::Span {
    tracing::info_span!(target: DISPATCH_TARGET, "tools/call", tool = tool)
}

/// The transport a request arrived on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Carrier {
    /// Newline-delimited JSON over stdin/stdout: dual-era.
    Stdio,
    /// Stateless Streamable HTTP: 2026-07-28 and, unless the service serves 2026-07-28 only,
    /// 2025-11-25.
    Http,
    /// A `Dispatch` message from a host actor.
    Host,
}

/// A tool's successful output: content blocks in order, and optionally a structured result.
///
/// ```
/// use beam_mcp::content::Content;
/// use beam_mcp::ToolOutput;
/// use serde_json::json;
///
/// let out = ToolOutput::text("Here is the chart:")
///     .and(Content::image(vec![0x89, b'P', b'N', b'G'], "image/png"));
/// assert_eq!(out.content().len(), 2);
///
/// // A structured result, with its serialisation as a text block for older clients.
/// let out = ToolOutput::structured(json!({"celsius": 12}));
/// assert_eq!(out.texts().collect::<Vec<_>>(), [r#"{"celsius":12}"#]);
/// assert_eq!(out.structured_content(), Some(&json!({"celsius": 12})));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ToolOutput {
    pub(crate) content: Vec<Content>,
    pub(crate) structured: Option<Value>,
}

impl ToolOutput {
    /// One text block.
    pub fn text(text: impl Into<String>) -> Self {
        ToolOutput::block(Content::text(text))
    }

    /// One content block of any kind.
    pub fn block(content: Content) -> Self {
        ToolOutput {
            content: vec![content],
            structured: None,
        }
    }

    /// Content blocks, in the order given.
    pub fn blocks(content: impl IntoIterator<Item = Content>) -> Self {
        ToolOutput {
            content: content.into_iter().collect(),
            structured: None,
        }
    }

    /// A structured result (`structuredContent`) and, as the specification asks for clients
    /// that read only `content`, its JSON serialisation as one text block.
    ///
    /// A tool that declares an `output_schema` must return a structured result that conforms
    /// to it. Any JSON value is sent at 2026-07-28; at 2025-11-25, which admits only an
    /// object there, a value that is not one travels as the text block alone. See
    /// [`crate::ToolSpec::with_output_schema`].
    pub fn structured(value: Value) -> Self {
        let text = value.to_string();
        ToolOutput {
            content: vec![Content::text(text)],
            structured: Some(value),
        }
    }

    /// Adds another block after those already there.
    #[must_use]
    pub fn and(mut self, content: Content) -> Self {
        self.content.push(content);
        self
    }

    /// Adds another text block.
    #[must_use]
    pub fn and_text(self, text: impl Into<String>) -> Self {
        self.and(Content::text(text))
    }

    /// Sets the structured result, leaving the content blocks as they are.
    ///
    /// At 2025-11-25 a value that is not a JSON object is not sent (that revision admits only
    /// objects there): what its clients need goes in the content blocks, as
    /// [`ToolOutput::structured`] puts the value's JSON.
    #[must_use]
    pub fn and_structured(mut self, value: Value) -> Self {
        self.structured = Some(value);
        self
    }

    /// The content blocks, in order.
    pub fn content(&self) -> &[Content] {
        &self.content
    }

    /// The text of each text block, in order.
    pub fn texts(&self) -> impl Iterator<Item = &str> {
        self.content.iter().filter_map(Content::as_text)
    }

    /// The structured result, if any.
    pub fn structured_content(&self) -> Option<&Value> {
        self.structured.as_ref()
    }
}

/// A tool's own failure, or the host's fault.
///
/// A tool's own failure ([`ToolError::new`], or `?` on any error type, whose `Display` becomes
/// the message) reaches the client as a result with `isError: true` and the message as text,
/// so a model can read it and correct itself. An internal one ([`ToolError::internal`]) is the
/// host's fault: the client gets -32603 with nothing of the detail, which is logged with the
/// tool's name.
///
/// Like `anyhow::Error`, it converts from every `std::error::Error` and so does not implement
/// that trait itself:
///
/// ```
/// use beam_mcp::ToolError;
///
/// fn parse(text: &str) -> Result<u8, ToolError> {
///     Ok(text.parse::<u8>()?)
/// }
/// assert_eq!(parse("300").unwrap_err().message(), "number too large to fit in target type");
/// assert!(!parse("300").unwrap_err().is_internal());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolError {
    message: String,
    internal: bool,
}

impl ToolError {
    /// A failure with a message the client may see.
    pub fn new(message: impl Into<String>) -> Self {
        ToolError {
            message: message.into(),
            internal: false,
        }
    }

    /// The host's fault, with a detail for its log: the client is answered -32603 and sees
    /// nothing of it.
    pub fn internal(detail: impl Into<String>) -> Self {
        ToolError {
            message: detail.into(),
            internal: true,
        }
    }

    /// The message (for an internal error, the detail that goes to the log).
    pub fn message(&self) -> &str {
        &self.message
    }

    /// Whether this is the host's fault rather than the tool's own failure.
    pub fn is_internal(&self) -> bool {
        self.internal
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl<E: std::error::Error + Send + Sync + 'static> From<E> for ToolError {
    fn from(error: E) -> Self {
        ToolError::new(error.to_string())
    }
}

/// The host's dispatch function: `(tool, arguments, context) -> output or tool error`.
///
/// Implemented for every `Fn(ToolCall) -> impl Future<Output = Result<ToolOutput, ToolError>>`.
///
/// # Cancel safety
/// The future may be dropped before completion when the connection it serves goes away;
/// a host that must finish a side effect regardless spawns it.
pub trait Dispatch: Send + Sync + 'static {
    /// Runs one tool call.
    fn call(&self, call: ToolCall) -> BoxFuture<Result<ToolOutput, ToolError>>;
}

impl<F, Fut> Dispatch for F
where
    F: Fn(ToolCall) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<ToolOutput, ToolError>> + Send + 'static,
{
    fn call(&self, call: ToolCall) -> BoxFuture<Result<ToolOutput, ToolError>> {
        Box::pin(self(call))
    }
}

/// Values a host attached to a request, one per type, read back by type.
///
/// The HTTP transport's asynchronous authorize hook returns one (see
/// `HttpService::authorize_async`), a stdio connection carries one for all its requests, a host
/// dispatch may carry one; it reaches the tool as `CallContext::extensions`, and the
/// resource reader, the prompt renderer and the completer through their context.
///
/// Cheap to clone: the values are shared, not copied (a connection's context is handed to each
/// of its calls). Nothing the caller sends is ever put here by the crate.
///
/// ```
/// use beam_mcp::Extensions;
///
/// #[derive(Debug, PartialEq)]
/// struct Principal(String);
///
/// let mut ext = Extensions::new();
/// ext.insert(Principal("alice".into()));
/// assert_eq!(ext.get::<Principal>(), Some(&Principal("alice".into())));
/// assert_eq!(ext.get::<u32>(), None);
/// ```
#[derive(Clone, Default)]
pub struct Extensions {
    map: Option<Arc<HashMap<TypeId, Entry>>>,
}

#[derive(Clone)]
struct Entry {
    name: &'static str,
    value: Arc<dyn Any + Send + Sync>,
}

impl Extensions {
    /// An empty map (allocates nothing).
    pub fn new() -> Self {
        Extensions { map: None }
    }

    /// Inserts `value`, replacing the value of the same type if there was one; returns whether
    /// one was replaced.
    pub fn insert<T: Send + Sync + 'static>(&mut self, value: T) -> bool {
        let map = Arc::make_mut(self.map.get_or_insert_with(Default::default));
        let entry = Entry {
            name: std::any::type_name::<T>(),
            value: Arc::new(value),
        };
        map.insert(TypeId::of::<T>(), entry).is_some()
    }

    /// The same map with `value` inserted.
    #[must_use]
    pub fn with<T: Send + Sync + 'static>(mut self, value: T) -> Self {
        self.insert(value);
        self
    }

    /// The value of type `T`, if one was inserted.
    pub fn get<T: Send + Sync + 'static>(&self) -> Option<&T> {
        self.map
            .as_ref()?
            .get(&TypeId::of::<T>())?
            .value
            .downcast_ref::<T>()
    }

    /// Whether a value of type `T` was inserted.
    pub fn contains<T: Send + Sync + 'static>(&self) -> bool {
        self.get::<T>().is_some()
    }

    /// Removes the value of type `T`; returns whether there was one.
    pub fn remove<T: Send + Sync + 'static>(&mut self) -> bool {
        match self.map.as_mut() {
            Some(map) => Arc::make_mut(map).remove(&TypeId::of::<T>()).is_some(),
            None => false,
        }
    }

    /// Inserts every value of `other`, replacing those of the same types.
    pub fn extend(&mut self, other: Extensions) {
        let Some(theirs) = other.map else { return };
        if self.is_empty() {
            self.map = Some(theirs);
            return;
        }
        let map = Arc::make_mut(self.map.get_or_insert_with(Default::default));
        for (k, v) in theirs.iter() {
            map.insert(*k, v.clone());
        }
    }

    /// How many values there are.
    pub fn len(&self) -> usize {
        self.map.as_ref().map_or(0, |m| m.len())
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl fmt::Debug for Extensions {
    /// The type names only: a value (a token, a principal) is never printed.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut names: Vec<&str> = self
            .map
            .iter()
            .flat_map(|m| m.values().map(|e| e.name))
            .collect();
        names.sort_unstable();
        f.debug_set().entries(names).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_value_per_type_shared_by_clones() {
        let mut a = Extensions::new();
        assert!(a.is_empty());
        assert!(!a.insert(1u8));
        assert!(a.insert(2u8));
        let b = a.clone().with("s");
        assert_eq!(a.get::<u8>(), Some(&2));
        assert_eq!(
            a.get::<&str>(),
            None,
            "a clone's insert does not reach the original"
        );
        assert_eq!(b.get::<&str>(), Some(&"s"));
        assert_eq!(b.len(), 2);
        let mut c = Extensions::new().with(7u8).with(1u16);
        c.extend(b);
        assert_eq!(
            c.get::<u8>(),
            Some(&2),
            "extend replaces values of the same type"
        );
        assert_eq!(c.get::<u16>(), Some(&1));
        assert!(c.remove::<u16>());
        assert!(!c.remove::<u16>());
        assert_eq!(format!("{c:?}"), r#"{"&str", "u8"}"#);
    }
}
