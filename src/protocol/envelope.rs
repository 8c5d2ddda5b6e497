//! The result envelope each revision puts around a result.

use super::jsonrpc::RequestId;
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

/// Seals results for a revision and encodes the response; built once per server.
#[derive(Debug, Clone)]
pub(crate) struct Envelope {
    /// `"resultType":"complete","_meta":{...serverInfo...}`, encoded once.
    sealed_prefix: Vec<u8>,
    info: Value,
}

impl Envelope {
    pub(crate) fn new(info: &ServerInfo) -> Self {
        let info = info.to_value();
        let meta = json!({ "io.modelcontextprotocol/serverInfo": info });
        let mut sealed_prefix = b"\"resultType\":\"complete\",\"_meta\":".to_vec();
        // Serialising a Value into a Vec cannot fail.
        let _ = serde_json::to_writer(&mut sealed_prefix, &meta);
        Envelope {
            sealed_prefix,
            info,
        }
    }

    pub(crate) fn server_info(&self) -> &Value {
        &self.info
    }

    /// Encodes a success response. At 2026-07-28 the result gains `resultType` and the
    /// `_meta` identity (spliced in pre-encoded: this runs on every call); a legacy result is
    /// written as it is.
    pub(crate) fn encode<T: serde::Serialize + ?Sized>(
        &self,
        id: &RequestId,
        revision: Revision,
        result: &T,
    ) -> Vec<u8> {
        let mut out = Vec::with_capacity(160 + self.sealed_prefix.len());
        out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
        let _ = serde_json::to_writer(&mut out, id);
        out.extend_from_slice(b",\"result\":");
        if revision.is_modern() {
            out.push(b'{');
            out.extend_from_slice(&self.sealed_prefix);
            let at = out.len();
            // `result` serialises as a JSON object: its opening brace becomes the separator
            // after the prefix, and an empty one leaves the prefix to close the object.
            let _ = serde_json::to_writer(&mut out, result);
            if &out[at..] == b"{}" {
                out.truncate(at);
                out.push(b'}');
            } else {
                out[at] = b',';
            }
        } else {
            let _ = serde_json::to_writer(&mut out, result);
        }
        out.push(b'}');
        out
    }

    /// [`Envelope::encode`] of a cacheable result: `ttlMs` and `cacheScope` at 2026-07-28.
    pub(crate) fn encode_cacheable(
        &self,
        id: &RequestId,
        revision: Revision,
        mut result: Map<String, Value>,
        ttl_ms: u64,
        scope: CacheScope,
    ) -> Vec<u8> {
        if revision.is_modern() {
            result.insert("ttlMs".into(), Value::from(ttl_ms));
            result.insert("cacheScope".into(), Value::String(scope.as_str().into()));
        }
        self.encode(id, revision, &result)
    }
}
