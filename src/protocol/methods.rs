//! The MCP method table: every method name a server of either revision may receive, in one
//! place. Metrics count by these names and spans are named by them; any other name a caller
//! sends is counted and named as "other", so that no caller-chosen string becomes a label or
//! a span name.

/// The method names, requests and notifications, of 2026-07-28 and 2025-11-25 (including
/// those this server answers -32601, such as `resources/subscribe`).
pub(crate) const METHODS: [&str; 20] = [
    "server/discover",
    "initialize",
    "ping",
    "shutdown",
    "exit",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
    "prompts/list",
    "prompts/get",
    "completion/complete",
    "notifications/initialized",
    "notifications/cancelled",
    "notifications/progress",
    "notifications/roots/list_changed",
    "logging/setLevel",
];

/// `method`'s place in [`METHODS`], when it is one.
pub(crate) fn position(method: &str) -> Option<usize> {
    METHODS.iter().position(|known| *known == method)
}

/// The `params` member by which `method` names what it acts on: the tool of `tools/call`, the
/// prompt of `prompts/get` (`name`), the resource of `resources/read` (`uri`); `None` for a
/// method that names nothing. The `Mcp-Name` header and the OAuth scope policy read the same.
#[cfg_attr(not(feature = "http"), allow(dead_code))]
pub(crate) fn named_by(method: &str) -> Option<&'static str> {
    match method {
        "tools/call" | "prompts/get" => Some("name"),
        "resources/read" => Some("uri"),
        _ => None,
    }
}
