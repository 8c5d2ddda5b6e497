//! What several test modules share: an HTTP rig, the weather example as a child process, a
//! runtime host, the vendored MCP schemas, adversarial schemas and inputs, a seeded generator,
//! and the project's sources read as Rust.

// Also `tests/schema_bounded.rs`'s, `benches/schema_adversarial.rs`'s and the `schema_growth`
// fuzz target's (`#[path]`): each of the four uses a part of it.
#[allow(dead_code)]
pub(crate) mod adversarial;
pub(crate) mod child;
pub(crate) mod gate;
pub(crate) mod http;
pub(crate) mod log;
pub(crate) mod runtime_host;
pub(crate) mod source;
pub(crate) mod spec;
pub(crate) mod splitmix;
pub(crate) mod tenant;
