//! JSON-RPC framing and the nesting pre-scan: `decode` and `exceeds_depth` on any bytes.
//!
//! Invariants: neither panics; a frame `decode` accepts is within `MAX_DEPTH`; on text that
//! is JSON, `exceeds_depth(text, d)` is exactly "the value nests deeper than d" for every d;
//! a refusal encodes to a JSON-RPC error object that is JSON.
#![no_main]

use beam_mcp::__fuzz::decode;
use beam_mcp::protocol::{encode_error, encode_result, exceeds_depth, MAX_DEPTH};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fn depth(v: &Value) -> usize {
    match v {
        Value::Array(items) => 1 + items.iter().map(depth).max().unwrap_or(0),
        Value::Object(m) => 1 + m.values().map(depth).max().unwrap_or(0),
        _ => 0,
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
    if let Ok(v) = serde_json::from_slice::<Value>(data) {
        let d = depth(&v);
        for max in [0, 1, 2, d.saturating_sub(1), d, d + 1, MAX_DEPTH] {
            assert_eq!(exceeds_depth(data, max), d > max, "depth {d}, max {max}");
        }
    }
});
