//! The wire model: every result, content block, capability and list entry the server writes,
//! as typed serde structs.
//!
//! A leaf: nothing here imports from the rest of the crate, and everything that writes a
//! result (the server's method table, the catalog's list entries, the envelope) encodes one
//! of these types rather than assembling a map. The host-facing value types ([`Content`],
//! [`ResourceContents`], [`Icon`], [`RenderedPrompt`], [`Completion`], [`ServerInfo`], …) are
//! their own wire form, re-exported where a host meets them (`beam_mcp::content`,
//! `beam_mcp::catalog`, `beam_mcp::protocol`). Checking a value (an icon's link, a `_meta`
//! key) is the catalog's job, not the model's: a type here holds what it is given.

mod completion;
pub(crate) mod content;
mod icon;
mod implementation;
pub(crate) mod listing;
mod prompt;
pub(crate) mod result;

pub use completion::{Completion, MAX_COMPLETION_VALUES};
pub use content::{
    Annotations, Content, ContentKind, InvalidPriority, ResourceBody, ResourceContents,
    ResourceLink, Role,
};
pub use icon::{Icon, IconTheme};
pub use implementation::ServerInfo;
pub use prompt::{PromptMessage, RenderedPrompt};
pub use result::CacheScope;
