//! HTTP gatekeeping: what is decided before the body is decoded. The path, `Host` and
//! `Origin`, the method, the caller's hooks, `Content-Type` and `Accept`, and the body's
//! framing and size; every refusal here says nothing of the MCP message.

use super::config::{AuthorizeAsync, Config, MAX_BODY_BYTES};
use crate::dispatch::Extensions;
use crate::protocol::RpcError;
use crate::server::guarded;
use crate::transport::http::body::BodyError;
use crate::transport::http::headers::{self, Head, Read};
use crate::transport::http::rejection::{Forbidden, Rejection};
use bytes::Bytes;
use http::request::Parts;
use http::{Method, StatusCode};
use serde_json::json;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use tokio::time::Instant;

/// Everything decided from the head alone, before a byte of the body is read.
pub(super) fn check_head(c: &Config, parts: &Parts, head: &Head<'_>) -> Result<(), Rejection> {
    if c.path.as_deref().is_some_and(|p| p != parts.uri.path()) {
        return Err(Rejection::opaque(StatusCode::NOT_FOUND, "Not found"));
    }
    check_host_and_origin(c, parts, head)?;
    if parts.method != Method::POST {
        let mut r = Rejection::new(
            StatusCode::METHOD_NOT_ALLOWED,
            RpcError::invalid_request("only POST is served"),
        );
        r.allow = Some("POST");
        return Err(r);
    }
    match std::panic::catch_unwind(AssertUnwindSafe(|| (c.authorize)(parts))) {
        Ok(Ok(())) => {}
        Ok(Err(refusal)) => return Err(refused(c, "authorize", &refusal)),
        Err(_) => return Err(panicked("authorize")),
    }
    if let Some(refuse) = media_refusal(head) {
        return Err(refuse);
    }
    if head.has(Read::TransferEncoding) {
        return Err(Rejection::new(
            StatusCode::LENGTH_REQUIRED,
            RpcError::invalid_request("a Content-Length is required"),
        ));
    }
    for len in head.values(Read::ContentLength) {
        let n = len.to_str().ok().and_then(|s| s.trim().parse::<u64>().ok());
        match n {
            Some(n) if n <= MAX_BODY_BYTES as u64 => {}
            _ => return Err(too_large()),
        }
    }
    Ok(())
}

/// `Host` (or `:authority`) among the allowed hosts, and `Origin`, when sent, allowed: the
/// DNS-rebinding and cross-site rules every path answered keeps.
pub(super) fn check_host_and_origin(
    c: &Config,
    parts: &Parts,
    head: &Head<'_>,
) -> Result<(), Rejection> {
    let forbidden =
        |why: &'static str| Rejection::new(StatusCode::FORBIDDEN, RpcError::invalid_request(why));
    let mut any_host = false;
    for h in head.values(Read::Host) {
        any_host = true;
        let ok = h.to_str().is_ok_and(|h| headers::host_allowed(h, &c.hosts));
        if !ok {
            return Err(forbidden("host not allowed"));
        }
    }
    if let Some(a) = parts.uri.authority() {
        any_host = true;
        if !headers::host_allowed(a.as_str(), &c.hosts) {
            return Err(forbidden("host not allowed"));
        }
    }
    if !any_host {
        return Err(forbidden("host not allowed"));
    }
    for origin in head.values(Read::Origin) {
        if !c.origins.allows(origin) {
            return Err(forbidden("origin not allowed"));
        }
    }
    Ok(())
}

/// The asynchronous hook, caught if it panics and bounded by the read deadline.
pub(super) async fn run_authorize_async(
    c: &Config,
    hook: &Arc<AuthorizeAsync>,
    parts: &Parts,
    deadline: Instant,
) -> Result<Extensions, Rejection> {
    let run = guarded(|| hook(parts));
    match tokio::time::timeout_at(deadline, run).await {
        Ok(Ok(Ok(extensions))) => Ok(extensions),
        Ok(Ok(Err(refusal))) => Err(refused(c, "authorize_async", &refusal)),
        Ok(Err(())) => Err(panicked("authorize_async")),
        Err(_) => {
            tracing::warn!("authorize_async did not answer before the read deadline");
            Err(Rejection::new(
                StatusCode::SERVICE_UNAVAILABLE,
                RpcError::internal(),
            ))
        }
    }
}

/// The `authorize_body` hook, when set, on the body exactly as received; caught if it
/// panics.
pub(super) fn run_authorize_body(
    config: &Config,
    parts: &Parts,
    bytes: &Bytes,
) -> Result<(), Rejection> {
    if let Some(hook) = &config.authorize_body {
        match std::panic::catch_unwind(AssertUnwindSafe(|| hook(parts, bytes))) {
            Ok(Ok(())) => {}
            Ok(Err(refusal)) => return Err(refused(config, "authorize_body", &refusal)),
            Err(_) => return Err(panicked("authorize_body")),
        }
    }
    Ok(())
}

/// The refusal of a body that could not be read whole: too large (413, naming the limit),
/// too slow (408) or broken off (400).
pub(super) fn body_refusal(e: BodyError) -> Rejection {
    match e {
        BodyError::TooLarge => too_large(),
        BodyError::TimedOut => Rejection::opaque(StatusCode::REQUEST_TIMEOUT, "Request timeout"),
        BodyError::Failed => Rejection::opaque(StatusCode::BAD_REQUEST, "Body failed"),
    }
}

/// 413 naming the limit, for a declared or a read length over [`MAX_BODY_BYTES`].
fn too_large() -> Rejection {
    Rejection::new(
        StatusCode::PAYLOAD_TOO_LARGE,
        RpcError::invalid_request("body exceeds the limit")
            .with_data(json!({ "limit": MAX_BODY_BYTES })),
    )
}

/// `Content-Type`, when given, must be JSON (415); `Accept`, when given, must admit JSON, the
/// only thing this endpoint answers with (406). Absent headers are taken as JSON.
fn media_refusal(head: &Head<'_>) -> Option<Rejection> {
    // The media type's essence (before any parameter), compared byte-wise without
    // allocating: a value that is not visible ASCII (`to_str` fails) admits nothing.
    let essence_is = |v: &[u8], wanted: &[&str]| {
        let end = v.iter().position(|&b| b == b';').unwrap_or(v.len());
        let essence = v[..end].trim_ascii();
        wanted
            .iter()
            .any(|w| essence.eq_ignore_ascii_case(w.as_bytes()))
    };
    for v in head.values(Read::ContentType) {
        let json = v.to_str().is_ok() && essence_is(v.as_bytes(), &["application/json"]);
        if !json {
            return Some(Rejection::new(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                RpcError::invalid_request("Content-Type must be application/json"),
            ));
        }
    }
    let mut accepts = head.values(Read::Accept).peekable();
    if accepts.peek().is_some() {
        let admits_json = accepts.any(|v| {
            v.to_str().is_ok()
                && v.as_bytes()
                    .split(|&b| b == b',')
                    .any(|range| essence_is(range, &["application/json", "application/*", "*/*"]))
        });
        if !admits_json {
            return Some(Rejection::new(
                StatusCode::NOT_ACCEPTABLE,
                RpcError::invalid_request("Accept must admit application/json"),
            ));
        }
    }
    None
}

/// A hook's refusal: the reason is logged, the caller learns nothing but, for an
/// insufficient scope, the scopes to ask for.
fn refused(c: &Config, hook: &'static str, refusal: &Forbidden) -> Rejection {
    tracing::info!(hook, reason = refusal.reason(), "request refused");
    match refusal.scopes() {
        Some(scopes) => super::bearer::insufficient_scope(c.resource_server.as_ref(), scopes),
        None => Rejection::opaque(StatusCode::FORBIDDEN, "Forbidden"),
    }
}

/// A hook's panic: 500, nothing said; the hook is named in the log.
fn panicked(hook: &'static str) -> Rejection {
    tracing::error!(hook, "authorization hook panicked");
    Rejection::new(StatusCode::INTERNAL_SERVER_ERROR, RpcError::internal())
}
