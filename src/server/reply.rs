//! One encoded response and its typed outcome.

use crate::dispatch::{ToolError, ToolOutput};
use crate::otel::RequestSpan;
use crate::protocol::outcome::Outcome;
use crate::protocol::{encode_error, RequestId, RpcError};

/// One response, encoded and ready for the wire, with its typed [`Outcome`]: what a transport
/// needs to pick a status, and what the runtime hands a host, neither read back from the bytes.
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    bytes: Vec<u8>,
    outcome: Outcome,
    /// The error the bytes encode, when the reply is a refusal (host dispatch reads it).
    error: Option<Box<RpcError>>,
    /// A host [`Carrier::Host`](crate::Carrier::Host) tool call's answer as the tool gave it (host dispatch reads it).
    tool: Option<Box<Result<ToolOutput, ToolError>>>,
}

impl Reply {
    /// A reply whose bytes say `outcome` (a result or a tool error: refusals are
    /// [`Reply::error`]).
    pub(crate) fn new(bytes: Vec<u8>, outcome: Outcome) -> Self {
        Reply {
            bytes,
            outcome,
            error: None,
            tool: None,
        }
    }

    /// A result.
    pub(crate) fn result(bytes: Vec<u8>) -> Self {
        Reply::new(bytes, Outcome::Result)
    }

    pub(crate) fn error(id: Option<&RequestId>, error: RpcError) -> Self {
        Reply {
            bytes: encode_error(id, &error),
            outcome: Outcome::Refused(error.refused()),
            error: Some(Box::new(error)),
            tool: None,
        }
    }

    /// The same reply, carrying the tool's answer for a host dispatch.
    pub(crate) fn with_tool(mut self, answer: Result<ToolOutput, ToolError>) -> Self {
        self.tool = Some(Box::new(answer));
        self
    }

    /// Ends the request's `span` with what this reply answers.
    pub(crate) fn end_span(&self, span: &RequestSpan) {
        span.answered(self.outcome, self.error.as_deref());
    }

    /// The refusal's error object, when the reply is one (taken: the bytes stay).
    pub(crate) fn take_error(&mut self) -> Option<RpcError> {
        self.error.take().map(|b| *b)
    }

    /// The tool's answer, when the reply answers a host dispatch's tool call.
    pub(crate) fn take_tool(&mut self) -> Option<Result<ToolOutput, ToolError>> {
        self.tool.take().map(|b| *b)
    }

    /// The encoded JSON-RPC response (one line, no trailing newline).
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The bytes, owned.
    pub fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }

    /// What the reply answers: a result, a tool error, or a refusal with its kind and code.
    pub fn outcome(&self) -> Outcome {
        self.outcome
    }

    /// The JSON-RPC error code, when the reply is an error.
    pub fn error_code(&self) -> Option<i64> {
        self.outcome.error_code()
    }
}
