//! The schema version of the sealed documents.

/// The schema version every export carries.
pub const SCHEMA_VERSION: u64 = 2;
