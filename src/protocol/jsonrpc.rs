//! JSON-RPC 2.0 framing: one message in, one response out.

use super::depth::{exceeds_depth, MAX_DEPTH};

/// The longest string request id accepted, in bytes: every answer echoes it.
pub const MAX_ID_BYTES: usize = 256;
use super::error::RpcError;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::fmt;

/// A request id: a string or an integer, as MCP allows (never null, never fractional).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(untagged)]
pub enum RequestId {
    /// An integer id.
    Number(serde_json::Number),
    /// A string id.
    String(String),
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
#[derive(Debug, Clone, PartialEq)]
pub struct Incoming {
    /// The id; `None` for a notification.
    pub id: Option<RequestId>,
    /// The method name.
    pub method: String,
    /// The params object, when present.
    pub params: Option<Map<String, Value>>,
    /// Whether the message carried a `_meta` member at its top level (refused by the core:
    /// the schema's one position for `_meta` is inside `params`).
    pub top_level_meta: bool,
}

impl Incoming {
    /// Whether this message is a notification (no id, so no response).
    pub fn is_notification(&self) -> bool {
        self.id.is_none()
    }

    /// `params._meta`, when present and an object.
    pub fn meta(&self) -> Option<&Map<String, Value>> {
        self.params.as_ref()?.get("_meta")?.as_object()
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

// Distinguishes an absent member (None) from one that is present, null included (Some), and
// refuses a repeated key at any depth.
fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    d.deserialize_any(Strict).map(Some)
}

/// Builds a `Value` like serde_json's own, but refuses an object that repeats a key: a
/// repeated `name` or `_meta` read last-wins here and first-wins by a gateway or an
/// `authorize_body` hook would let the two disagree about which tool runs.
struct Strict;

struct StrictValue(Value);

impl<'de> Deserialize<'de> for StrictValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(Strict).map(StrictValue)
    }
}

impl<'de> Visitor<'de> for Strict {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(64));
        while let Some(StrictValue(v)) = seq.next_element()? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            // One walk of the map per key: the slot found vacant is the one filled.
            let slot = match out.entry(key) {
                serde_json::map::Entry::Vacant(slot) => slot,
                serde_json::map::Entry::Occupied(taken) => {
                    return Err(de::Error::custom(format_args!(
                        "duplicate key `{}`",
                        taken.key()
                    )));
                }
            };
            let StrictValue(v) = map.next_value()?;
            slot.insert(v);
        }
        Ok(Value::Object(out))
    }
}

#[derive(Deserialize)]
struct Wire {
    #[serde(default, deserialize_with = "present")]
    jsonrpc: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    id: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    method: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    params: Option<Value>,
    #[serde(rename = "_meta", default, deserialize_with = "present")]
    meta: Option<Value>,
}

/// Decodes one JSON-RPC message.
///
/// The nesting bound is checked on the raw bytes first, so a deeply nested body never
/// reaches the decoder. Batches (a top-level array) are refused: batching was added in
/// 2025-03-26 and removed in 2025-06-18, and neither served revision has it.
///
/// # Errors
/// A [`FrameError`] carrying -32700 (not JSON) or -32600 (a batch, nesting over
/// [`MAX_DEPTH`], a duplicate member, a missing or non-string `method`, `jsonrpc` other than
/// `"2.0"`, an id that is neither a string nor an integer or a string id longer than
/// [`MAX_ID_BYTES`], `params` that is not an object).
///
/// Not API: the core's first step ([`crate::Server::handle`] decodes and routes), reached from
/// outside only by the fuzz targets, through `beam_mcp::__fuzz`.
pub fn decode(bytes: &[u8]) -> Result<Incoming, FrameError> {
    let refuse = |id: Option<RequestId>, reason: &'static str| FrameError {
        id,
        error: RpcError::invalid_request(reason),
    };
    let first = bytes.iter().copied().find(|b| !b.is_ascii_whitespace());
    match first {
        Some(b'[') => return Err(refuse(None, "batch requests are not supported")),
        Some(b'{') => {}
        Some(_) => {
            // A scalar is JSON but not a request; anything else is not JSON at all.
            return Err(match serde_json::from_slice::<IgnoredAny>(bytes) {
                Ok(_) => refuse(None, "a request must be a JSON object"),
                Err(e) => FrameError {
                    id: None,
                    error: RpcError::parse_error(e),
                },
            });
        }
        None => {
            return Err(FrameError {
                id: None,
                error: RpcError::parse_error("empty message"),
            })
        }
    }
    if exceeds_depth(bytes, MAX_DEPTH) {
        return Err(refuse(None, "nesting exceeds 64 levels"));
    }
    let wire: Wire = serde_json::from_slice(bytes).map_err(|e| {
        if e.is_data() {
            FrameError {
                id: None,
                error: RpcError::invalid_request(e.to_string()),
            }
        } else {
            FrameError {
                id: None,
                error: RpcError::parse_error(e),
            }
        }
    })?;
    let id = match wire.id {
        None => None,
        // Every answer echoes the id: a longer one would make any refusal as large as it.
        Some(Value::String(s)) if s.len() > MAX_ID_BYTES => {
            return Err(refuse(None, "id longer than 256 bytes"))
        }
        Some(Value::String(s)) => Some(RequestId::String(s)),
        Some(Value::Number(n)) if n.is_i64() || n.is_u64() => Some(RequestId::Number(n)),
        // JSON Schema's integer includes 1.0 and 1e2; the id is echoed as it was written.
        Some(Value::Number(n))
            if n.as_f64()
                .is_some_and(|f| f.fract() == 0.0 && f.abs() < 9.007_199_254_740_992e15) =>
        {
            Some(RequestId::Number(n))
        }
        Some(_) => return Err(refuse(None, "id must be a string or an integer")),
    };
    match wire.jsonrpc {
        Some(Value::String(v)) if v == "2.0" => {}
        _ => return Err(refuse(id, "jsonrpc must be \"2.0\"")),
    }
    let method = match wire.method {
        Some(Value::String(m)) => m,
        _ => return Err(refuse(id, "method must be a string")),
    };
    let params = match wire.params {
        None => None,
        Some(Value::Object(m)) => Some(m),
        Some(_) => return Err(refuse(id, "params must be an object")),
    };
    Ok(Incoming {
        id,
        method,
        params,
        top_level_meta: wire.meta.is_some(),
    })
}

#[derive(Serialize)]
struct ResultFrame<'a> {
    jsonrpc: &'static str,
    id: &'a RequestId,
    result: &'a Value,
}

#[derive(Serialize)]
struct ErrorFrame<'a> {
    jsonrpc: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<&'a RequestId>,
    error: Value,
}

/// Encodes a success response as one compact JSON line (without the newline).
pub fn encode_result(id: &RequestId, result: &Value) -> Vec<u8> {
    let frame = ResultFrame {
        jsonrpc: "2.0",
        id,
        result,
    };
    // Serialising a Value-backed frame into a Vec cannot fail: every key is a string.
    serde_json::to_vec(&frame).unwrap_or_default()
}

/// Encodes an error response. An unknown id (a frame that could not be read) is omitted, as
/// both revisions' schemas allow, rather than sent as `null`, which neither allows.
pub fn encode_error(id: Option<&RequestId>, error: &RpcError) -> Vec<u8> {
    let frame = ErrorFrame {
        jsonrpc: "2.0",
        id,
        error: error.to_value(),
    };
    serde_json::to_vec(&frame).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::codes;

    fn code(bytes: &[u8]) -> i64 {
        decode(bytes).unwrap_err().error.code()
    }

    #[test]
    fn classifies_frames() {
        assert_eq!(code(b"{"), codes::PARSE_ERROR);
        assert_eq!(code(b"nope"), codes::PARSE_ERROR);
        assert_eq!(code(b"42"), codes::INVALID_REQUEST);
        assert_eq!(code(b"[{}]"), codes::INVALID_REQUEST);
        assert_eq!(code(br#"{"jsonrpc":"2.0","id":1}"#), codes::INVALID_REQUEST);
        assert_eq!(
            code(br#"{"jsonrpc":"1.0","id":1,"method":"x"}"#),
            codes::INVALID_REQUEST
        );
        assert_eq!(
            code(br#"{"jsonrpc":"2.0","id":null,"method":"x"}"#),
            codes::INVALID_REQUEST
        );
        assert_eq!(
            code(br#"{"jsonrpc":"2.0","id":1.5,"method":"x"}"#),
            codes::INVALID_REQUEST
        );
        assert_eq!(
            code(br#"{"jsonrpc":"2.0","id":1,"method":"x","params":[]}"#),
            codes::INVALID_REQUEST
        );
        assert_eq!(
            code(br#"{"jsonrpc":"2.0","id":1,"method":"x","method":"y"}"#),
            codes::INVALID_REQUEST
        );
        for dup in [
            &br#"{"jsonrpc":"2.0","id":1,"method":"x","params":{"name":"a","name":"b"}}"#[..],
            br#"{"jsonrpc":"2.0","id":1,"method":"x","params":{"_meta":{},"_meta":{}}}"#,
            br#"{"jsonrpc":"2.0","id":1,"method":"x","params":{"arguments":{"p":[{"q":1,"q":2}]}}}"#,
        ] {
            assert_eq!(code(dup), codes::INVALID_REQUEST, "{}", String::from_utf8_lossy(dup));
        }
    }

    #[test]
    fn error_frames_keep_the_id_when_known() {
        let e = decode(br#"{"jsonrpc":"1.0","id":"a","method":"x"}"#).unwrap_err();
        assert_eq!(e.id, Some(RequestId::String("a".into())));
        let bytes = encode_error(e.id.as_ref(), &e.error);
        let v: Value = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(v["id"], "a");
        let bytes = encode_error(None, &e.error);
        let v: Value = serde_json::from_slice(&bytes).unwrap();
        assert!(v.get("id").is_none());
    }
}
