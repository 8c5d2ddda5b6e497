//! The dispatch contract: the one function through which the host does the work of a tool.

use crate::protocol::Revision;
use crate::schema::Arguments;
use crate::BoxFuture;
use std::fmt;
use std::future::Future;
use std::sync::Arc;

/// One validated tool call, as the host receives it.
#[derive(Debug, Clone)]
pub struct ToolCall {
    /// The tool's name (the catalog's own `Arc`, not the caller's string).
    pub tool: Arc<str>,
    /// The arguments, keyed by the schema's own property names, values untouched.
    pub arguments: Arguments,
    /// Where the call came from.
    pub context: CallContext,
}

/// What the host may know about a call's origin. Self-reported client data is not included:
/// the specification says servers should not act on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CallContext {
    /// The revision the request was served at.
    pub revision: Revision,
    /// The carrier.
    pub carrier: Carrier,
}

/// The transport a request arrived on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Carrier {
    /// Newline-delimited JSON over stdin/stdout: dual-era.
    Stdio,
    /// Stateless Streamable HTTP: 2026-07-28 and, unless the service serves 2026-07-28 only,
    /// 2025-11-25.
    Http,
    /// A `Dispatch` message from a host actor.
    Host,
}

/// A tool's successful output: text content only.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ToolOutput {
    pub(crate) texts: Vec<String>,
}

impl ToolOutput {
    /// One text block.
    pub fn text(text: impl Into<String>) -> Self {
        ToolOutput {
            texts: vec![text.into()],
        }
    }

    /// Adds another text block.
    #[must_use]
    pub fn and_text(mut self, text: impl Into<String>) -> Self {
        self.texts.push(text.into());
        self
    }

    /// The text blocks.
    pub fn texts(&self) -> &[String] {
        &self.texts
    }
}

/// A tool's own failure. The client sees it as a result with `isError: true` and the message
/// as text, so a model can read it and correct itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolError {
    message: String,
}

impl ToolError {
    /// A failure with a message the client may see.
    pub fn new(message: impl Into<String>) -> Self {
        ToolError {
            message: message.into(),
        }
    }

    /// The message.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ToolError {}

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
