//! Why a value could not be written, or a document could not be verified.

use std::fmt;

use super::version::SCHEMA_VERSION;

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

    /// The document parses but fails a check of [`verify`](super::sealing::verify): not canonical, a member missing,
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
