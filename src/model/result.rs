//! The results the server writes: each the members its schema names. The envelope
//! (`protocol`) adds what a revision puts around every result (`resultType` and the `_meta`
//! identity at 2026-07-28).

use super::completion::Completion;
use super::content::{Content, ResourceContents};
use super::implementation::ServerInfo;
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

/// Who may cache a cacheable 2026-07-28 result (`cacheScope`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
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

/// `ttlMs` and `cacheScope`, the members a cacheable 2026-07-28 result adds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct CacheMembers {
    pub(crate) ttl_ms: u64,
    pub(crate) cache_scope: CacheScope,
}

/// A result with no members of its own (`ping`, `shutdown`).
#[derive(Debug, Serialize)]
pub(crate) struct EmptyResult {}

/// `{}`: a capability with no settings (`completions`).
#[derive(Debug, Serialize)]
pub(crate) struct NoSettings {}

/// The list capabilities' one setting: this server's lists never change while it serves.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ListCapability {
    pub(crate) list_changed: bool,
}

/// The `resources` capability.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ResourcesCapability {
    pub(crate) list_changed: bool,
    pub(crate) subscribe: bool,
}

/// `ServerCapabilities`: each present when the server offers it.
#[derive(Debug, Default, Serialize)]
pub(crate) struct ServerCapabilities<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) tools: Option<ListCapability>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) resources: Option<ResourcesCapability>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) prompts: Option<ListCapability>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) completions: Option<NoSettings>,
    /// 2026-07-28 only: the extensions the host declared, by identifier.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) extensions: Option<&'a Map<String, Value>>,
}

/// The 2025-11-25 `InitializeResult`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct InitializeResult<'a> {
    pub(crate) protocol_version: &'a str,
    pub(crate) capabilities: ServerCapabilities<'a>,
    pub(crate) server_info: &'a ServerInfo,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) instructions: Option<&'a str>,
}

/// The 2026-07-28 `DiscoverResult`'s own members (its `serverInfo` travels in `_meta`).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct DiscoverResult<'a> {
    pub(crate) supported_versions: Vec<&'a str>,
    pub(crate) capabilities: ServerCapabilities<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) instructions: Option<&'a str>,
    #[serde(flatten)]
    pub(crate) cache: CacheMembers,
}

/// The page of a list result, under the member its method names; entries are copied from
/// their pre-encoded bytes.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) enum Page<'a> {
    /// `tools/list`.
    Tools(Vec<&'a RawValue>),
    /// `resources/list`.
    Resources(Vec<&'a RawValue>),
    /// `resources/templates/list`.
    ResourceTemplates(Vec<&'a RawValue>),
    /// `prompts/list`.
    Prompts(Vec<&'a RawValue>),
}

/// A `ListToolsResult`, `ListResourcesResult`, `ListResourceTemplatesResult` or
/// `ListPromptsResult`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ListResult<'a> {
    #[serde(flatten)]
    pub(crate) page: Page<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) next_cursor: Option<String>,
    /// 2026-07-28 only.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub(crate) cache: Option<CacheMembers>,
}

/// A `CallToolResult`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct CallToolResult<'a> {
    pub(crate) content: &'a [Content],
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) structured_content: Option<&'a Value>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub(crate) is_error: bool,
}

/// A `ReadResourceResult`.
#[derive(Debug, Serialize)]
pub(crate) struct ReadResourceResult<'a> {
    pub(crate) contents: &'a [ResourceContents],
    /// 2026-07-28 only.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub(crate) cache: Option<CacheMembers>,
}

/// A `CompleteResult`.
#[derive(Debug, Serialize)]
pub(crate) struct CompleteResult {
    pub(crate) completion: Completion,
}

/// The `_meta` every 2026-07-28 result opens with: the server's identity.
#[derive(Debug, Serialize)]
pub(crate) struct ResultMeta<'a, I: Serialize> {
    #[serde(rename = "io.modelcontextprotocol/serverInfo")]
    pub(crate) server_info: &'a I,
}
