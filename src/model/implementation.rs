//! The server's identity: the schema's `Implementation`.

use super::icon::Icon;
use serde::Serialize;

/// The server's identity, the schema's `Implementation`: `serverInfo` in the 2025-11-25
/// `initialize` result, and `_meta["io.modelcontextprotocol/serverInfo"]` on every 2026-07-28
/// result (whose schema, `ResultMetaObject`, makes it the same `Implementation`).
///
/// `initialize` and `server/discover` — where a client learns who it is talking to — carry
/// every member set: `name` and `version` always, `title`, `description`, `websiteUrl` and
/// `icons` when the host set them (`ServerConfig::server_title` and its siblings).
/// Every other 2026-07-28 result carries `name` and `version` only: the schema requires no
/// more, the specification calls the field one for logging and debugging, and a tool call
/// should not repeat the server's icons (data URIs, perhaps) on every answer.
///
/// Built by `Server::new` and read through `Server::info`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ServerInfo {
    /// The implementation name.
    pub name: String,
    /// The implementation version.
    pub version: String,
    /// A human-readable name, for display.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the server does, in a sentence or two.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The server's website: an https or http URL.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub website_url: Option<String>,
    /// Icons a client may show for the server.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub icons: Vec<Icon>,
}

impl ServerInfo {
    /// `name` and `version` alone: what every 2026-07-28 result but `server/discover` carries.
    pub(crate) fn brief(&self) -> BriefServerInfo<'_> {
        BriefServerInfo {
            name: &self.name,
            version: &self.version,
        }
    }
}

/// An `Implementation` with its two required members only.
#[derive(Debug, Clone, Copy, Serialize)]
pub(crate) struct BriefServerInfo<'a> {
    pub(crate) name: &'a str,
    pub(crate) version: &'a str,
}
