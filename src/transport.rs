//! The transports: the only code that knows bytes on a wire.
//!
//! - [`stdio`]: newline-delimited JSON-RPC over a pipe, dual-era.

pub mod stdio;
