//! The sans-IO protocol core: JSON-RPC 2.0 framing, the JSON beneath it that refuses a
//! repeated key, the nesting pre-scan, protocol revisions, error codes and the result envelope
//! of each revision.
//!
//! Nothing here does IO, spawns a task or knows a transport: every item is a function from
//! values (bytes, JSON) to values. The transports in [`crate::transport`] feed frames in and
//! write what comes out.

pub mod codes;
pub(crate) mod decode;
mod depth;
mod encode;
mod envelope;
mod error;
pub(crate) mod jsonrpc;
pub(crate) mod methods;
pub(crate) mod outcome;
mod revision;
mod strict_json;

pub use crate::model::{CacheScope, ServerInfo};
pub(crate) use decode::decode;
pub use depth::{exceeds_depth, MAX_DEPTH};
pub use encode::{encode_error, encode_result};
pub use envelope::{CacheHint, Cacheable};
pub(crate) use envelope::{CacheHints, Envelope};
pub(crate) use error::bounded;
pub use error::{RpcError, MAX_ECHO_BYTES};
pub(crate) use jsonrpc::{
    Incoming, Member, Meta, Params, Text, META_CLIENT_CAPABILITIES, META_PROTOCOL_VERSION,
};
pub use jsonrpc::{RequestId, MAX_ID_BYTES};
pub use revision::{Revision, UnknownRevision};
