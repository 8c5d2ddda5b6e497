//! The digest algorithms a sealed document may name, and the lowercase hex they write.

use std::fmt;

use sha2::{Digest, Sha256, Sha384, Sha512};

use super::error::CanonicalError;

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
