//! JSON-RPC 2.0 messages: what one frame decodes into ([`Incoming`] and its members), the
//! request id both directions carry, and why a frame is refused ([`FrameError`]).
//!
//! Reading a frame is `decode` (`protocol/decode.rs`), writing an answer `encode_result` and
//! `encode_error` (`protocol/encode.rs`); the JSON beneath both refuses a repeated member at
//! any depth (`strict_json.rs`).

use super::error::RpcError;
use serde::Serialize;
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::fmt;

/// The longest string request id accepted, in bytes: every answer echoes it.
pub const MAX_ID_BYTES: usize = 256;

/// A request id: a string or an integer, as MCP allows (never null, never fractional).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(untagged)]
pub enum RequestId {
    /// An integer id.
    Number(serde_json::Number),
    /// A string id.
    String(String),
}

impl RequestId {
    /// The id `value` is, when it is one: a string of at most [`MAX_ID_BYTES`], or an integer
    /// (JSON Schema's integer includes `1.0` and `1e2`; the id keeps the form it was written
    /// in, so it is echoed as it came).
    pub fn from_value(value: Value) -> Option<RequestId> {
        match value {
            Value::String(s) if s.len() <= MAX_ID_BYTES => Some(RequestId::String(s)),
            Value::Number(n) if n.is_i64() || n.is_u64() => Some(RequestId::Number(n)),
            Value::Number(n)
                if n.as_f64()
                    .is_some_and(|f| f.fract() == 0.0 && f.abs() < 9.007_199_254_740_992e15) =>
            {
                Some(RequestId::Number(n))
            }
            _ => None,
        }
    }
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequestId::Number(n) => write!(f, "{n}"),
            RequestId::String(s) => write!(f, "{s:?}"),
        }
    }
}

/// One decoded message: a request when `id` is present, a notification otherwise.
///
/// Borrowed from the frame where it can be: the method, a tool's or prompt's `name` and the
/// requested revision are slices of the bytes unless they carry escapes. What the core reads
/// by name has a typed member; everything else a method may read stays in a JSON map.
#[derive(Debug, Clone, PartialEq)]
pub struct Incoming<'a> {
    /// The id; `None` for a notification.
    pub id: Option<RequestId>,
    /// The method name.
    pub method: Cow<'a, str>,
    /// The params object, when present.
    pub params: Option<Params<'a>>,
    /// Whether the message carried a `_meta` member at its top level (refused by the core:
    /// the schema's one position for `_meta` is inside `params`).
    pub top_level_meta: bool,
}

impl Incoming<'_> {
    /// Whether this message is a notification (no id, so no response).
    pub fn is_notification(&self) -> bool {
        self.id.is_none()
    }

    /// `params._meta`, when present and an object.
    pub fn meta(&self) -> Option<&Meta<'_>> {
        match self.params.as_ref()?.meta.as_ref()? {
            Member::Object(meta) => Some(meta),
            Member::Other(_) => None,
        }
    }
}

/// A member the core expects to be a string: borrowed from the frame when it has no escapes,
/// kept as the value it is otherwise (for the refusal to say what was wrong).
#[derive(Debug, Clone, PartialEq)]
pub enum Text<'a> {
    /// A string.
    Str(Cow<'a, str>),
    /// Any other JSON value, null included.
    Other(Value),
}

impl Text<'_> {
    /// The string, when the member is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Text::Str(s) => Some(s),
            Text::Other(_) => None,
        }
    }
}

/// A member the core expects to be an object: read into `T`, or kept as the value it is.
#[derive(Debug, Clone, PartialEq)]
pub enum Member<T> {
    /// An object.
    Object(T),
    /// Any other JSON value, null included.
    Other(Value),
}

/// `params`: the members the core reads on every call typed, the rest as JSON.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Params<'a> {
    /// `name` (`tools/call`, `prompts/get`).
    pub name: Option<Text<'a>>,
    /// `arguments` (`tools/call`, `prompts/get`), null included.
    pub arguments: Option<Value>,
    /// `_meta`.
    pub meta: Option<Member<Meta<'a>>>,
    /// Every other member (`uri`, `cursor`, `ref`, `argument`, `context`, …).
    pub rest: Map<String, Value>,
}

impl Params<'_> {
    /// A member that must be a string, when it is one.
    pub fn text(&self, field: &str) -> Option<&str> {
        match field {
            "name" => self.name.as_ref()?.as_str(),
            _ => self.rest.get(field)?.as_str(),
        }
    }
}

/// `params._meta`: the revision and the client's capabilities typed, the rest as JSON.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Meta<'a> {
    /// `io.modelcontextprotocol/protocolVersion`.
    pub protocol_version: Option<Text<'a>>,
    /// `io.modelcontextprotocol/clientCapabilities`.
    pub client_capabilities: Option<Value>,
    /// Every other member (`clientInfo`, `logLevel`, `progressToken`, a host's own keys…).
    pub rest: Map<String, Value>,
}

/// The `_meta` key naming the requested revision.
pub(crate) const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// The `_meta` key carrying the client's capabilities.
pub(crate) const META_CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// The prefix of every `_meta` key MCP itself defines.
pub(crate) const META_PREFIX: &str = "io.modelcontextprotocol/";

impl Meta<'_> {
    /// Whether any member speaks the modern vocabulary (a key under [`META_PREFIX`]).
    pub fn speaks_modern(&self) -> bool {
        self.protocol_version.is_some()
            || self.client_capabilities.is_some()
            || self.rest.keys().any(|k| k.starts_with(META_PREFIX))
    }

    /// A member other than the two typed ones.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.rest.get(key)
    }
}

/// Why a frame could not be decoded into an [`Incoming`] message.
#[derive(Debug, Clone, PartialEq)]
pub struct FrameError {
    /// The id, when the frame was readable far enough to have one.
    pub id: Option<RequestId>,
    /// The error to answer with (-32700 or -32600).
    pub error: RpcError,
}
