//! JSON-RPC framing and the nesting pre-scan: `decode` and `exceeds_depth` on any bytes.
//!
//! Invariants: neither panics; a frame `decode` accepts is within `MAX_DEPTH`; on text that
//! is JSON, `exceeds_depth(text, d)` is exactly "the value nests deeper than d" for every d;
//! a refusal encodes to a JSON-RPC error object that is JSON. The reference depth is read
//! from the text itself, every member counted: a `Value` keeps only the last of repeated keys,
//! and the pre-scan (rightly) sees them all.
#![no_main]

use beam_mcp::__fuzz::decode;
use beam_mcp::protocol::{encode_error, encode_result, exceeds_depth, MAX_DEPTH};
use libfuzzer_sys::fuzz_target;
use serde::de::{Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use std::fmt;

/// The nesting depth of a JSON text, repeated keys included.
struct Depth(usize);

impl<'de> Deserialize<'de> for Depth {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(DepthVisitor)
    }
}

struct DepthVisitor;

impl<'de> Visitor<'de> for DepthVisitor {
    type Value = Depth;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, _: bool) -> Result<Depth, E> {
        Ok(Depth(0))
    }
    fn visit_i64<E>(self, _: i64) -> Result<Depth, E> {
        Ok(Depth(0))
    }
    fn visit_u64<E>(self, _: u64) -> Result<Depth, E> {
        Ok(Depth(0))
    }
    fn visit_f64<E>(self, _: f64) -> Result<Depth, E> {
        Ok(Depth(0))
    }
    fn visit_str<E>(self, _: &str) -> Result<Depth, E> {
        Ok(Depth(0))
    }
    fn visit_unit<E>(self) -> Result<Depth, E> {
        Ok(Depth(0))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Depth, A::Error> {
        let mut deepest = 0;
        while let Some(Depth(d)) = seq.next_element()? {
            deepest = deepest.max(d);
        }
        Ok(Depth(1 + deepest))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Depth, A::Error> {
        let mut deepest = 0;
        while let Some((IgnoredAny, Depth(d))) = map.next_entry()? {
            deepest = deepest.max(d);
        }
        Ok(Depth(1 + deepest))
    }
}

fuzz_target!(|data: &[u8]| {
    let over = exceeds_depth(data, MAX_DEPTH);
    match decode(data) {
        Ok(m) => {
            assert!(!over, "decode accepted a frame deeper than MAX_DEPTH");
            if let Some(id) = &m.id {
                let bytes = encode_result(id, &Value::Null);
                serde_json::from_slice::<Value>(&bytes).expect("an encoded result is JSON");
            }
        }
        Err(e) => {
            let bytes = encode_error(e.id.as_ref(), &e.error);
            let v: Value = serde_json::from_slice(&bytes).expect("an encoded refusal is JSON");
            assert_eq!(v["jsonrpc"], "2.0");
            assert!(v["error"]["code"].is_i64());
        }
    }
    if let Ok(Depth(d)) = serde_json::from_slice::<Depth>(data) {
        for max in [0, 1, 2, d.saturating_sub(1), d, d + 1, MAX_DEPTH] {
            assert_eq!(exceeds_depth(data, max), d > max, "depth {d}, max {max}");
        }
    }
});
