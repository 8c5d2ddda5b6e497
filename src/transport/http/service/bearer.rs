//! The resource-server mode at the service: the metadata document, the bearer token checked
//! before the body is read, and the host's scope policy once the message names what it does.

use super::config::Config;
use crate::dispatch::Extensions;
use crate::protocol::{codes, Incoming, RpcError};
use crate::server::guarded;
use crate::transport::http::oauth::{
    credentials, is_scope_token, query_carries_token, Access, BearerToken, ChallengeError,
    Credentials, Grant, PolicyFault, RefusalKind, ResourceServer, TokenRefusal, VerifiedToken,
};
use crate::transport::http::rejection::{read_only, Rejection};
use bytes::Bytes;
use http::request::Parts;
use http::{header, Response, StatusCode};
use http_body_util::Full;
use serde_json::json;
use std::time::SystemTime;
use tokio::time::Instant;

/// The metadata document, to a `GET` (or `HEAD`) of either of its locations.
pub(super) fn metadata(
    rs: &ResourceServer,
    parts: &Parts,
) -> Result<Response<Full<Bytes>>, Rejection> {
    let body = rs.document().to_vec();
    read_only(parts, StatusCode::OK, body, rs.cache_control().clone())
}

/// What a request presented as its credentials, taken out of its head.
#[derive(Debug)]
pub(super) enum Presented {
    /// An `access_token` in the query string.
    InQuery,
    Absent,
    Bearer(BearerToken),
    Malformed,
    Several,
}

/// Takes the request's credentials out of its head: the `Authorization` header is removed, so
/// that the host's hooks, which see the head after this, never see a token.
pub(super) fn take_credentials(parts: &mut Parts) -> Presented {
    let presented = if parts.uri.query().is_some_and(query_carries_token) {
        Presented::InQuery
    } else {
        match credentials(&parts.headers) {
            Credentials::Bearer(token) => Presented::Bearer(BearerToken::new(token)),
            Credentials::Absent => Presented::Absent,
            Credentials::Malformed => Presented::Malformed,
            Credentials::Several => Presented::Several,
        }
    };
    parts.headers.remove(header::AUTHORIZATION);
    presented
}

/// The bearer token the request presented, verified: the caller's context (the host's
/// principal and the [`Grant`]), or the refusal RFC 6750 prescribes. Bounded by the read
/// deadline.
pub(super) async fn admit(
    rs: &ResourceServer,
    presented: Presented,
    deadline: Instant,
) -> Result<Extensions, Rejection> {
    let token = match presented {
        Presented::Bearer(token) => token,
        Presented::InQuery => {
            return Err(refusal(
                rs,
                StatusCode::BAD_REQUEST,
                ChallengeError::InvalidRequest,
                "access tokens are accepted only in the Authorization header",
            ));
        }
        Presented::Absent => {
            let error = RpcError::new(codes::INVALID_REQUEST, "Unauthorized");
            let challenge = rs.challenge(None, None);
            return Err(Rejection::new(StatusCode::UNAUTHORIZED, error).challenge(challenge));
        }
        Presented::Malformed => {
            return Err(invalid_token(rs, "the bearer token is malformed"));
        }
        Presented::Several => {
            return Err(refusal(
                rs,
                StatusCode::BAD_REQUEST,
                ChallengeError::InvalidRequest,
                "more than one Authorization header",
            ));
        }
    };
    let verifier = rs.verifier().clone();
    let resource = rs.resource_arc();
    let run = guarded(move || verifier.verify(token, resource));
    let verified = match tokio::time::timeout_at(deadline, run).await {
        Ok(Ok(Ok(verified))) => verified,
        Ok(Ok(Err(refused))) => return Err(refused_token(rs, &refused)),
        Ok(Err(())) => {
            tracing::error!("the token verifier panicked");
            return Err(Rejection::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                RpcError::internal(),
            ));
        }
        Err(_) => {
            tracing::warn!("the token verifier did not answer before the read deadline");
            return Err(Rejection::new(
                StatusCode::SERVICE_UNAVAILABLE,
                RpcError::internal(),
            ));
        }
    };
    accept(rs, verified)
}

/// What the crate checks of a token the verifier accepted: the audience, the expiry.
fn accept(rs: &ResourceServer, verified: VerifiedToken) -> Result<Extensions, Rejection> {
    let VerifiedToken {
        audience,
        scopes,
        expires_at,
        subject,
        mut extensions,
    } = verified;
    if !audience.iter().any(|a| a == rs.resource()) {
        return Err(refused_token(rs, &TokenRefusal::wrong_audience()));
    }
    if expires_at.is_some_and(|at| at <= SystemTime::now()) {
        return Err(refused_token(rs, &TokenRefusal::expired()));
    }
    extensions.insert(Grant {
        subject,
        scopes,
        expires_at,
    });
    Ok(extensions)
}

/// A verifier's refusal, answered as its kind says; the reason is logged, never sent.
fn refused_token(rs: &ResourceServer, refused: &TokenRefusal) -> Rejection {
    tracing::info!(reason = refused.reason(), "bearer token refused");
    match &refused.kind {
        RefusalKind::Invalid => invalid_token(rs, "the access token is invalid"),
        RefusalKind::Expired => invalid_token(rs, "the access token has expired"),
        RefusalKind::Audience => {
            invalid_token(rs, "the access token was not issued for this resource")
        }
        RefusalKind::Scope(needed) => insufficient_scope(Some(rs), needed),
        RefusalKind::Unavailable => {
            Rejection::new(StatusCode::SERVICE_UNAVAILABLE, RpcError::internal())
        }
    }
}

fn invalid_token(rs: &ResourceServer, description: &'static str) -> Rejection {
    refusal(
        rs,
        StatusCode::UNAUTHORIZED,
        ChallengeError::InvalidToken,
        description,
    )
}

/// A refusal with an RFC 6750 error: the challenge, and a JSON-RPC error carrying the same
/// code and description.
fn refusal(
    rs: &ResourceServer,
    status: StatusCode,
    error: ChallengeError,
    description: &'static str,
) -> Rejection {
    let message = if status == StatusCode::UNAUTHORIZED {
        "Unauthorized"
    } else {
        "Invalid request"
    };
    let body = RpcError::new(codes::INVALID_REQUEST, message).with_data(json!({
        "error": error.code(),
        "error_description": description,
    }));
    Rejection::new(status, body).challenge(rs.challenge(Some((error, description)), None))
}

/// 403 `insufficient_scope` naming `scopes`, with the metadata's URL when there is a
/// resource server. A scope that is not a scope-token cannot be quoted in a challenge nor
/// granted by any authorization server: the host's bug, answered 500 and logged.
pub(super) fn insufficient_scope(rs: Option<&ResourceServer>, scopes: &[String]) -> Rejection {
    const DESCRIPTION: &str = "the access token lacks a scope this request needs";
    if let Some(bad) = scopes.iter().find(|s| !is_scope_token(s)) {
        return host_fault("insufficient_scope", bad);
    }
    let scope = scopes
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(" ");
    let error = Some((ChallengeError::InsufficientScope, DESCRIPTION));
    let challenge = match rs {
        Some(rs) => rs.challenge(error, Some(&scope)),
        None => crate::transport::http::oauth::Challenge {
            error,
            resource_metadata: None,
            scope: Some(&scope),
        }
        .header_value(),
    };
    let body = RpcError::new(codes::INVALID_REQUEST, "Forbidden").with_data(json!({
        "error": ChallengeError::InsufficientScope.code(),
        "error_description": DESCRIPTION,
        "scope": scope,
    }));
    Rejection::new(StatusCode::FORBIDDEN, body).challenge(challenge)
}

/// The host's scope policy on a decoded message: 403 naming the scopes granted and those
/// missing when the grant lacks one.
pub(super) fn check_scopes(
    c: &Config,
    m: &Incoming<'_>,
    extensions: &Extensions,
) -> Result<(), Rejection> {
    let (Some(rs), Some(grant)) = (&c.resource_server, extensions.get::<Grant>()) else {
        return Ok(());
    };
    let field = crate::protocol::methods::named_by(&m.method);
    let name = field.and_then(|f| m.params.as_ref()?.text(f));
    let access = Access {
        method: &m.method,
        name,
        grant,
        extensions,
    };
    let missing = match rs.missing_scopes(&access) {
        Ok(Some(missing)) => missing,
        Ok(None) => return Ok(()),
        Err(PolicyFault::Panicked) => {
            tracing::error!(hook = "scopes_needed", "the scope policy panicked");
            return Err(Rejection::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                RpcError::internal(),
            ));
        }
        Err(PolicyFault::NotAScope(bad)) => return Err(host_fault("scopes_needed", &bad)),
    };
    let mut scopes = grant.scopes().to_vec();
    scopes.extend(missing);
    Err(insufficient_scope(Some(rs), &scopes))
}

/// A scope the host named that is not an RFC 6749 `scope-token`: 500, nothing said, the fault
/// logged (the scope is the host's string, not the caller's).
fn host_fault(hook: &'static str, scope: &str) -> Rejection {
    tracing::error!(
        hook,
        scope,
        "a scope named by the host is not an RFC 6749 scope-token"
    );
    Rejection::new(StatusCode::INTERNAL_SERVER_ERROR, RpcError::internal())
}
