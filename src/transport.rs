//! The transports: the only code that knows bytes on a wire.
//!
//! - [`stdio`]: newline-delimited JSON-RPC over a pipe, dual-era.
//! - [`http`]: stateless Streamable HTTP (2026-07-28 and 2025-11-25), HTTP/1.1 and h2c on one port
//!   (feature `http`).

mod exec;
#[cfg(feature = "http")]
pub mod http;
pub mod stdio;

pub(crate) use exec::{Direct, Done, RunPending};
