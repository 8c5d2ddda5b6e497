//! The MCP headers against the decoded body: the revision a request is served at (its era,
//! from `MCP-Protocol-Version`), `Mcp-Method`, `Mcp-Name` and the `Mcp-Param-*` headers.

use super::config::Config;
use crate::dispatch::Extensions;
use crate::protocol::{codes, Incoming, Revision, RpcError};
use crate::server::{Era, Snapshot, VersionHeaderFault};
use crate::transport::http::headers::{self, Encoding, Head, HeaderError, Presence, Read};
use crate::transport::http::rejection::Rejection;
use http::StatusCode;
use serde_json::{json, Value};
use std::sync::Arc;

const MODERN: &str = Revision::V2026_07_28.as_str();

/// The era of a request, negotiated by the core ([`Era::of_http`]) from the
/// `MCP-Protocol-Version` header's value and the body's `_meta`. Checked once the body is
/// decoded, so that the refusal echoes the request's id.
pub(super) fn era_of(config: &Config, head: &Head<'_>, m: &Incoming<'_>) -> Result<Era, Rejection> {
    let header = head
        .single(Read::ProtocolVersion, Encoding::Plain)
        .map_err(|e| mismatch(&e))?;
    let name = || Read::ProtocolVersion.name().to_string();
    Era::of_http(header.as_deref(), m.meta(), config.served()).map_err(|fault| match fault {
        VersionHeaderFault::Missing => mismatch(&HeaderError::Missing(name())),
        VersionHeaderFault::Mismatch => mismatch(&HeaderError::Mismatch(name())),
        VersionHeaderFault::Unsupported(e) => Rejection::new(StatusCode::BAD_REQUEST, e),
    })
}

/// `Mcp-Name` and the `Mcp-Param-*` headers of a tool call: required at 2026-07-28; at
/// 2025-11-25, which defines none of them, checked against the body when present. At both,
/// an `Mcp-Name` on a method that names nothing, and an `Mcp-Param-*` that names no
/// `x-mcp-header` argument of the called tool (or sits on a request that calls no tool),
/// are refused: a proxy would route on what the server never reads.
pub(super) fn check_names(
    server: &Snapshot,
    head: &Head<'_>,
    m: &Incoming<'_>,
    presence: Presence,
    caller: &Extensions,
) -> Result<(), HeaderError> {
    let field = match crate::protocol::methods::named_by(&m.method) {
        Some(field) => field,
        // A method that names nothing: an `Mcp-Name` would route it as if it did.
        None if head.has(Read::McpName) => {
            return Err(HeaderError::Unexpected(Read::McpName.name().to_string()))
        }
        None => return params_named_in(head, &[]),
    };
    let params = m.params.as_ref();
    let named = params.and_then(|p| p.text(field));
    head.require_eq(Read::McpName, Encoding::MayEncode, named, presence)?;
    if m.method != "tools/call" {
        return params_named_in(head, &[]);
    }
    let Some((name, annotated)) = named.and_then(|n| Some((n, server.tool_headers(n, caller)?)))
    else {
        // No such tool: it has no annotated argument for a header to name.
        return params_named_in(head, &[]);
    };
    let args = params
        .and_then(|p| p.arguments.as_ref())
        .and_then(Value::as_object);
    for (header, property) in annotated {
        let arg = args.and_then(|a| a.get(&**property));
        headers::check_param(head.map(), header, arg, presence)?;
    }
    match params_named_in(head, annotated) {
        // A tool whose own annotations are faulty is refused as an internal error when it
        // is called (500, the diagnosis logged): the caller's headers are not at fault.
        Err(_) if server.tool_has_header_fault(name) => Ok(()),
        checked => checked,
    }
}

/// Every `Mcp-Param-*` header must name one of `annotated` (the called tool's `x-mcp-header`
/// names, compared case-insensitively as header names are).
fn params_named_in(head: &Head<'_>, annotated: &[(String, Arc<str>)]) -> Result<(), HeaderError> {
    for name in head.params() {
        let suffix = &name.as_str()[headers::PARAM_PREFIX.len()..];
        if !annotated
            .iter()
            .any(|(h, _)| h.eq_ignore_ascii_case(suffix))
        {
            return Err(HeaderError::Unannotated(name.to_string()));
        }
    }
    Ok(())
}

/// Whether the request's `MCP-Protocol-Version` names 2026-07-28 (in any of its values).
pub(super) fn says_modern(head: &Head<'_>) -> bool {
    head.values(Read::ProtocolVersion)
        .any(|v| v.as_bytes() == MODERN.as_bytes())
}

/// 400 -32020: a header that is missing, malformed, or disagrees with the body.
pub(super) fn mismatch(e: &HeaderError) -> Rejection {
    Rejection::new(
        StatusCode::BAD_REQUEST,
        RpcError::new(codes::HEADER_MISMATCH, "Header mismatch")
            .with_data(json!({ "header": e.header(), "reason": e.to_string() })),
    )
}
