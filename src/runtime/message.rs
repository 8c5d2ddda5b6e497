//! The messages a host sends the runtime, and what it gets back: plain data.

use crate::content::Content;
use crate::extensions::Extensions;
use crate::protocol::outcome::{RefusalReason, Refused};
use crate::protocol::RpcError;
use crate::server::Reply;
use ractor::RpcReplyPort;
use serde_json::Value;
use std::fmt;

#[cfg(feature = "cluster")]
mod wire;
// Used by the observed-graph pull, which needs the connectome too.
#[cfg(all(feature = "cluster", feature = "connectome"))]
pub(crate) use wire::forward_bytes;
#[cfg(feature = "cluster")]
pub use wire::DISPATCH_VARIANT;

/// What a host actor may send the runtime's dispatcher (see
/// [`ApplicationRef::dispatcher`](super::ApplicationRef::dispatcher)).
///
/// Every field but `extensions` is plain data (strings, JSON values, a reply port). With the
/// `cluster` feature the message has a wire encoding (`runtime::cluster`, "What crosses a
/// node"), and a host actor on another node can send it to this runtime's catalog actor; the
/// extensions are in-process values and do not cross: a remote dispatch runs with none.
#[derive(Debug)]
#[non_exhaustive]
pub enum ApplicationMsg {
    /// Call `tool` with `arguments`, validated exactly as a `tools/call` off a wire, and run
    /// in the dispatch pool. The answer goes to `reply`.
    Dispatch {
        /// The tool's name.
        tool: String,
        /// The arguments object (`null` counts as `{}`).
        arguments: Value,
        /// What the host attaches to the call (the principal it acts for, say); the tool reads
        /// them as [`crate::CallContext::extensions`]. `Extensions::new()` for none.
        extensions: Extensions,
        /// Where the answer goes.
        reply: RpcReplyPort<DispatchResult>,
    },
}

/// The answer to a host dispatch.
pub type DispatchResult = Result<ToolReply, DispatchError>;

/// A tool's answer: its content blocks (and their texts), its structured result, and whether
/// the tool reported a failure (a tool error or a panic, which the client side of MCP sees as
/// `isError: true`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolReply {
    texts: Vec<String>,
    content: Vec<Value>,
    structured: Option<Value>,
    is_error: bool,
}

impl ToolReply {
    /// The text of each text block, in order.
    pub fn texts(&self) -> &[String] {
        &self.texts
    }

    /// Every content block, in order, in its wire form (images and audio base64-encoded).
    pub fn content(&self) -> &[Value] {
        &self.content
    }

    /// The structured result (`structuredContent`), if the tool returned one.
    pub fn structured(&self) -> Option<&Value> {
        self.structured.as_ref()
    }

    /// Whether the tool failed (`isError: true`).
    pub fn is_error(&self) -> bool {
        self.is_error
    }
}

/// A dispatch refused before or instead of running the tool: an unknown tool, invalid
/// arguments, an overloaded pool, an expired deadline, a runtime shutting down.
///
/// It carries the JSON-RPC error the same request would have earned over a wire, and the typed
/// [`Refused`] the core made it with: the `is_*` predicates read that, never the message.
#[derive(Debug, Clone, PartialEq)]
pub struct DispatchError {
    refused: Refused,
    error: RpcError,
}

/// The JSON-RPC error code of a refusal by the runtime itself (overload, deadline, shutdown):
/// -32603, Internal error, with the reason in `data.reason`.
pub const RUNTIME_REFUSAL_CODE: i64 = crate::protocol::codes::INTERNAL_ERROR;

static NULL: Value = Value::Null;

impl DispatchError {
    /// The refusal as the wire carries it: a caller's long tool name or key echoed in the
    /// message or data is cut as it is in the bytes.
    fn of(error: RpcError) -> Self {
        DispatchError {
            refused: error.refused(),
            error: error.into_sent(),
        }
    }

    /// The JSON-RPC error code.
    pub fn code(&self) -> i64 {
        self.error.code()
    }

    /// The JSON-RPC error message.
    pub fn message(&self) -> &str {
        self.error.message()
    }

    /// The JSON-RPC error data (`null` when absent).
    pub fn data(&self) -> &Value {
        self.error.data().unwrap_or(&NULL)
    }

    /// The typed refusal: its code and kind.
    pub fn refused(&self) -> Refused {
        self.refused
    }

    /// Why the runtime could not serve a valid call now, when that is the refusal.
    pub fn reason(&self) -> Option<RefusalReason> {
        self.refused.reason()
    }

    /// The pool's queue was full: retry later.
    pub fn is_overloaded(&self) -> bool {
        self.refused.is_overloaded()
    }

    /// The tool ran past the pool's deadline and was abandoned.
    pub fn is_deadline(&self) -> bool {
        self.refused.is_deadline()
    }

    /// The runtime could not run the work: the pool is restarting or stopped, or the runtime
    /// is shutting down.
    pub fn is_unavailable(&self) -> bool {
        self.refused.is_unavailable()
    }

    /// The arguments did not satisfy the tool's schema (-32602).
    pub fn is_invalid_arguments(&self) -> bool {
        self.refused.is_invalid_arguments()
    }

    /// No tool of that name is listed (-32602 naming the tool).
    pub fn is_unknown_tool(&self) -> bool {
        self.refused.is_unknown_tool()
    }
}

impl fmt::Display for DispatchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "dispatch refused ({}): {}", self.code(), self.message())?;
        if let Some(data) = self.error.data() {
            write!(f, " {data}")?;
        }
        Ok(())
    }
}

impl std::error::Error for DispatchError {}

/// A core reply, as the host's plain-data answer: read from its typed outcome and the tool's
/// own answer, never from the encoded bytes.
pub(crate) fn answer(mut reply: Reply) -> DispatchResult {
    if let Some(error) = reply.take_error() {
        return Err(DispatchError::of(error));
    }
    match reply.take_tool() {
        Some(Ok(out)) => Ok(ToolReply {
            texts: out.texts().map(str::to_owned).collect(),
            content: out.content().iter().map(wire).collect(),
            structured: out.structured,
            is_error: false,
        }),
        Some(Err(e)) => {
            let block = Content::text(e.message());
            Ok(ToolReply {
                texts: vec![e.message().to_owned()],
                content: vec![wire(&block)],
                structured: None,
                is_error: true,
            })
        }
        // Every host dispatch is a tool call on `Carrier::Host`, which carries the tool's
        // answer: a reply without one is the crate's fault, said as such.
        None => {
            tracing::error!(outcome = ?reply.outcome(), "a host dispatch reply carried no answer");
            Err(DispatchError::of(RpcError::internal()))
        }
    }
}

/// A content block in its wire form.
fn wire(block: &Content) -> Value {
    // A content block is strings, numbers and base64: serialising it cannot fail; `null`
    // keeps this total.
    serde_json::to_value(block).unwrap_or(Value::Null)
}

/// The runtime's own refusal of a host dispatch (a remote one whose node went away, say).
#[cfg(feature = "cluster")]
pub(crate) fn unserved(reason: RefusalReason) -> DispatchError {
    DispatchError::of(RpcError::unserved(reason))
}
