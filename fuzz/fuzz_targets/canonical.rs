//! `canonicalize_json` on any bytes, against an independent writer.
//!
//! Invariants: never panics; what it writes it writes again unchanged (idempotent), and the
//! bytes parse as JSON; on inputs in the domain shared with `serde_jcs` (a second RFC 8785
//! implementation) — JSON whose strings and keys are already NFC, whose numbers lie within
//! ±(2^53 − 1), with no repeated key — it writes exactly what `serde_jcs` writes, and it
//! refuses such an input only for a key `serde_json::Value` silently merged.
#![no_main]

use beam_mcp::connectome::canonical::canonicalize_json;
use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use unicode_normalization::is_nfc;

const MAX_SAFE: f64 = 9_007_199_254_740_991.0;

/// Strings NFC, numbers in range, and the number of object members `Value` kept.
fn shared_domain(v: &Value, members: &mut usize) -> bool {
    match v {
        Value::String(s) => is_nfc(s),
        Value::Number(n) => {
            if let Some(u) = n.as_u64() {
                u <= MAX_SAFE as u64
            } else if let Some(i) = n.as_i64() {
                i.unsigned_abs() <= MAX_SAFE as u64
            } else {
                n.as_f64().is_some_and(|f| f.abs() <= MAX_SAFE)
            }
        }
        Value::Array(items) => items.iter().all(|x| shared_domain(x, members)),
        Value::Object(m) => {
            *members += m.len();
            m.iter()
                .all(|(k, x)| is_nfc(k) && shared_domain(x, members))
        }
        _ => true,
    }
}

/// Object members as written in the text (so a repeat `Value` merged shows as a difference).
fn count_members(text: &[u8]) -> Option<usize> {
    struct Count(usize);
    impl<'de> serde::de::Visitor<'de> for &mut Count {
        type Value = ();
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("JSON")
        }
        fn visit_bool<E>(self, _: bool) -> Result<(), E> {
            Ok(())
        }
        fn visit_i64<E>(self, _: i64) -> Result<(), E> {
            Ok(())
        }
        fn visit_u64<E>(self, _: u64) -> Result<(), E> {
            Ok(())
        }
        fn visit_f64<E>(self, _: f64) -> Result<(), E> {
            Ok(())
        }
        fn visit_str<E>(self, _: &str) -> Result<(), E> {
            Ok(())
        }
        fn visit_unit<E>(self) -> Result<(), E> {
            Ok(())
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut a: A) -> Result<(), A::Error> {
            while a.next_element_seed(Seed(self))?.is_some() {}
            Ok(())
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(self, mut a: A) -> Result<(), A::Error> {
            while a.next_key::<serde::de::IgnoredAny>()?.is_some() {
                self.0 += 1;
                a.next_value_seed(Seed(self))?;
            }
            Ok(())
        }
    }
    struct Seed<'a>(&'a mut Count);
    impl<'de> serde::de::DeserializeSeed<'de> for Seed<'_> {
        type Value = ();
        fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
            d.deserialize_any(self.0)
        }
    }
    let mut count = Count(0);
    let mut de = serde_json::Deserializer::from_slice(text);
    serde::Deserializer::deserialize_any(&mut de, &mut count).ok()?;
    de.end().ok()?;
    Some(count.0)
}

fuzz_target!(|data: &[u8]| {
    let ours = canonicalize_json(data);
    if let Ok(bytes) = &ours {
        assert_eq!(
            canonicalize_json(bytes).ok().as_deref(),
            Some(bytes.as_slice()),
            "not idempotent"
        );
        serde_json::from_slice::<Value>(bytes).expect("canonical bytes are JSON");
    }
    let Ok(value) = serde_json::from_slice::<Value>(data) else {
        assert!(ours.is_err(), "wrote bytes for text serde_json refuses");
        return;
    };
    let mut kept = 0;
    if !shared_domain(&value, &mut kept) {
        return;
    }
    let written = count_members(data).expect("serde_json read it as a Value");
    match ours {
        Ok(bytes) => {
            assert_eq!(kept, written, "a repeated key was written");
            let theirs = serde_jcs::to_vec(&value).expect("serde_jcs writes it");
            assert_eq!(
                String::from_utf8_lossy(&bytes),
                String::from_utf8_lossy(&theirs),
                "differs from serde_jcs"
            );
        }
        Err(e) => assert!(
            e.is_duplicate_key() && kept < written,
            "refused an input in the shared domain: {e}"
        ),
    }
});
