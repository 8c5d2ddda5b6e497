//! Responses: a status plus a JSON-RPC error object, or a core reply with its status.

use crate::protocol::{codes, encode_error, RequestId, RpcError};
use bytes::Bytes;
use http::{header, HeaderValue, Response, StatusCode, Version};
use http_body_util::Full;
use std::borrow::Cow;
use std::fmt;

/// A hook's refusal of a request. The reason goes to the log; the caller sees an opaque 403,
/// or, for [`Forbidden::insufficient_scope`], a 403 `insufficient_scope` challenge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Forbidden {
    reason: Cow<'static, str>,
    scopes: Option<Vec<String>>,
}

impl Forbidden {
    /// A refusal, with a reason for the log.
    pub fn new(reason: impl Into<Cow<'static, str>>) -> Self {
        Forbidden {
            reason: reason.into(),
            scopes: None,
        }
    }

    /// A refusal because the caller's token lacks a scope: answered 403 with
    /// `WWW-Authenticate: Bearer error="insufficient_scope", scope="…"` naming `scopes`
    /// (name every scope the client should then hold, not only the missing one: a client
    /// stepping up asks for what the challenge names), and the metadata's URL when the
    /// service is a [resource server](crate::transport::http::oauth). A scope that is not an
    /// RFC 6749 `scope-token` (printable ASCII without space, `"` or `\`) cannot be asked for:
    /// the refusal is then answered 500, the host's bug, logged.
    pub fn insufficient_scope<I, S>(scopes: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Forbidden {
            reason: Cow::Borrowed("insufficient scope"),
            scopes: Some(scopes.into_iter().map(Into::into).collect()),
        }
    }

    /// The reason, as logged.
    pub fn reason(&self) -> &str {
        &self.reason
    }

    /// Whether this is [`Forbidden::insufficient_scope`].
    pub fn is_insufficient_scope(&self) -> bool {
        self.scopes.is_some()
    }

    /// The scopes an [`Forbidden::insufficient_scope`] names.
    pub(crate) fn scopes(&self) -> Option<&[String]> {
        self.scopes.as_deref()
    }
}

impl fmt::Display for Forbidden {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "request refused: {}", self.reason)
    }
}

impl std::error::Error for Forbidden {}

/// The status a core reply travels with.
pub(crate) fn status_of(error: Option<i64>) -> StatusCode {
    match error {
        None => StatusCode::OK,
        Some(codes::METHOD_NOT_FOUND) => StatusCode::NOT_FOUND,
        Some(codes::INTERNAL_ERROR) => StatusCode::INTERNAL_SERVER_ERROR,
        Some(
            codes::PARSE_ERROR
            | codes::INVALID_REQUEST
            | codes::HEADER_MISMATCH
            | codes::MISSING_REQUIRED_CLIENT_CAPABILITY
            | codes::UNSUPPORTED_PROTOCOL_VERSION,
        ) => StatusCode::BAD_REQUEST,
        // What is left is answered about the request's content (an unknown tool, invalid
        // arguments, a resource not found): the envelope was fine, so 200.
        Some(_) => StatusCode::OK,
    }
}

/// A JSON response.
pub(crate) fn json(status: StatusCode, body: Vec<u8>) -> Response<Full<Bytes>> {
    let mut r = Response::new(Full::new(Bytes::from(body)));
    *r.status_mut() = status;
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    r
}

/// A JSON document read with `GET` or `HEAD` (the OAuth metadata, the health answers): `body`
/// with `cache_control`, its length and no body to a `HEAD`, and 405 (`Allow: GET, HEAD`) to
/// any other method.
pub(crate) fn read_only(
    parts: &http::request::Parts,
    status: StatusCode,
    body: Vec<u8>,
    cache_control: HeaderValue,
) -> Result<Response<Full<Bytes>>, Rejection> {
    let head = parts.method == http::Method::HEAD;
    if parts.method != http::Method::GET && !head {
        let mut r = Rejection::new(
            StatusCode::METHOD_NOT_ALLOWED,
            RpcError::invalid_request("only GET is served here"),
        );
        r.allow = Some("GET, HEAD");
        return Err(r);
    }
    let len = body.len();
    let mut r = json(status, if head { Vec::new() } else { body });
    r.headers_mut().insert(header::CACHE_CONTROL, cache_control);
    if head {
        r.headers_mut()
            .insert(header::CONTENT_LENGTH, HeaderValue::from(len));
    }
    Ok(r)
}

/// A refusal the transport issues itself.
#[derive(Debug)]
pub(crate) struct Rejection {
    pub(crate) status: StatusCode,
    pub(crate) error: Box<RpcError>,
    pub(crate) id: Option<RequestId>,
    /// Issued before the body was read: an HTTP/1.1 connection cannot be reused.
    pub(crate) unread: bool,
    /// A 405: say which methods are served (`Allow`).
    pub(crate) allow: Option<&'static str>,
    /// A 401 or 403 of the resource-server mode: its `WWW-Authenticate` challenge.
    pub(crate) challenge: Option<HeaderValue>,
}

impl Rejection {
    pub(crate) fn new(status: StatusCode, error: RpcError) -> Self {
        Rejection {
            status,
            error: Box::new(error),
            id: None,
            unread: false,
            allow: None,
            challenge: None,
        }
    }

    /// The same refusal, issued before the body was read.
    pub(crate) fn unread(mut self) -> Self {
        self.unread = true;
        self
    }

    /// The same refusal, answering request `id`.
    pub(crate) fn id(mut self, id: Option<RequestId>) -> Self {
        self.id = id;
        self
    }

    /// The same refusal, with a `WWW-Authenticate` challenge.
    pub(crate) fn challenge(mut self, challenge: HeaderValue) -> Self {
        self.challenge = Some(challenge);
        self
    }

    /// -32600 with a fixed message and no detail.
    pub(crate) fn opaque(status: StatusCode, message: &'static str) -> Self {
        Rejection::new(status, RpcError::new(codes::INVALID_REQUEST, message))
    }

    pub(crate) fn into_response(self, version: Version) -> Response<Full<Bytes>> {
        let mut r = json(self.status, encode_error(self.id.as_ref(), &self.error));
        if let Some(allow) = self.allow {
            r.headers_mut()
                .insert(header::ALLOW, HeaderValue::from_static(allow));
        }
        if let Some(challenge) = self.challenge {
            r.headers_mut().insert(header::WWW_AUTHENTICATE, challenge);
        }
        // HTTP/2 forbids connection-specific headers; its streams end on their own.
        if self.unread && version <= Version::HTTP_11 {
            r.headers_mut()
                .insert(header::CONNECTION, HeaderValue::from_static("close"));
        }
        r
    }
}
