//! Canonical bytes: the one writer of exported bytes. Pure: no IO.
//!
//! The rules, stated completely in `docs/connectome-canonical.md`:
//!
//! - JSON text in UTF-8, no whitespace between tokens, no trailing newline.
//! - Object members sorted by key, comparing keys as sequences of UTF-16 code units (RFC 8785
//!   §3.2.3). Keys and string values are first put in Unicode Normalization Form C; two keys of
//!   one object that are equal after NFC, or repeated verbatim, are an error
//!   ([`CanonicalError::DuplicateKey`]).
//! - Strings escaped as ECMAScript `JSON.stringify` does: `\"`, `\\`, `\b`, `\f`, `\n`, `\r`,
//!   `\t`, other code points below U+0020 as `\u00xx` (lowercase hex), everything else literal.
//! - Numbers are read correctly rounded (`serde_json`'s `float_roundtrip`). Every number must
//!   lie within ±(2^53 − 1) — an integer token by its exact value, any other by its binary64
//!   value — else [`CanonicalError::IntegerOutOfRange`] (beyond it a double is always an
//!   integer, and the integers there are not all exact). An integer (a JSON number parsed without fraction or
//!   exponent) is written in decimal; any other number is an IEEE 754 double written in
//!   ECMAScript's shortest round-trip form (`Number.prototype.toString`), `-0` as `0`. NaN and
//!   infinities cannot occur.
//! - Documents are sealed ([`seal`]) with `schema_version: 2`, their `kind`, the
//!   `digest_algorithm` name, and a `digest`: the lowercase hex hash, by the named algorithm,
//!   of the canonical bytes of the document without its `digest` member.

use std::cmp::Ordering;
use std::fmt;

use serde_json::{Map, Number, Value};
use sha2::{Digest, Sha256, Sha384, Sha512};
use unicode_normalization::UnicodeNormalization;

/// The schema version every export carries.
pub const SCHEMA_VERSION: u64 = 2;

/// The largest integer magnitude written: 2^53 − 1.
pub const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

/// The digest algorithm an export is hashed with, named in its bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum DigestAlgorithm {
    /// SHA-256 (FIPS 180-4), the default; named `sha256`.
    #[default]
    Sha256,
    /// SHA-384 (FIPS 180-4); named `sha384`.
    Sha384,
    /// SHA-512 (FIPS 180-4); named `sha512`.
    Sha512,
}

impl DigestAlgorithm {
    /// The name written in `digest_algorithm`.
    pub fn name(self) -> &'static str {
        match self {
            DigestAlgorithm::Sha256 => "sha256",
            DigestAlgorithm::Sha384 => "sha384",
            DigestAlgorithm::Sha512 => "sha512",
        }
    }

    /// The lowercase hex digest of `bytes`.
    pub fn hex_digest(self, bytes: &[u8]) -> String {
        match self {
            DigestAlgorithm::Sha256 => hex(&Sha256::digest(bytes)),
            DigestAlgorithm::Sha384 => hex(&Sha384::digest(bytes)),
            DigestAlgorithm::Sha512 => hex(&Sha512::digest(bytes)),
        }
    }
}

/// The algorithm a name denotes (`sha256`, `sha384`, `sha512`): `"sha384".parse()`.
///
/// ```
/// use beam_mcp::connectome::canonical::DigestAlgorithm;
/// assert_eq!("sha384".parse::<DigestAlgorithm>().ok(), Some(DigestAlgorithm::Sha384));
/// assert!("md5".parse::<DigestAlgorithm>().is_err());
/// ```
impl std::str::FromStr for DigestAlgorithm {
    /// [`CanonicalError::UnknownAlgorithm`] for any other name.
    type Err = CanonicalError;

    fn from_str(name: &str) -> Result<Self, CanonicalError> {
        match name {
            "sha256" => Ok(DigestAlgorithm::Sha256),
            "sha384" => Ok(DigestAlgorithm::Sha384),
            "sha512" => Ok(DigestAlgorithm::Sha512),
            other => Err(CanonicalError::UnknownAlgorithm {
                name: other.to_owned(),
            }),
        }
    }
}

impl fmt::Display for DigestAlgorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 0x0f)]));
    }
    out
}

/// Why a value could not be written, or a document could not be verified.
#[derive(Debug)]
#[non_exhaustive]
pub enum CanonicalError {
    /// Two keys of one object are equal after NFC (a key repeated verbatim included).
    DuplicateKey {
        /// The key, in NFC.
        key: String,
    },
    /// A number outside ±(2^53 − 1): an integer token by its exact value, any other number
    /// by its binary64 value (beyond 2^53 every binary64 value is an integer).
    IntegerOutOfRange {
        /// The number as parsed (a binary64 value in ECMAScript form).
        value: String,
    },
    /// A number that is neither an integer nor a finite double.
    NonFiniteNumber,
    /// The input was not JSON.
    Parse(serde_json::Error),
    /// A sealed document lacks a member, or it has the wrong type.
    MissingMember {
        /// The member's key.
        member: &'static str,
    },
    /// A sealed document carries a schema version other than [`SCHEMA_VERSION`].
    SchemaVersion {
        /// The version found.
        found: String,
    },
    /// A digest algorithm name other than `sha256`, `sha384`, `sha512`.
    UnknownAlgorithm {
        /// The name found.
        name: String,
    },
    /// The digest does not match the document.
    DigestMismatch {
        /// The digest recomputed from the document.
        expected: String,
        /// The digest the document carries.
        found: String,
    },
    /// The bytes parse, but are not the canonical form of what they hold.
    NotCanonical,
}

impl CanonicalError {
    /// Two keys of one object are equal, verbatim or after NFC.
    pub fn is_duplicate_key(&self) -> bool {
        matches!(self, CanonicalError::DuplicateKey { .. })
    }

    /// A number lies outside ±(2^53 − 1), or is not finite.
    pub fn is_out_of_range(&self) -> bool {
        matches!(
            self,
            CanonicalError::IntegerOutOfRange { .. } | CanonicalError::NonFiniteNumber
        )
    }

    /// The input is not JSON this reader accepts.
    pub fn is_parse(&self) -> bool {
        matches!(self, CanonicalError::Parse(_))
    }

    /// The document parses but fails a check of [`verify`]: not canonical, a member missing,
    /// a schema version, an algorithm or a digest that does not match.
    pub fn is_verification(&self) -> bool {
        matches!(
            self,
            CanonicalError::NotCanonical
                | CanonicalError::MissingMember { .. }
                | CanonicalError::SchemaVersion { .. }
                | CanonicalError::UnknownAlgorithm { .. }
                | CanonicalError::DigestMismatch { .. }
        )
    }
}

impl fmt::Display for CanonicalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CanonicalError::DuplicateKey { key } => {
                write!(f, "two object keys are equal after NFC: {key:?}")
            }
            CanonicalError::IntegerOutOfRange { value } => {
                write!(f, "number {value} is outside ±(2^53 − 1)")
            }
            CanonicalError::NonFiniteNumber => f.write_str("number is not finite"),
            CanonicalError::Parse(e) => write!(f, "input is not JSON: {e}"),
            CanonicalError::MissingMember { member } => {
                write!(
                    f,
                    "sealed document lacks member {member:?} or it has the wrong type"
                )
            }
            CanonicalError::SchemaVersion { found } => {
                write!(f, "schema_version {found} is not {SCHEMA_VERSION}")
            }
            CanonicalError::UnknownAlgorithm { name } => {
                write!(f, "unknown digest algorithm {name:?}")
            }
            CanonicalError::DigestMismatch { expected, found } => {
                write!(
                    f,
                    "digest mismatch: document hashes to {expected}, carries {found}"
                )
            }
            CanonicalError::NotCanonical => f.write_str("bytes are not in canonical form"),
        }
    }
}

impl std::error::Error for CanonicalError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            CanonicalError::Parse(e) => Some(e),
            _ => None,
        }
    }
}

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
/// than [`MAX_PARSE_DEPTH`] are not JSON this reader accepts: [`CanonicalError::Parse`].
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

/// The deepest nesting of arrays and objects [`canonicalize_json`] and [`verify`] read
/// (`serde_json`'s recursion limit of 128 stops the 128th level); one level deeper is [`CanonicalError::Parse`].
pub const MAX_PARSE_DEPTH: usize = 127;

/// JSON text as read, every object member kept in the order written.
enum Parsed {
    Null,
    Bool(bool),
    Number(Number),
    String(String),
    Array(Vec<Parsed>),
    Object(Vec<(String, Parsed)>),
}

impl Parsed {
    fn into_value(self) -> Value {
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

fn parse(text: &[u8]) -> Result<Parsed, CanonicalError> {
    serde_json::from_slice(text).map_err(CanonicalError::Parse)
}

fn write_parsed(value: &Parsed, out: &mut Vec<u8>) -> Result<(), CanonicalError> {
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

fn nfc(s: &str) -> String {
    s.nfc().collect()
}

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

fn write_number(n: &Number, out: &mut Vec<u8>) -> Result<(), CanonicalError> {
    if let Some(u) = n.as_u64() {
        if u > MAX_SAFE_INTEGER {
            return Err(CanonicalError::IntegerOutOfRange {
                value: u.to_string(),
            });
        }
        out.extend_from_slice(u.to_string().as_bytes());
    } else if let Some(i) = n.as_i64() {
        if i.unsigned_abs() > MAX_SAFE_INTEGER {
            return Err(CanonicalError::IntegerOutOfRange {
                value: i.to_string(),
            });
        }
        out.extend_from_slice(i.to_string().as_bytes());
    } else {
        let f = n.as_f64().ok_or(CanonicalError::NonFiniteNumber)?;
        // Beyond 2^53 every double is an integer, and ECMAScript would spell some of them as
        // integer tokens the rule above refuses: refuse them here too, so writing is idempotent.
        if f.abs() > MAX_SAFE_INTEGER as f64 {
            return Err(CanonicalError::IntegerOutOfRange {
                value: format_double(f)?,
            });
        }
        out.extend_from_slice(format_double(f)?.as_bytes());
    }
    Ok(())
}

/// Rust's shortest digits are the shortest that round-trip, but when the double lies exactly
/// halfway between two such strings Rust may pick the odd one; ECMAScript (and so RFC 8785)
/// picks the even one. Detects that exact tie from the double's full decimal expansion.
fn even_on_tie(f: f64, digits: String, exp: i32) -> String {
    let Ok(d) = digits.parse::<u64>() else {
        return digits;
    };
    if d % 2 == 0 || digits.len() > 17 {
        return digits;
    }
    let exact = format!("{f:.800e}");
    let Some((m, e)) = exact.split_once('e') else {
        return digits;
    };
    if e.parse::<i32>().ok() != Some(exp) {
        return digits;
    }
    let full: String = m.chars().filter(|c| *c != '.').collect();
    let rest = full.get(digits.len()..).unwrap_or("");
    let head = full.get(..digits.len()).unwrap_or("");
    // Exactly half a unit in the last place above `head`, or below it.
    let half = rest.starts_with('5') && rest[1..].bytes().all(|b| b == b'0');
    let Ok(h) = head.parse::<u64>() else {
        return digits;
    };
    let (lower, upper) = if half { (h, h + 1) } else { return digits };
    let even = if lower % 2 == 0 { lower } else { upper };
    let candidate = format!("{even:0width$}", width = digits.len());
    let mut sci = String::with_capacity(candidate.len() + 8);
    sci.push_str(&candidate[..1]);
    sci.push('.');
    sci.push_str(&candidate[1..]);
    sci.push_str(&format!("e{exp}"));
    if candidate.len() == digits.len() && sci.parse::<f64>().ok() == Some(f) {
        candidate
    } else {
        digits
    }
}

/// A finite double in ECMAScript's `Number.prototype.toString` form (shortest round-trip
/// digits; plain notation for decimal exponents in −6 < n ≤ 21, else `d.ddde±n`).
///
/// ```
/// use beam_mcp::connectome::canonical::format_double;
/// assert_eq!(format_double(1e21).unwrap(), "1e+21"); // refused by to_canonical_bytes
/// assert_eq!(format_double(1e20).unwrap(), "100000000000000000000");
/// assert_eq!(format_double(0.000001).unwrap(), "0.000001");
/// assert_eq!(format_double(1e-7).unwrap(), "1e-7");
/// assert_eq!(format_double(-0.0).unwrap(), "0");
/// ```
///
/// # Errors
/// [`CanonicalError::NonFiniteNumber`] for NaN and infinities.
pub fn format_double(f: f64) -> Result<String, CanonicalError> {
    if !f.is_finite() {
        return Err(CanonicalError::NonFiniteNumber);
    }
    if f == 0.0 {
        return Ok("0".to_owned());
    }
    if f < 0.0 {
        return Ok(format!("-{}", format_double(-f)?));
    }
    // Rust's `{:e}` yields the shortest round-trip digits: "d[.ddd]e[-]x".
    let sci = format!("{f:e}");
    let (mantissa, exp) = sci.split_once('e').ok_or(CanonicalError::NonFiniteNumber)?;
    let exp: i32 = exp.parse().map_err(|_| CanonicalError::NonFiniteNumber)?;
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    let digits = even_on_tie(f, digits, exp);
    let k = i32::try_from(digits.len()).map_err(|_| CanonicalError::NonFiniteNumber)?;
    let n = exp + 1;
    let mut s = String::new();
    if k <= n && n <= 21 {
        s.push_str(&digits);
        s.extend(std::iter::repeat_n('0', (n - k) as usize));
    } else if 0 < n && n <= 21 {
        s.push_str(&digits[..n as usize]);
        s.push('.');
        s.push_str(&digits[n as usize..]);
    } else if -6 < n && n <= 0 {
        s.push_str("0.");
        s.extend(std::iter::repeat_n('0', (-n) as usize));
        s.push_str(&digits);
    } else {
        s.push_str(&digits[..1]);
        if k > 1 {
            s.push('.');
            s.push_str(&digits[1..]);
        }
        s.push('e');
        s.push(if n - 1 < 0 { '-' } else { '+' });
        s.push_str(&(n - 1).abs().to_string());
    }
    Ok(s)
}

/// A sealed export: its canonical bytes and the digest they carry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sealed {
    /// The canonical bytes of the whole document, `digest` member included.
    pub bytes: Vec<u8>,
    /// The lowercase hex digest carried in the `digest` member.
    pub digest: String,
    /// The algorithm named in `digest_algorithm`.
    pub algorithm: DigestAlgorithm,
}

/// Seals a document: `{"schema_version": 2, "kind": kind, "digest_algorithm": name,
/// "body": body}`, hashed without `digest`, then written with `digest` added.
///
/// ```
/// use beam_mcp::connectome::canonical::{seal, verify, DigestAlgorithm};
/// let sealed = seal("declared", serde_json::json!({"graph": {}}), DigestAlgorithm::Sha256).unwrap();
/// assert_eq!(verify(&sealed.bytes).unwrap().digest, sealed.digest);
/// ```
///
/// # Errors
/// As [`to_canonical_bytes`], for the body.
pub fn seal(kind: &str, body: Value, algorithm: DigestAlgorithm) -> Result<Sealed, CanonicalError> {
    let mut doc = Map::new();
    doc.insert("body".to_owned(), body);
    doc.insert(
        "digest_algorithm".to_owned(),
        Value::String(algorithm.name().to_owned()),
    );
    doc.insert("kind".to_owned(), Value::String(kind.to_owned()));
    doc.insert("schema_version".to_owned(), Value::from(SCHEMA_VERSION));
    let mut doc = Value::Object(doc);
    let unsealed = to_canonical_bytes(&doc)?;
    let digest = algorithm.hex_digest(&unsealed);
    if let Value::Object(map) = &mut doc {
        map.insert("digest".to_owned(), Value::String(digest.clone()));
    }
    Ok(Sealed {
        bytes: to_canonical_bytes(&doc)?,
        digest,
        algorithm,
    })
}

/// What [`verify`] read from a sealed document.
#[derive(Debug, Clone, PartialEq)]
pub struct Verified {
    /// The document's `kind`.
    pub kind: String,
    /// The algorithm named in `digest_algorithm`.
    pub algorithm: DigestAlgorithm,
    /// The digest, checked.
    pub digest: String,
    /// The document's `body`.
    pub body: Value,
}

/// Verifies a sealed document: canonical bytes, schema version 2, a known algorithm, and a
/// digest that matches the recipe of [`seal`].
///
/// The bytes are read as [`canonicalize_json`] reads them: a repeated key is
/// [`CanonicalError::DuplicateKey`], not a last-one-wins.
///
/// # Errors
/// [`CanonicalError::Parse`], [`CanonicalError::DuplicateKey`],
/// [`CanonicalError::IntegerOutOfRange`], [`CanonicalError::NotCanonical`],
/// [`CanonicalError::MissingMember`], [`CanonicalError::SchemaVersion`],
/// [`CanonicalError::UnknownAlgorithm`], [`CanonicalError::DigestMismatch`].
pub fn verify(bytes: &[u8]) -> Result<Verified, CanonicalError> {
    let tree = parse(bytes)?;
    let mut canonical = Vec::with_capacity(bytes.len());
    write_parsed(&tree, &mut canonical)?;
    if canonical != bytes {
        return Err(CanonicalError::NotCanonical);
    }
    let Value::Object(mut map) = tree.into_value() else {
        return Err(CanonicalError::MissingMember { member: "kind" });
    };
    let version = map
        .get("schema_version")
        .ok_or(CanonicalError::MissingMember {
            member: "schema_version",
        })?;
    if version.as_u64() != Some(SCHEMA_VERSION) {
        return Err(CanonicalError::SchemaVersion {
            found: version.to_string(),
        });
    }
    let algorithm = match map.get("digest_algorithm") {
        Some(Value::String(name)) => name.parse::<DigestAlgorithm>()?,
        _ => {
            return Err(CanonicalError::MissingMember {
                member: "digest_algorithm",
            })
        }
    };
    let kind = match map.get("kind") {
        Some(Value::String(kind)) => kind.clone(),
        _ => return Err(CanonicalError::MissingMember { member: "kind" }),
    };
    let found = match map.remove("digest") {
        Some(Value::String(d)) => d,
        _ => return Err(CanonicalError::MissingMember { member: "digest" }),
    };
    let body = map
        .get("body")
        .cloned()
        .ok_or(CanonicalError::MissingMember { member: "body" })?;
    let expected = algorithm.hex_digest(&to_canonical_bytes(&Value::Object(map))?);
    if expected != found {
        return Err(CanonicalError::DigestMismatch { expected, found });
    }
    Ok(Verified {
        kind,
        algorithm,
        digest: found,
        body,
    })
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

    #[test]
    fn doubles_follow_ecmascript() {
        for (f, s) in [
            (1.5, "1.5"),
            (123456789012345680000.0, "123456789012345680000"),
            (0.1, "0.1"),
            (1e-6, "0.000001"),
            (1.25e-7, "1.25e-7"),
            (5e-324, "5e-324"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            (2.0, "2"),
        ] {
            assert_eq!(format_double(f).unwrap(), s, "{f}");
        }
        assert!(format_double(f64::NAN).is_err());
    }

    #[test]
    fn verify_rejects_a_tampered_digest() {
        let sealed = seal("observed", json!({"n": 1}), DigestAlgorithm::Sha384).unwrap();
        let tampered = String::from_utf8(sealed.bytes.clone())
            .unwrap()
            .replace("\"n\":1", "\"n\":2");
        assert!(matches!(
            verify(tampered.as_bytes()),
            Err(CanonicalError::DigestMismatch { .. })
        ));
        assert_eq!(
            verify(&sealed.bytes).unwrap().algorithm,
            DigestAlgorithm::Sha384
        );
    }
}

#[cfg(test)]
mod tie_tests {
    use super::format_double;

    #[test]
    fn an_exact_tie_between_two_shortest_strings_takes_the_even_digit() {
        // 1509805100944860.25 is exactly representable: .2 and .3 both round-trip.
        assert_eq!(
            format_double(1_509_805_100_944_860.2).unwrap(),
            "1509805100944860.2"
        );
        assert_eq!(format_double(0.1).unwrap(), "0.1");
        assert_eq!(format_double(5e-324).unwrap(), "5e-324");
        assert_eq!(
            format_double(1.7976931348623157e308).unwrap(),
            "1.7976931348623157e+308"
        );
    }
}
