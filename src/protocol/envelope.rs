//! The result envelope each revision puts around a result.

use super::jsonrpc::RequestId;
use super::revision::Revision;
use crate::model::result::{CacheMembers, ResultMeta};
use crate::model::{CacheScope, ServerInfo};
use serde::Serialize;
use std::time::Duration;

/// The cacheable 2026-07-28 results, each with one [`CacheHint`]
/// (set by [`crate::ServerConfig::cache_hint`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Cacheable {
    /// `tools/list`.
    Tools,
    /// `resources/list`, `resources/templates/list` and `resources/read`.
    Resources,
    /// `prompts/list` (`prompts/get` is not cacheable and carries no hint).
    Prompts,
    /// `server/discover`.
    Discover,
}

impl Cacheable {
    /// Every cacheable result, in the order of [`CacheHints`]' slots.
    const ALL: [Cacheable; 4] = [
        Cacheable::Tools,
        Cacheable::Resources,
        Cacheable::Prompts,
        Cacheable::Discover,
    ];

    const fn slot(self) -> usize {
        match self {
            Cacheable::Tools => 0,
            Cacheable::Resources => 1,
            Cacheable::Prompts => 2,
            Cacheable::Discover => 3,
        }
    }
}

/// How long, and by whom, a cacheable 2026-07-28 result may be cached: its `ttlMs` and
/// `cacheScope`. The default, [`CacheHint::NONE`], is `ttlMs: 0`, private: the lists a host
/// serves may differ by caller, which this crate cannot see.
///
/// ```
/// use beam_mcp::protocol::{CacheHint, CacheScope, Cacheable};
/// use beam_mcp::{Catalog, ServerConfig};
/// use std::time::Duration;
///
/// let hint = CacheHint::public(Duration::from_secs(60));
/// assert_eq!(hint.scope(), CacheScope::Public);
/// let config = ServerConfig::new(Catalog::new()).cache_hint(Cacheable::Tools, hint);
/// # let _ = config;
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CacheHint {
    ttl: Duration,
    scope: CacheScope,
}

impl CacheHint {
    /// `ttlMs: 0`, `cacheScope: "private"`: the default of every result.
    pub const NONE: CacheHint = CacheHint::new(Duration::ZERO, CacheScope::Private);

    /// A hint of `ttl` (sent in whole milliseconds) and `scope`.
    pub const fn new(ttl: Duration, scope: CacheScope) -> Self {
        CacheHint { ttl, scope }
    }

    /// Cacheable for `ttl` within the same authorisation context.
    pub const fn private(ttl: Duration) -> Self {
        CacheHint::new(ttl, CacheScope::Private)
    }

    /// Cacheable for `ttl` across authorisation contexts.
    pub const fn public(ttl: Duration) -> Self {
        CacheHint::new(ttl, CacheScope::Public)
    }

    /// How long the result may be cached.
    pub const fn ttl(self) -> Duration {
        self.ttl
    }

    /// Who may cache it.
    pub const fn scope(self) -> CacheScope {
        self.scope
    }

    /// `ttlMs`: whole milliseconds, saturating at `u64::MAX`.
    pub(crate) fn ttl_ms(self) -> u64 {
        u64::try_from(self.ttl.as_millis()).unwrap_or(u64::MAX)
    }

    /// The members the hint adds to a result.
    pub(crate) fn members(self) -> CacheMembers {
        CacheMembers {
            ttl_ms: self.ttl_ms(),
            cache_scope: self.scope,
        }
    }
}

/// One [`CacheHint`] per [`Cacheable`] result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct CacheHints([CacheHint; Cacheable::ALL.len()]);

impl CacheHints {
    pub(crate) fn get(&self, of: Cacheable) -> CacheHint {
        self.0[of.slot()]
    }

    pub(crate) fn set(&mut self, of: Cacheable, hint: CacheHint) {
        self.0[of.slot()] = hint;
    }
}

/// Seals results for a revision and encodes the response; built once per server.
#[derive(Debug, Clone)]
pub(crate) struct Envelope {
    /// `"resultType":"complete","_meta":{...serverInfo: name and version...}`, encoded once.
    sealed_prefix: Vec<u8>,
    /// The same with the whole `serverInfo`, for `server/discover`.
    discover_prefix: Vec<u8>,
    info: ServerInfo,
}

impl Envelope {
    pub(crate) fn new(info: &ServerInfo) -> Self {
        Envelope {
            sealed_prefix: sealed_prefix(&info.brief()),
            discover_prefix: sealed_prefix(info),
            info: info.clone(),
        }
    }

    /// The server's whole identity, as `initialize` carries it.
    pub(crate) fn server_info(&self) -> &ServerInfo {
        &self.info
    }

    /// Encodes a success response. At 2026-07-28 the result gains `resultType` and the
    /// `_meta` identity (spliced in pre-encoded: this runs on every call); a legacy result is
    /// written as it is.
    pub(crate) fn encode<T: Serialize + ?Sized>(
        &self,
        id: &RequestId,
        revision: Revision,
        result: &T,
    ) -> Vec<u8> {
        let prefix = revision.is_modern().then_some(&self.sealed_prefix[..]);
        encode_with(id, prefix, result)
    }

    /// Encodes a `server/discover` result: sealed for 2026-07-28 with the whole `serverInfo`.
    pub(crate) fn encode_discover<T: Serialize + ?Sized>(
        &self,
        id: &RequestId,
        result: &T,
    ) -> Vec<u8> {
        encode_with(id, Some(&self.discover_prefix), result)
    }
}

/// `"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo": info}`, the members
/// a 2026-07-28 result opens with.
fn sealed_prefix<I: Serialize>(info: &I) -> Vec<u8> {
    let mut prefix = b"\"resultType\":\"complete\",\"_meta\":".to_vec();
    // Serialising plain strings into a Vec cannot fail.
    let _ = serde_json::to_writer(&mut prefix, &ResultMeta { server_info: info });
    prefix
}

/// A success response for `id`: `result` as it is, or, given a sealing `prefix`, with the
/// prefix's members spliced in first (pre-encoded: this runs on every call).
fn encode_with<T: Serialize + ?Sized>(
    id: &RequestId,
    prefix: Option<&[u8]>,
    result: &T,
) -> Vec<u8> {
    // Room for a typical tool result: growing the buffer mid-write would copy it.
    let mut out = Vec::with_capacity(384 + prefix.map_or(0, <[u8]>::len));
    out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
    let _ = serde_json::to_writer(&mut out, id);
    out.extend_from_slice(b",\"result\":");
    match prefix {
        Some(prefix) => {
            out.push(b'{');
            out.extend_from_slice(prefix);
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
        }
        None => {
            let _ = serde_json::to_writer(&mut out, result);
        }
    }
    out.push(b'}');
    out
}
