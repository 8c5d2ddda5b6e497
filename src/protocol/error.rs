//! JSON-RPC error objects and the codes MCP gives them.

use super::codes;
use super::outcome::{Kind, Refused, Unserved};
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::fmt;

/// A JSON-RPC error object: `code`, `message` and optional `data`.
#[derive(Debug, Clone, PartialEq)]
pub struct RpcError {
    code: i64,
    message: Cow<'static, str>,
    data: Option<Value>,
    /// What kind of refusal this is, said where it is made (never read back from the text).
    kind: Kind,
}

impl RpcError {
    /// An error with a code and a message.
    pub fn new(code: i64, message: impl Into<Cow<'static, str>>) -> Self {
        RpcError {
            code,
            message: message.into(),
            data: None,
            kind: Kind::of_code(code),
        }
    }

    /// The same error, of a kind more precise than its code says.
    pub(crate) fn of_kind(mut self, kind: Kind) -> Self {
        self.kind = kind;
        self
    }

    /// -32603 for a valid request the runtime could not serve now, the reason as data.
    pub(crate) fn unserved(reason: Unserved) -> Self {
        Self::internal()
            .with_data(serde_json::json!({ "reason": reason.as_str() }))
            .of_kind(Kind::Unserved(reason))
    }

    /// The typed refusal this error is.
    pub(crate) fn refused(&self) -> Refused {
        Refused::new(self.code, self.kind)
    }

    /// The same error carrying `data`.
    #[must_use]
    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }

    /// -32700.
    pub fn parse_error(detail: impl fmt::Display) -> Self {
        Self::new(codes::PARSE_ERROR, "Parse error").with_data(Value::String(detail.to_string()))
    }

    /// -32600 with a reason as data.
    pub fn invalid_request(reason: impl Into<Cow<'static, str>>) -> Self {
        let reason = reason.into();
        Self::new(codes::INVALID_REQUEST, "Invalid request")
            .with_data(Value::String(reason.into_owned()))
    }

    /// -32601 naming the method.
    pub fn method_not_found(method: &str) -> Self {
        Self::new(codes::METHOD_NOT_FOUND, "Method not found")
            .with_data(serde_json::json!({ "method": method }))
    }

    /// -32602 with data.
    pub fn invalid_params(message: impl Into<Cow<'static, str>>, data: Value) -> Self {
        Self::new(codes::INVALID_PARAMS, message).with_data(data)
    }

    /// -32603 with no detail: internal causes go to the log, not to the caller.
    pub fn internal() -> Self {
        Self::new(codes::INTERNAL_ERROR, "Internal error")
    }

    /// The error code.
    pub fn code(&self) -> i64 {
        self.code
    }

    /// The message.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The data member, if any.
    pub fn data(&self) -> Option<&Value> {
        self.data.as_ref()
    }

    /// The error object as it goes on the wire: every string in it (the message, and each
    /// string anywhere in `data`) cut to [`MAX_ECHO_BYTES`], so that a refusal which names a
    /// caller's key, uri or tool costs a bounded answer, not one proportional to the input.
    pub(crate) fn to_value(&self) -> Value {
        let mut m = Map::with_capacity(3);
        m.insert("code".into(), Value::from(self.code));
        m.insert("message".into(), Value::String(bounded(&self.message)));
        if let Some(d) = &self.data {
            m.insert("data".into(), bounded_value(d));
        }
        Value::Object(m)
    }

    /// The same error as [`RpcError::to_value`] sends it: the message and every string of
    /// `data` cut to [`MAX_ECHO_BYTES`]; the code and the kind kept.
    pub(crate) fn into_sent(self) -> Self {
        let bounded_message = self.message.len() > MAX_ECHO_BYTES;
        RpcError {
            code: self.code,
            message: if bounded_message {
                Cow::Owned(bounded(&self.message))
            } else {
                self.message
            },
            data: self.data.as_ref().map(bounded_value),
            kind: self.kind,
        }
    }
}

/// The longest string a JSON-RPC error carries, in bytes; longer ones end in `…` at a char
/// boundary at or below it.
pub const MAX_ECHO_BYTES: usize = 1024;

/// `s`, cut to [`MAX_ECHO_BYTES`] (plus the three bytes of `…`) at a char boundary.
pub(crate) fn bounded(s: &str) -> String {
    if s.len() <= MAX_ECHO_BYTES {
        return s.to_owned();
    }
    let mut end = MAX_ECHO_BYTES;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &s[..end])
}

fn bounded_value(v: &Value) -> Value {
    match v {
        Value::String(s) => Value::String(bounded(s)),
        Value::Array(items) => Value::Array(items.iter().map(bounded_value).collect()),
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, v)| (bounded(k), bounded_value(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

impl fmt::Display for RpcError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "JSON-RPC error {}: {}", self.code, self.message)
    }
}

impl std::error::Error for RpcError {}
