//! The error codes this server answers with.

/// The message is not valid JSON.
pub const PARSE_ERROR: i64 = -32700;
/// The message is JSON but not a valid request (a batch, nesting past the bound, a
/// missing `method`, an oversized line...).
pub const INVALID_REQUEST: i64 = -32600;
/// The method is not served at the request's revision.
pub const METHOD_NOT_FOUND: i64 = -32601;
/// The parameters are invalid: unknown tool, invalid arguments, malformed `_meta`...
pub const INVALID_PARAMS: i64 = -32602;
/// The server failed: a host fault, a misconfigured schema, an overloaded pool.
pub const INTERNAL_ERROR: i64 = -32603;
/// A resource is not found (2025-11-25; 2026-07-28 uses [`INVALID_PARAMS`]).
pub const RESOURCE_NOT_FOUND: i64 = -32002;
/// HTTP headers disagree with the body, or a required header is missing or malformed.
pub const HEADER_MISMATCH: i64 = -32020;
/// A request needs a client capability the request did not declare.
pub const MISSING_REQUIRED_CLIENT_CAPABILITY: i64 = -32021;
/// The request names a protocol revision this server does not serve.
pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;
