//! Reading one frame: the top level, `params` and `params._meta` member by member into their
//! typed forms, borrowing from the bytes where they have no escapes.

use super::jsonrpc::{FrameError, Incoming, Member, Meta, Params, RequestId, Text, MAX_ID_BYTES};
use super::jsonrpc::{META_CLIENT_CAPABILITIES, META_PROTOCOL_VERSION};
use crate::protocol::depth::{exceeds_depth, MAX_DEPTH};
use crate::protocol::error::RpcError;
use crate::protocol::strict_json::{fill_once, fill_once_strict, insert_once, StrictVisitor};
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::Value;
use std::borrow::Cow;
use std::fmt;

/// A map key, borrowed from the frame when it has no escapes (an escaped key is compared
/// unescaped, as any JSON reader sees it).
struct Key<'a>(Cow<'a, str>);

impl<'de: 'a, 'a> Deserialize<'de> for Key<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a member name")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E>(self, v: String) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v)))
            }
        }
        d.deserialize_str(KeyVisitor)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Text<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(TextVisitor)
    }
}

struct TextVisitor;

/// Forwards every non-string, non-object visit to [`StrictVisitor`], wrapped by `$wrap`.
macro_rules! otherwise_strict {
    ($wrap:expr) => {
        fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
            StrictVisitor.visit_bool(v).map($wrap)
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
            StrictVisitor.visit_i64(v).map($wrap)
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
            StrictVisitor.visit_u64(v).map($wrap)
        }
        fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
            StrictVisitor.visit_f64(v).map($wrap)
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            StrictVisitor.visit_unit().map($wrap)
        }
        fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
            StrictVisitor.visit_none().map($wrap)
        }
        fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
            StrictVisitor.visit_seq(seq).map($wrap)
        }
    };
}

impl<'de> Visitor<'de> for TextVisitor {
    type Value = Text<'de>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Text<'de>, E> {
        Ok(Text::Str(Cow::Borrowed(v)))
    }
    fn visit_str<E>(self, v: &str) -> Result<Text<'de>, E> {
        Ok(Text::Str(Cow::Owned(v.to_owned())))
    }
    fn visit_string<E>(self, v: String) -> Result<Text<'de>, E> {
        Ok(Text::Str(Cow::Owned(v)))
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Text<'de>, A::Error> {
        StrictVisitor.visit_map(map).map(Text::Other)
    }
    otherwise_strict!(Text::Other);
}

/// An object read member by member into a typed form.
trait FromMap<'de>: Sized {
    fn from_map<A: MapAccess<'de>>(map: A) -> Result<Self, A::Error>;
}

impl<'de, T: FromMap<'de>> Deserialize<'de> for Member<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(MemberVisitor(std::marker::PhantomData))
    }
}

struct MemberVisitor<T>(std::marker::PhantomData<T>);

impl<'de, T: FromMap<'de>> Visitor<'de> for MemberVisitor<T> {
    type Value = Member<T>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Member<T>, E> {
        StrictVisitor.visit_str(v).map(Member::Other)
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Member<T>, E> {
        StrictVisitor.visit_string(v).map(Member::Other)
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Member<T>, A::Error> {
        T::from_map(map).map(Member::Object)
    }
    otherwise_strict!(Member::Other);
}

impl<'de: 'a, 'a> FromMap<'de> for Params<'a> {
    fn from_map<A: MapAccess<'de>>(mut map: A) -> Result<Self, A::Error> {
        let mut p = Params::default();
        while let Some(Key(key)) = map.next_key()? {
            match &*key {
                "name" => fill_once(&mut p.name, &key, &mut map)?,
                "arguments" => fill_once_strict(&mut p.arguments, &key, &mut map)?,
                "_meta" => fill_once(&mut p.meta, &key, &mut map)?,
                _ => insert_once(&mut p.rest, key.into_owned(), &mut map)?,
            }
        }
        Ok(p)
    }
}

impl<'de: 'a, 'a> FromMap<'de> for Meta<'a> {
    fn from_map<A: MapAccess<'de>>(mut map: A) -> Result<Self, A::Error> {
        let mut m = Meta::default();
        while let Some(Key(key)) = map.next_key()? {
            match &*key {
                META_PROTOCOL_VERSION => fill_once(&mut m.protocol_version, &key, &mut map)?,
                META_CLIENT_CAPABILITIES => {
                    fill_once_strict(&mut m.client_capabilities, &key, &mut map)?
                }
                _ => insert_once(&mut m.rest, key.into_owned(), &mut map)?,
            }
        }
        Ok(m)
    }
}

/// The top level of a frame, before its members are checked.
#[derive(Default)]
struct Frame<'a> {
    jsonrpc: Option<Text<'a>>,
    id: Option<Value>,
    method: Option<Text<'a>>,
    params: Option<Member<Params<'a>>>,
    meta: Option<Value>,
}

impl<'de: 'a, 'a> FromMap<'de> for Frame<'a> {
    fn from_map<A: MapAccess<'de>>(mut map: A) -> Result<Self, A::Error> {
        let mut f = Frame::default();
        while let Some(Key(key)) = map.next_key()? {
            match &*key {
                "jsonrpc" => fill_once(&mut f.jsonrpc, &key, &mut map)?,
                "method" => fill_once(&mut f.method, &key, &mut map)?,
                "params" => fill_once(&mut f.params, &key, &mut map)?,
                "id" => fill_once_strict(&mut f.id, &key, &mut map)?,
                "_meta" => fill_once_strict(&mut f.meta, &key, &mut map)?,
                // A member no revision defines is not read, so it cannot be read two ways.
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(f)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Frame<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct FrameVisitor;
        impl<'de> Visitor<'de> for FrameVisitor {
            type Value = Frame<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON-RPC message object")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Frame<'de>, A::Error> {
                Frame::from_map(map)
            }
        }
        d.deserialize_map(FrameVisitor)
    }
}

/// Decodes one JSON-RPC message, borrowing from `bytes` where it can.
///
/// The nesting bound is checked on the raw bytes first, so a deeply nested body never
/// reaches the decoder. Batches (a top-level array) are refused: batching was added in
/// 2025-03-26 and removed in 2025-06-18, and neither served revision has it.
///
/// # Errors
/// A [`FrameError`] carrying -32700 (not JSON, or not UTF-8 anywhere in the body) or -32600
/// (a batch, nesting over [`MAX_DEPTH`], a duplicate member, a missing or non-string
/// `method`, `jsonrpc` other than `"2.0"`, an id that is neither a string nor an integer or a
/// string id longer than [`MAX_ID_BYTES`], `params` that is not an object).
///
/// Not API: the core's first step ([`crate::Server::handle`] decodes and routes), reached from
/// outside only by the fuzz targets, through `beam_mcp::__fuzz`.
pub fn decode(bytes: &[u8]) -> Result<Incoming<'_>, FrameError> {
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
    // JSON text is UTF-8 (RFC 8259): checked once over the body here, so that the decoder
    // reads `&str` and does not check every string again.
    let text = std::str::from_utf8(bytes).map_err(|e| FrameError {
        id: None,
        error: RpcError::parse_error(e),
    })?;
    let wire: Frame<'_> = serde_json::from_str(text).map_err(|e| {
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
        Some(v) => match RequestId::from_value(v) {
            Some(id) => Some(id),
            None => return Err(refuse(None, "id must be a string or an integer")),
        },
    };
    match wire.jsonrpc {
        Some(Text::Str(v)) if v == "2.0" => {}
        _ => return Err(refuse(id, "jsonrpc must be \"2.0\"")),
    }
    let method = match wire.method {
        Some(Text::Str(m)) => m,
        _ => return Err(refuse(id, "method must be a string")),
    };
    let params = match wire.params {
        None => None,
        Some(Member::Object(p)) => Some(p),
        Some(Member::Other(_)) => return Err(refuse(id, "params must be an object")),
    };
    Ok(Incoming {
        id,
        method,
        params,
        top_level_meta: wire.meta.is_some(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::codes;
    use crate::protocol::encode::encode_error;

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
    fn escaped_member_names_are_read_unescaped() {
        // `na\u006de` is `name`: it is read as the name, and a second one is a duplicate.
        let m = decode(
            br#"{"jsonrpc":"2.0","id":1,"method":"tools\/call","params":{"na\u006de":"a"}}"#,
        )
        .unwrap();
        assert_eq!(m.method, "tools/call");
        assert_eq!(m.params.as_ref().and_then(|p| p.text("name")), Some("a"));
        for dup in [
            &br#"{"jsonrpc":"2.0","id":1,"method":"x","params":{"name":"a","na\u006de":"b"}}"#[..],
            br#"{"jsonrpc":"2.0","id":1,"method":"x","m\u0065thod":"y"}"#,
            br#"{"jsonrpc":"2.0","id":1,"method":"x","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"a","io.modelcontextprotocol\/protocolVersion":"b"}}}"#,
            br#"{"jsonrpc":"2.0","id":1,"method":"x","params":{"uri":"a","\u0075ri":"b"}}"#,
            br#"{"jsonrpc":"2.0","id":1,"i\u0064":2,"method":"x"}"#,
            br#"{"jsonrpc":"2.0","id":1,"method":"x","_meta":{},"_m\u0065ta":{}}"#,
            br#"{"jsonrpc":"2.0","id":1,"method":"x","params":{"arguments":{},"argum\u0065nts":{}}}"#,
            br#"{"jsonrpc":"2.0","id":1,"method":"x","params":{"_meta":{"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol\/clientCapabilities":{}}}}"#,
        ] {
            assert_eq!(code(dup), codes::INVALID_REQUEST, "{}", String::from_utf8_lossy(dup));
        }
    }

    #[test]
    fn members_of_the_wrong_type_are_kept_for_the_refusal() {
        let m = decode(br#"{"jsonrpc":"2.0","id":1,"method":"x","params":{"name":7,"_meta":[1]}}"#)
            .unwrap();
        let p = m.params.unwrap();
        assert_eq!(p.name, Some(Text::Other(Value::from(7))));
        assert_eq!(p.meta, Some(Member::Other(serde_json::json!([1]))));
        assert_eq!(
            code(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"z\":\"\xff\"}"),
            codes::PARSE_ERROR
        );
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
