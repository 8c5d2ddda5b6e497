//! The messages a host sends the runtime, and what it gets back: plain data.

use crate::server::Reply;
use ractor::RpcReplyPort;
use serde_json::Value;
use std::fmt;

/// What a host actor may send the runtime's dispatcher (see
/// [`RuntimeHandle::dispatcher`](super::RuntimeHandle::dispatcher)).
///
/// Every field is plain data (strings, JSON values, a reply port), so that a cluster
/// transport can carry the message between nodes later.
#[derive(Debug)]
pub enum RuntimeMsg {
    /// Call `tool` with `arguments`, validated exactly as a `tools/call` off a wire, and run
    /// in the dispatch pool. The answer goes to `reply`.
    Dispatch {
        /// The tool's name.
        tool: String,
        /// The arguments object (`null` counts as `{}`).
        arguments: Value,
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
/// It carries the JSON-RPC error the same request would have earned over a wire.
#[derive(Debug, Clone, PartialEq)]
pub struct DispatchError {
    code: i64,
    message: String,
    data: Value,
}

/// The JSON-RPC error code of a refusal by the runtime itself (overload, deadline, shutdown):
/// -32603, Internal error, with the reason in `data.reason`.
pub const RUNTIME_REFUSAL_CODE: i64 = crate::protocol::codes::INTERNAL_ERROR;

impl DispatchError {
    /// The JSON-RPC error code.
    pub fn code(&self) -> i64 {
        self.code
    }

    /// The JSON-RPC error message.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The JSON-RPC error data (`null` when absent).
    pub fn data(&self) -> &Value {
        &self.data
    }

    fn reason(&self) -> Option<&str> {
        if self.code != RUNTIME_REFUSAL_CODE {
            return None;
        }
        self.data.get("reason").and_then(Value::as_str)
    }

    /// The pool's queue was full: retry later.
    pub fn is_overloaded(&self) -> bool {
        self.reason() == Some(super::pool::OVERLOADED)
    }

    /// The tool ran past the pool's deadline and was abandoned.
    pub fn is_deadline(&self) -> bool {
        self.reason() == Some(super::pool::DEADLINE)
    }

    /// The runtime could not run the work: the pool is restarting or stopped.
    pub fn is_unavailable(&self) -> bool {
        matches!(
            self.reason(),
            Some(super::pool::UNAVAILABLE | super::pool::SHUTTING_DOWN)
        )
    }

    /// The arguments did not satisfy the tool's schema (-32602).
    pub fn is_invalid_arguments(&self) -> bool {
        self.code == crate::protocol::codes::INVALID_PARAMS && self.message == "Invalid arguments"
    }

    /// No tool of that name is listed (-32602 naming the tool).
    pub fn is_unknown_tool(&self) -> bool {
        self.code == crate::protocol::codes::INVALID_PARAMS
            && self.message.starts_with("Unknown tool")
    }
}

impl fmt::Display for DispatchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "dispatch refused ({}): {}", self.code, self.message)?;
        if !self.data.is_null() {
            write!(f, " {}", self.data)?;
        }
        Ok(())
    }
}

impl std::error::Error for DispatchError {}

/// Reads a core reply back into the host's plain-data answer.
pub(crate) fn decode_reply(reply: &Reply) -> DispatchResult {
    let value: Value = match serde_json::from_slice(reply.bytes()) {
        Ok(v) => v,
        Err(_) => return Err(internal("unreadable reply")),
    };
    if let Some(error) = value.get("error") {
        return Err(DispatchError {
            code: error
                .get("code")
                .and_then(Value::as_i64)
                .unwrap_or(RUNTIME_REFUSAL_CODE),
            message: error
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned(),
            data: error.get("data").cloned().unwrap_or(Value::Null),
        });
    }
    let mut value = value;
    let mut result = match value.get_mut("result").map(Value::take) {
        Some(Value::Object(r)) => r,
        _ => serde_json::Map::new(),
    };
    let content = match result.remove("content") {
        Some(Value::Array(blocks)) => blocks,
        _ => Vec::new(),
    };
    let texts = content
        .iter()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
        .filter_map(|b| b.get("text").and_then(Value::as_str).map(str::to_owned))
        .collect();
    let is_error = result
        .get("isError")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    Ok(ToolReply {
        texts,
        content,
        structured: result.remove("structuredContent"),
        is_error,
    })
}

pub(crate) fn internal(reason: &'static str) -> DispatchError {
    DispatchError {
        code: RUNTIME_REFUSAL_CODE,
        message: "Internal error".into(),
        data: serde_json::json!({ "reason": reason }),
    }
}
