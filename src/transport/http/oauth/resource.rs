//! The canonical resource URI, checked and normalised, and why a resource server could not be
//! built.

use std::fmt;

/// Checks the canonical resource URI and returns it in its normal form (RFC 3986 §6.2.2:
/// scheme and host in lower case, no default or empty port, no dot segments, percent-encoding
/// normalised) with that form's path. The normal form is what the metadata publishes and what
/// an audience must equal: clients that normalise the URL they were given (the Python SDK
/// does) ask the authorization server for exactly it.
pub(super) fn check(uri: &str) -> Result<(String, String), ResourceServerError> {
    let fault = |fault| ResourceServerError::Resource {
        uri: uri.to_owned(),
        fault,
    };
    let given = fluent_uri::Uri::parse(uri).map_err(|_| fault(ResourceFault::NotAUri))?;
    let normal = fluent_uri::normalize::Normalizer::new()
        .normalize(&given)
        .map_err(|_| fault(ResourceFault::NotAUri))?;
    let parsed = normal.borrow();
    if parsed.fragment().is_some() {
        return Err(fault(ResourceFault::Fragment));
    }
    if parsed.query().is_some() {
        return Err(fault(ResourceFault::Query));
    }
    let Some(authority) = parsed.authority().filter(|a| !a.host().is_empty()) else {
        return Err(fault(ResourceFault::NotAUri));
    };
    if authority.userinfo().is_some() {
        return Err(fault(ResourceFault::UserInfo));
    }
    let path = parsed.path().as_str();
    // The MCP specification's canonical server URI has no trailing slash; clients compare the
    // published resource with the URL they were given and refuse a mismatch.
    if path.len() > 1 && path.ends_with('/') {
        return Err(fault(ResourceFault::TrailingSlash));
    }
    let scheme = parsed.scheme().as_str();
    let host = authority.host();
    let loopback = host.eq_ignore_ascii_case("localhost")
        || host == "[::1]"
        || host
            .parse::<std::net::Ipv4Addr>()
            .is_ok_and(|ip| ip.is_loopback());
    let secure =
        scheme.eq_ignore_ascii_case("https") || (scheme.eq_ignore_ascii_case("http") && loopback);
    if !secure {
        return Err(fault(ResourceFault::Scheme));
    }
    let path = path.to_owned();
    Ok((normal.into_string(), path))
}

/// Whether `uri` is an absolute `http` or `https` URI with a host.
pub(super) fn is_web_uri(uri: &str) -> bool {
    use crate::catalog::icon::{check_link, WEBSITE_SCHEMES};
    check_link(uri, WEBSITE_SCHEMES).is_ok()
}

/// Why a canonical resource URI was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ResourceFault {
    /// Not an absolute URI with a host.
    NotAUri,
    /// Neither `https` nor `http` on a loopback host.
    Scheme,
    /// It has a fragment (RFC 8707 §2 forbids one).
    Fragment,
    /// It has a query (the crate derives the well-known location from the path alone).
    Query,
    /// It has user information (`user@host`).
    UserInfo,
    /// Its path, not the root, ends in `/` (the MCP specification's canonical form has none,
    /// and clients refuse a published resource that is not the URL they were given).
    TrailingSlash,
}

/// Why a [`ResourceServer`](super::ResourceServer) could not be built.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ResourceServerError {
    /// The canonical resource URI is unusable.
    Resource {
        /// The URI given.
        uri: String,
        /// What is wrong with it.
        fault: ResourceFault,
    },
    /// No authorization server was named.
    NoAuthorizationServer,
    /// An authorization server is not an absolute `http(s)` URI.
    AuthorizationServer {
        /// The URI given.
        uri: String,
    },
    /// A scope is not an RFC 6749 `scope-token` (printable ASCII, no space, `"` or `\`).
    Scope {
        /// The scope given.
        scope: String,
    },
    /// The documentation link is not an absolute `http(s)` URI.
    Documentation {
        /// The URI given.
        uri: String,
    },
}

impl fmt::Display for ResourceServerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ResourceServerError::Resource { uri, fault } => {
                let why = match fault {
                    ResourceFault::NotAUri => "is not an absolute URI with a host",
                    ResourceFault::Scheme => "is neither https nor http on a loopback host",
                    ResourceFault::Fragment => "has a fragment",
                    ResourceFault::Query => "has a query",
                    ResourceFault::UserInfo => "has user information",
                    ResourceFault::TrailingSlash => "has a trailing slash",
                };
                write!(f, "the resource URI {uri:?} {why}")
            }
            ResourceServerError::NoAuthorizationServer => {
                write!(
                    f,
                    "a resource server names at least one authorization server"
                )
            }
            ResourceServerError::AuthorizationServer { uri } => {
                write!(
                    f,
                    "the authorization server {uri:?} is not an absolute http(s) URI"
                )
            }
            ResourceServerError::Scope { scope } => {
                write!(f, "the scope {scope:?} is not an RFC 6749 scope-token")
            }
            ResourceServerError::Documentation { uri } => {
                write!(
                    f,
                    "the documentation link {uri:?} is not an absolute http(s) URI"
                )
            }
        }
    }
}

impl std::error::Error for ResourceServerError {}
