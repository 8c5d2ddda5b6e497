//! The reader: JSON text parsed as `docs/connectome-canonical.md` §1 says, numbers correctly
//! rounded and every object member kept in the order written (so that a repeated key can be
//! refused, never resolved last-one-wins).

use std::fmt;

use serde_json::{Number, Value};

use super::error::CanonicalError;

/// The deepest nesting of arrays and objects
/// [`canonicalize_json`](super::writer::canonicalize_json) and [`verify`](super::sealing::verify) read
/// (`serde_json`'s recursion limit of 128 stops the 128th level); one level deeper is [`CanonicalError::Parse`].
pub const MAX_PARSE_DEPTH: usize = 127;

/// JSON text as read, every object member kept in the order written.
pub(super) enum Parsed {
    Null,
    Bool(bool),
    Number(Number),
    String(String),
    Array(Vec<Parsed>),
    Object(Vec<(String, Parsed)>),
}

impl Parsed {
    /// The tree as a `serde_json` value (of a repeated key, the last member is kept).
    pub(super) fn into_value(self) -> Value {
        match self {
            Parsed::Null => Value::Null,
            Parsed::Bool(b) => Value::Bool(b),
            Parsed::Number(n) => Value::Number(n),
            Parsed::String(s) => Value::String(s),
            Parsed::Array(items) => {
                Value::Array(items.into_iter().map(Parsed::into_value).collect())
            }
            Parsed::Object(members) => Value::Object(
                members
                    .into_iter()
                    .map(|(k, v)| (k, v.into_value()))
                    .collect(),
            ),
        }
    }
}

impl<'de> serde::Deserialize<'de> for Parsed {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ParsedVisitor)
    }
}

struct ParsedVisitor;

impl<'de> serde::de::Visitor<'de> for ParsedVisitor {
    type Value = Parsed;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_unit<E>(self) -> Result<Parsed, E> {
        Ok(Parsed::Null)
    }

    fn visit_bool<E>(self, b: bool) -> Result<Parsed, E> {
        Ok(Parsed::Bool(b))
    }

    fn visit_u64<E>(self, u: u64) -> Result<Parsed, E> {
        Ok(Parsed::Number(u.into()))
    }

    fn visit_i64<E>(self, i: i64) -> Result<Parsed, E> {
        Ok(Parsed::Number(i.into()))
    }

    fn visit_f64<E: serde::de::Error>(self, f: f64) -> Result<Parsed, E> {
        Number::from_f64(f)
            .map(Parsed::Number)
            .ok_or_else(|| E::custom("number is not finite"))
    }

    fn visit_str<E>(self, s: &str) -> Result<Parsed, E> {
        Ok(Parsed::String(s.to_owned()))
    }

    fn visit_string<E>(self, s: String) -> Result<Parsed, E> {
        Ok(Parsed::String(s))
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Parsed, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Parsed::Array(items))
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Parsed, A::Error> {
        let mut members = Vec::new();
        while let Some((key, value)) = map.next_entry::<String, Parsed>()? {
            members.push((key, value));
        }
        Ok(Parsed::Object(members))
    }
}

/// Parses JSON text, keeping every member.
pub(super) fn parse(text: &[u8]) -> Result<Parsed, CanonicalError> {
    serde_json::from_slice(text).map_err(CanonicalError::Parse)
}
