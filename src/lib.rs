//! BeamMCP: a Model Context Protocol server core in the OTP style.
//!
//! A host hands this crate a [`Catalog`] of tools, resources and prompts and one
//! [`Dispatch`] function, and gets a hardened MCP server on stdio, dual-era
//! (2026-07-28 and 2025-11-25). The crate holds no tools, no domain and no policy: it decides
//! what a well-formed request is and refuses one that is not.
//!
//! ```
//! use beam_mcp::{Carrier, Catalog, Answer, Server, ServerConfig, ToolOutput, ToolSpec};
//! use serde_json::json;
//!
//! # tokio_test_block_on(async {
//! let catalog = Catalog::new().tool(
//!     ToolSpec::new("get_weather", "Read the current weather for a place.").with_input_schema(json!({
//!         "type": "object",
//!         "properties": {"place": {"type": "string"}},
//!         "required": ["place"]
//!     })),
//! );
//! let server = Server::new(ServerConfig::new(catalog).dispatch(|call: beam_mcp::ToolCall| async move {
//!     let place = call.arguments.get("place").and_then(|v| v.as_str()).unwrap_or("?").to_owned();
//!     Ok(ToolOutput::text(format!("12°C in {place}")))
//! }))?;
//! let frame = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_weather","arguments":{"place":"Oslo"}}}"#;
//! let Answer::Reply(reply) = server.answer(frame, Carrier::Stdio).await else { unreachable!() };
//! let answer: serde_json::Value = serde_json::from_slice(reply.bytes()).unwrap();
//! assert_eq!(answer["result"]["content"][0]["text"], "12°C in Oslo");
//! # Ok::<(), beam_mcp::ConfigError>(())
//! # }).unwrap();
//! # fn tokio_test_block_on<F: std::future::Future>(f: F) -> F::Output {
//! #     tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(f)
//! # }
//! ```
#![deny(missing_docs, unsafe_code)]
#![warn(unreachable_pub, missing_debug_implementations)]
#![cfg_attr(not(test), warn(clippy::unwrap_used, clippy::expect_used))]

pub mod catalog;
#[cfg(feature = "connectome")]
pub mod connectome;
pub mod content;
mod dispatch;
mod error;
pub mod handler;
pub mod health;
pub mod metrics;
mod model;
#[cfg(feature = "otel")]
pub mod otel;
#[cfg(not(feature = "otel"))]
mod otel;
pub mod protocol;
pub mod runtime;
pub mod schema;
mod server;
pub mod transport;

/// Entry points for the fuzz targets in `fuzz/` to reach code that is not public (the JSON-RPC
/// decoder, the cursor codec, the template matcher). **Not API**: hidden from the docs, exempt
/// from semver, and may change or vanish in any release.
#[doc(hidden)]
pub mod __fuzz {
    pub use crate::catalog::cursor::{CursorCodec, CursorError, ListKind};
    use crate::catalog::template::UriTemplate;
    pub use crate::catalog::TemplateError;
    pub use crate::protocol::decode::decode;
    pub use crate::protocol::jsonrpc::{FrameError, Incoming, Member, Meta, Params, Text};

    /// Parses `template` as a resource template (the RFC 6570 subset `{var}`, `{+var}`) and
    /// reports whether `uri` is one of its expansions, as `resources/read` matches it.
    ///
    /// # Errors
    /// The [`TemplateError`] the catalog refuses the template with.
    pub fn template_matches(template: &str, uri: &str) -> Result<bool, TemplateError> {
        UriTemplate::parse(template).map(|t| t.matches(uri))
    }

    /// The variable names of `template`, in order of first appearance, each once.
    ///
    /// # Errors
    /// As [`template_matches`].
    pub fn template_variables(template: &str) -> Result<Vec<String>, TemplateError> {
        UriTemplate::parse(template).map(|t| t.variables().iter().map(|v| v.to_string()).collect())
    }
}

pub use catalog::validated::HeaderFaultPolicy;
pub use catalog::{Catalog, ToolSpec};
pub use content::Content;
pub use dispatch::{
    BoxFuture, CallContext, CancellationToken, Carrier, Dispatch, Extensions, ToolCall, ToolError,
    ToolOutput, DISPATCH_TARGET,
};
pub use error::{ConfigError, ConfigItem, HeaderFault};
pub use handler::{Args, Extension, Json};
pub use protocol::outcome::{Outcome, Refused, Unserved};
pub use schema::Arguments;
pub use server::{Answer, Pending, Reply, Server, ServerConfig, Step, DEFAULT_PAGE_SIZE};

/// The README's Rust examples, compiled as doctests so they cannot drift from the API.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

/// The Rust examples of the guide pages under `docs/`, compiled as the README's are.
#[cfg(doctest)]
#[doc = include_str!("../docs/embedding.md")]
#[doc = include_str!("../docs/runtime.md")]
#[doc = include_str!("../docs/http.md")]
#[doc = include_str!("../docs/oauth.md")]
struct DocsDoctests;

/// `docs/tracing.md`'s Rust example, compiled with the `otel` feature it needs.
#[cfg(all(doctest, feature = "otel"))]
#[doc = include_str!("../docs/tracing.md")]
struct TracingDoctests;
