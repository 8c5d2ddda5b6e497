//! The result envelope each revision puts around a result.

use super::revision::Revision;
use serde_json::{json, Map, Value};

/// The server's identity, as `serverInfo` (2025-11-25 `initialize`) and as
/// `_meta["io.modelcontextprotocol/serverInfo"]` (every 2026-07-28 result).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerInfo {
    /// The implementation name.
    pub name: String,
    /// The implementation version.
    pub version: String,
}

impl ServerInfo {
    pub(crate) fn to_value(&self) -> Value {
        json!({ "name": self.name, "version": self.version })
    }
}

/// Who may cache a cacheable 2026-07-28 result (`cacheScope`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CacheScope {
    /// Cacheable only within the same authorisation context (the default: this crate cannot
    /// know whether a host's lists depend on who asks).
    #[default]
    Private,
    /// Cacheable across authorisation contexts.
    Public,
}

impl CacheScope {
    /// The wire string.
    pub const fn as_str(self) -> &'static str {
        match self {
            CacheScope::Private => "private",
            CacheScope::Public => "public",
        }
    }
}

/// Seals results for a revision; built once per server.
#[derive(Debug, Clone)]
pub(crate) struct Envelope {
    meta: Value,
    info: Value,
}

impl Envelope {
    pub(crate) fn new(info: &ServerInfo) -> Self {
        let info = info.to_value();
        Envelope {
            meta: json!({ "io.modelcontextprotocol/serverInfo": info }),
            info,
        }
    }

    pub(crate) fn server_info(&self) -> &Value {
        &self.info
    }

    /// Adds `resultType` and the `_meta` identity at 2026-07-28; leaves a legacy result as it is.
    pub(crate) fn seal(&self, revision: Revision, mut result: Map<String, Value>) -> Value {
        if revision.is_modern() {
            result.insert("resultType".into(), Value::String("complete".into()));
            result.insert("_meta".into(), self.meta.clone());
        }
        Value::Object(result)
    }

    /// [`Envelope::seal`] plus `ttlMs` and `cacheScope` for a cacheable result at 2026-07-28.
    pub(crate) fn seal_cacheable(
        &self,
        revision: Revision,
        mut result: Map<String, Value>,
        ttl_ms: u64,
        scope: CacheScope,
    ) -> Value {
        if revision.is_modern() {
            result.insert("ttlMs".into(), Value::from(ttl_ms));
            result.insert("cacheScope".into(), Value::String(scope.as_str().into()));
        }
        self.seal(revision, result)
    }
}
