//! The protocol revisions this server speaks.

use std::fmt;

/// A protocol revision served by this crate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Revision {
    /// `2025-11-25`: the legacy revision (`initialize`, `ping`, no result envelope).
    V2025_11_25,
    /// `2026-07-28`: the stateless revision (per-request `_meta`, `resultType`).
    V2026_07_28,
}

impl Revision {
    /// Every revision served, newest first (the order `supportedVersions` lists them in).
    pub const ALL: [Revision; 2] = [Revision::V2026_07_28, Revision::V2025_11_25];

    /// The revision's date string, as it travels on the wire.
    pub const fn as_str(self) -> &'static str {
        match self {
            Revision::V2025_11_25 => "2025-11-25",
            Revision::V2026_07_28 => "2026-07-28",
        }
    }

    /// Whether this revision is the modern, stateless one (result envelope, `_meta` required).
    pub const fn is_modern(self) -> bool {
        matches!(self, Revision::V2026_07_28)
    }
}

/// Parses a wire version string: `"2026-07-28".parse::<Revision>()`.
///
/// ```
/// use beam_mcp::protocol::Revision;
/// assert_eq!("2025-11-25".parse(), Ok(Revision::V2025_11_25));
/// assert!("2024-11-05".parse::<Revision>().is_err());
/// ```
impl std::str::FromStr for Revision {
    /// [`UnknownRevision`] for any string that is not a served revision, `2024-11-05` included.
    type Err = UnknownRevision;

    fn from_str(s: &str) -> Result<Revision, UnknownRevision> {
        match s {
            "2025-11-25" => Ok(Revision::V2025_11_25),
            "2026-07-28" => Ok(Revision::V2026_07_28),
            _ => Err(UnknownRevision),
        }
    }
}

impl fmt::Display for Revision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A version string that names no revision this server serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UnknownRevision;

impl fmt::Display for UnknownRevision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("protocol revision not served")
    }
}

impl std::error::Error for UnknownRevision {}
