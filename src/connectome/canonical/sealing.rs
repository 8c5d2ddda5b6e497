//! Sealing and verifying: a document with its schema version, kind, digest algorithm and the
//! digest of its canonical bytes.

use serde_json::{Map, Value};

use super::digest::DigestAlgorithm;
use super::error::CanonicalError;
use super::reader::parse;
use super::version::SCHEMA_VERSION;
use super::writer::{to_canonical_bytes, write_parsed};

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
/// The bytes are read as [`canonicalize_json`](super::writer::canonicalize_json) reads them: a repeated key is
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
