//! JSON that refuses an object repeating a key, at any depth.
//!
//! serde_json reads a repeated key last-wins; a gateway or an `authorize_body` hook may read
//! it first-wins, and the two would then disagree about which tool runs. Everything the
//! JSON-RPC decoder keeps as JSON is read through [`StrictValue`], and every member it types is
//! filled through [`fill_once`], so no frame can be read two ways.

use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::{Map, Value};
use std::fmt;

/// Builds a `Value` like serde_json's own, but refuses an object that repeats a key.
pub(crate) struct StrictVisitor;

/// A JSON value read by [`StrictVisitor`]: any repeated key, at any depth, is refused.
struct StrictValue(Value);

impl<'de> Deserialize<'de> for StrictValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(StrictVisitor).map(StrictValue)
    }
}

impl<'de> Visitor<'de> for StrictVisitor {
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
            insert_once(&mut out, key, &mut map)?;
        }
        Ok(Value::Object(out))
    }
}

/// Reads the value of `key` into `out`, refusing a key `out` already holds.
pub(crate) fn insert_once<'de, A: MapAccess<'de>>(
    out: &mut Map<String, Value>,
    key: String,
    map: &mut A,
) -> Result<(), A::Error> {
    // One walk of the map per key: the slot found vacant is the one filled.
    let slot = match out.entry(key) {
        serde_json::map::Entry::Vacant(slot) => slot,
        serde_json::map::Entry::Occupied(taken) => return Err(duplicate(taken.key())),
    };
    let StrictValue(v) = map.next_value()?;
    slot.insert(v);
    Ok(())
}

/// The error a repeated `key` is refused with.
fn duplicate<E: de::Error>(key: &str) -> E {
    E::custom(format_args!("duplicate key `{key}`"))
}

/// Fills a typed member once: a second occurrence of its key is refused.
pub(crate) fn fill_once<'de, T: Deserialize<'de>, A: MapAccess<'de>>(
    slot: &mut Option<T>,
    key: &str,
    map: &mut A,
) -> Result<(), A::Error> {
    if slot.is_some() {
        return Err(duplicate(key));
    }
    *slot = Some(map.next_value()?);
    Ok(())
}

/// [`fill_once`] for a member kept as strict JSON (a repeated key inside it refused too).
pub(crate) fn fill_once_strict<'de, A: MapAccess<'de>>(
    slot: &mut Option<Value>,
    key: &str,
    map: &mut A,
) -> Result<(), A::Error> {
    let mut strict = slot.take().map(StrictValue);
    let read = fill_once(&mut strict, key, map);
    *slot = strict.map(|StrictValue(v)| v);
    read
}

#[cfg(test)]
mod tests {
    use super::StrictValue;
    use serde_json::{json, Value};

    fn strict(text: &str) -> Result<Value, serde_json::Error> {
        serde_json::from_str::<StrictValue>(text).map(|StrictValue(v)| v)
    }

    #[test]
    fn reads_what_serde_json_reads() {
        let text = r#"{"a":[1,-2,3.5,"s",null,true,{"b":{}}],"c":{"d":[]}}"#;
        assert_eq!(
            strict(text).unwrap(),
            serde_json::from_str::<Value>(text).unwrap()
        );
        assert_eq!(strict("[]").unwrap(), json!([]));
    }

    #[test]
    fn refuses_a_repeated_key_at_any_depth() {
        for text in [
            r#"{"a":1,"a":2}"#,
            r#"{"a":[{"b":1,"b":2}]}"#,
            r#"[[{"c":{"d":1,"\u0064":2}}]]"#,
        ] {
            let e = strict(text).unwrap_err();
            assert!(
                e.is_data() && e.to_string().contains("duplicate key"),
                "{text}: {e}"
            );
        }
    }
}
