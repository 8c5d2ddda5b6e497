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
//!
//! The parts, each one job, the writer kept by hand (it decides every exported byte): `writer`
//! (canonical bytes of a value or of JSON text), `reader` (JSON text read strictly, every member
//! kept), `number` (the range check and ECMAScript's number form), `digest` (the named hash
//! algorithms), `sealing` ([`seal`] and [`verify`]), `error` and `version`. This module only
//! declares them and re-exports their public items; none imports it.

mod digest;
mod error;
mod number;
mod reader;
mod sealing;
mod version;
mod writer;

pub use digest::DigestAlgorithm;
pub use error::CanonicalError;
pub use number::{format_double, MAX_SAFE_INTEGER};
pub use reader::MAX_PARSE_DEPTH;
pub use sealing::{seal, verify, Sealed, Verified};
pub use version::SCHEMA_VERSION;
pub use writer::{canonicalize_json, to_canonical_bytes, utf16_cmp};
