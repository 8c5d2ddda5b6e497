//! The writer: canonical bytes of a JSON value or of JSON text, by hand — members sorted by
//! UTF-16 code units, keys and strings in NFC, strings escaped as ECMAScript does, numbers as
//! `number` writes them.

use std::cmp::Ordering;

use serde_json::{Map, Value};
use unicode_normalization::UnicodeNormalization;

use super::error::CanonicalError;
use super::number::write_number;
use super::reader::{parse, Parsed};

/// The canonical bytes of a JSON value.
///
/// ```
/// use beam_mcp::connectome::canonical::to_canonical_bytes;
/// let v = serde_json::json!({"b": [1, 2.5, "x"], "a": null, "\u{e9}": true});
/// assert_eq!(to_canonical_bytes(&v).unwrap(), "{\"a\":null,\"b\":[1,2.5,\"x\"],\"\u{e9}\":true}".as_bytes());
/// ```
///
/// # Errors
/// [`CanonicalError::DuplicateKey`] when two keys of an object are equal after NFC,
/// [`CanonicalError::IntegerOutOfRange`] for an integer beyond ±(2^53 − 1).
pub fn to_canonical_bytes(value: &Value) -> Result<Vec<u8>, CanonicalError> {
    let mut out = Vec::new();
    write_value(value, &mut out)?;
    Ok(out)
}

/// Parses JSON text and writes its canonical bytes.
///
/// The text is read as `docs/connectome-canonical.md` §1 says: numbers correctly rounded to
/// binary64 (an integer token is kept exact), every member of every object kept, so that a
/// key repeated verbatim is refused like two keys equal after NFC. A byte-order mark, a lone
/// surrogate escape (`"\ud800"`), `NaN`, a number that overflows binary64 and nesting deeper
/// than [`MAX_PARSE_DEPTH`](super::reader::MAX_PARSE_DEPTH) are not JSON this reader accepts: [`CanonicalError::Parse`].
///
/// ```
/// use beam_mcp::connectome::canonical::canonicalize_json;
/// assert_eq!(canonicalize_json(b"{\"b\":0.1e1,\"a\":[-0]}").unwrap(), b"{\"a\":[0],\"b\":1}");
/// assert!(canonicalize_json(b"{\"a\":1,\"a\":2}").unwrap_err().is_duplicate_key());
/// ```
///
/// # Errors
/// [`CanonicalError::Parse`] when the input is not JSON (as above),
/// [`CanonicalError::DuplicateKey`] when two keys of one object are equal, verbatim or after
/// NFC, [`CanonicalError::IntegerOutOfRange`] for a number beyond ±(2^53 − 1).
pub fn canonicalize_json(text: &[u8]) -> Result<Vec<u8>, CanonicalError> {
    let tree = parse(text)?;
    let mut out = Vec::new();
    write_parsed(&tree, &mut out)?;
    Ok(out)
}

/// Writes a parsed tree (keys put in NFC here).
pub(super) fn write_parsed(value: &Parsed, out: &mut Vec<u8>) -> Result<(), CanonicalError> {
    match value {
        Parsed::Null => out.extend_from_slice(b"null"),
        Parsed::Bool(true) => out.extend_from_slice(b"true"),
        Parsed::Bool(false) => out.extend_from_slice(b"false"),
        Parsed::Number(n) => write_number(n, out)?,
        Parsed::String(s) => write_string(&nfc(s), out),
        Parsed::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_parsed(item, out)?;
            }
            out.push(b']');
        }
        Parsed::Object(members) => {
            let members = members.iter().map(|(k, v)| (nfc(k), v)).collect();
            write_members(members, out, write_parsed)?;
        }
    }
    Ok(())
}

/// Writes a value (keys put in NFC here).
fn write_value(value: &Value, out: &mut Vec<u8>) -> Result<(), CanonicalError> {
    match value {
        Value::Null => out.extend_from_slice(b"null"),
        Value::Bool(true) => out.extend_from_slice(b"true"),
        Value::Bool(false) => out.extend_from_slice(b"false"),
        Value::Number(n) => write_number(n, out)?,
        Value::String(s) => write_string(&nfc(s), out),
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_value(item, out)?;
            }
            out.push(b']');
        }
        Value::Object(map) => write_object(map, out)?,
    }
    Ok(())
}

/// Writes an object's members, keys in NFC.
fn write_object(map: &Map<String, Value>, out: &mut Vec<u8>) -> Result<(), CanonicalError> {
    let members = map.iter().map(|(k, v)| (nfc(k), v)).collect();
    write_members(members, out, write_value)
}

/// Sorts members (keys already in NFC), refuses two equal keys, writes `{key:value,…}`.
fn write_members<T>(
    mut members: Vec<(String, &T)>,
    out: &mut Vec<u8>,
    write: fn(&T, &mut Vec<u8>) -> Result<(), CanonicalError>,
) -> Result<(), CanonicalError> {
    members.sort_by(|a, b| utf16_cmp(&a.0, &b.0));
    if let Some(pair) = members.windows(2).find(|w| w[0].0 == w[1].0) {
        return Err(CanonicalError::DuplicateKey {
            key: pair[0].0.clone(),
        });
    }
    out.push(b'{');
    for (i, (key, v)) in members.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_string(key, out);
        out.push(b':');
        write(v, out)?;
    }
    out.push(b'}');
    Ok(())
}

/// Compares two strings as sequences of UTF-16 code units (RFC 8785 §3.2.3).
pub fn utf16_cmp(a: &str, b: &str) -> Ordering {
    a.encode_utf16().cmp(b.encode_utf16())
}

/// A string in Unicode Normalization Form C.
fn nfc(s: &str) -> String {
    s.nfc().collect()
}

/// Writes a string, escaped as ECMAScript `JSON.stringify` does.
fn write_string(s: &str, out: &mut Vec<u8>) {
    out.push(b'"');
    for c in s.chars() {
        match c {
            '"' => out.extend_from_slice(b"\\\""),
            '\\' => out.extend_from_slice(b"\\\\"),
            '\u{08}' => out.extend_from_slice(b"\\b"),
            '\u{0c}' => out.extend_from_slice(b"\\f"),
            '\n' => out.extend_from_slice(b"\\n"),
            '\r' => out.extend_from_slice(b"\\r"),
            '\t' => out.extend_from_slice(b"\\t"),
            c if u32::from(c) < 0x20 => {
                out.extend_from_slice(format!("\\u{:04x}", u32::from(c)).as_bytes());
            }
            c => {
                let mut buf = [0u8; 4];
                out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            }
        }
    }
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn keys_sort_by_utf16_code_units_not_code_points() {
        // U+FF61 sorts after U+1F600 by code point but before it in UTF-16 (0xD83D < 0xFF61).
        let v = json!({"\u{ff61}": 1, "\u{1f600}": 2});
        let bytes = to_canonical_bytes(&v).unwrap();
        assert_eq!(
            String::from_utf8(bytes).unwrap(),
            "{\"\u{1f600}\":2,\"\u{ff61}\":1}"
        );
    }

    #[test]
    fn keys_equal_after_nfc_are_an_error() {
        let v = json!({"e\u{301}": 1, "\u{e9}": 2});
        assert!(matches!(
            to_canonical_bytes(&v),
            Err(CanonicalError::DuplicateKey { .. })
        ));
    }

    #[test]
    fn large_integers_are_refused() {
        assert!(to_canonical_bytes(&json!(9007199254740991u64)).is_ok());
        assert!(matches!(
            to_canonical_bytes(&json!(9007199254740992u64)),
            Err(CanonicalError::IntegerOutOfRange { .. })
        ));
        assert!(matches!(
            to_canonical_bytes(&json!(1.5e16)),
            Err(CanonicalError::IntegerOutOfRange { .. })
        ));
        assert!(matches!(
            to_canonical_bytes(&json!(-9007199254740992i64)),
            Err(CanonicalError::IntegerOutOfRange { .. })
        ));
    }

    #[test]
    fn control_characters_escape_lowercase() {
        let v = json!("a\u{1f}\u{7f}\n\"\\");
        assert_eq!(
            to_canonical_bytes(&v).unwrap(),
            b"\"a\\u001f\x7f\\n\\\"\\\\\"".to_vec()
        );
    }
}
