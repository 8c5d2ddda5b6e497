//! What a token verifier is given and answers: the bearer token (never printed), the token
//! it verified, why it refused one, and the grant a verified token leaves in the caller's
//! context.

use crate::dispatch::Extensions;
use std::borrow::Cow;
use std::fmt;
use std::future::Future;
use std::sync::Arc;
use std::time::SystemTime;

/// A bearer token as the client sent it in `Authorization: Bearer …`.
///
/// Its `Debug` prints no byte of it and it has no `Display`: a token that reaches a log line
/// through a `{:?}` says only `BearerToken(..)`. The verifier reads it with
/// [`BearerToken::secret`].
#[derive(Clone, PartialEq, Eq)]
pub struct BearerToken(String);

impl BearerToken {
    pub(crate) fn new(token: &str) -> Self {
        BearerToken(token.to_owned())
    }

    /// The token itself, for the verifier to check. Never log it.
    pub fn secret(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for BearerToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("BearerToken(..)")
    }
}

/// The host's token verifier: given a bearer token and the canonical resource URI it must
/// have been issued for, answers with what the token grants or why it is refused.
///
/// The crate does no cryptography: checking a JWT's signature against the authorization
/// server's keys, or asking the authorization server to introspect an opaque token, and
/// checking revocation, is the verifier's work. What the verifier returns, the crate checks
/// again: the audience must contain the resource and an expiry must lie ahead
/// ([`VerifiedToken`]).
///
/// A closure `Fn(BearerToken, Arc<str>) -> impl Future<Output = Result<VerifiedToken,
/// TokenRefusal>>` is a verifier.
///
/// # Cancel safety
///
/// The future is dropped when the request's client goes away or the request's read
/// deadline passes (503); it must not leave work half done that matters.
pub trait TokenVerifier: Send + Sync + 'static {
    /// Verifies `token`, which must have been issued for `resource`.
    fn verify(
        &self,
        token: BearerToken,
        resource: Arc<str>,
    ) -> crate::BoxFuture<Result<VerifiedToken, TokenRefusal>>;
}

impl<F, Fut> TokenVerifier for F
where
    F: Fn(BearerToken, Arc<str>) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<VerifiedToken, TokenRefusal>> + Send + 'static,
{
    fn verify(
        &self,
        token: BearerToken,
        resource: Arc<str>,
    ) -> crate::BoxFuture<Result<VerifiedToken, TokenRefusal>> {
        Box::pin(self(token, resource))
    }
}

/// A token the verifier accepted: its audience, scopes, expiry and subject, and the
/// principal the host built from it.
///
/// ```
/// use beam_mcp::transport::http::oauth::VerifiedToken;
/// use std::time::{Duration, SystemTime};
///
/// #[derive(Debug)]
/// struct Principal(String);
///
/// let token = VerifiedToken::new(["https://mcp.example.com/mcp"])
///     .subject("alice")
///     .scopes(["weather:read"])
///     .expires_at(SystemTime::now() + Duration::from_secs(300))
///     .with(Principal("alice".into()));
/// # let _ = token;
/// ```
#[derive(Debug, Clone)]
pub struct VerifiedToken {
    pub(crate) audience: Vec<String>,
    pub(crate) scopes: Vec<String>,
    pub(crate) expires_at: Option<SystemTime>,
    pub(crate) subject: Option<String>,
    pub(crate) extensions: Extensions,
}

impl VerifiedToken {
    /// A token issued for `audience` (the `aud` claim, or the introspection answer's): the
    /// crate accepts it only if one of them is exactly the canonical resource URI.
    pub fn new<I, S>(audience: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        VerifiedToken {
            audience: audience.into_iter().map(Into::into).collect(),
            scopes: Vec::new(),
            expires_at: None,
            subject: None,
            extensions: Extensions::new(),
        }
    }

    /// The scopes the token grants (the `scope` claim, split on spaces).
    #[must_use]
    pub fn scopes<I, S>(mut self, scopes: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// When the token expires (the `exp` claim): a token at or past it is refused as
    /// expired, whatever the verifier said.
    #[must_use]
    pub fn expires_at(mut self, at: SystemTime) -> Self {
        self.expires_at = Some(at);
        self
    }

    /// Whom the token was issued to (the `sub` claim), for [`Grant::subject`].
    #[must_use]
    pub fn subject(mut self, subject: impl Into<String>) -> Self {
        self.subject = Some(subject.into());
        self
    }

    /// Attaches a value of the host's (its principal) to the caller's context: tools,
    /// readers, renderers and completers read it as [`crate::CallContext::extensions`].
    #[must_use]
    pub fn with<T: Send + Sync + 'static>(mut self, value: T) -> Self {
        self.extensions.insert(value);
        self
    }

    /// Attaches every value of `extensions`, as [`VerifiedToken::with`] does one.
    #[must_use]
    pub fn extensions(mut self, extensions: Extensions) -> Self {
        self.extensions.extend(extensions);
        self
    }
}

/// What an accepted token granted, left in the caller's context
/// ([`crate::CallContext::extensions`]`.get::<Grant>()`) beside the host's principal. It
/// holds no byte of the token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grant {
    pub(crate) subject: Option<String>,
    pub(crate) scopes: Vec<String>,
    pub(crate) expires_at: Option<SystemTime>,
}

impl Grant {
    /// Whom the token was issued to, when the verifier said.
    pub fn subject(&self) -> Option<&str> {
        self.subject.as_deref()
    }

    /// The scopes granted.
    pub fn scopes(&self) -> &[String] {
        &self.scopes
    }

    /// Whether `scope` is granted.
    pub fn has_scope(&self, scope: &str) -> bool {
        self.scopes.iter().any(|s| s == scope)
    }

    /// When the token expires, when the verifier said.
    pub fn expires_at(&self) -> Option<SystemTime> {
        self.expires_at
    }
}

/// Why a verifier refused a token. Each kind is answered as RFC 6750 and the MCP
/// authorization specification say; the reason goes to the log, never to the caller.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenRefusal {
    pub(crate) kind: RefusalKind,
    reason: Cow<'static, str>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum RefusalKind {
    Invalid,
    Expired,
    Audience,
    Scope(Vec<String>),
    Unavailable,
}

impl TokenRefusal {
    /// Not a token of the authorization server's (bad signature, unknown, revoked, not
    /// issued to this resource server's realm): 401 `error="invalid_token"`.
    pub fn invalid(reason: impl Into<Cow<'static, str>>) -> Self {
        Self::of(RefusalKind::Invalid, reason)
    }

    /// Expired: 401 `error="invalid_token"`, described as expired.
    pub fn expired() -> Self {
        Self::of(RefusalKind::Expired, "expired")
    }

    /// Issued for another resource: 401 `error="invalid_token"`, described so.
    pub fn wrong_audience() -> Self {
        Self::of(RefusalKind::Audience, "issued for another resource")
    }

    /// A valid token that lacks a scope: 403 `error="insufficient_scope"` naming `scopes`,
    /// which should be every scope the client should then hold (what the token has and what
    /// it lacks): a client stepping up may ask for exactly these. A scope that is not an RFC
    /// 6749 `scope-token` makes the answer a 500 (the host's bug, logged).
    pub fn insufficient_scope<I, S>(scopes: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let needed = scopes.into_iter().map(Into::into).collect();
        Self::of(RefusalKind::Scope(needed), "insufficient scope")
    }

    /// The verifier could not decide (its introspection endpoint is down): 503, nothing
    /// said. The client should try again later, not log in again.
    pub fn unavailable(reason: impl Into<Cow<'static, str>>) -> Self {
        Self::of(RefusalKind::Unavailable, reason)
    }

    fn of(kind: RefusalKind, reason: impl Into<Cow<'static, str>>) -> Self {
        TokenRefusal {
            kind,
            reason: reason.into(),
        }
    }

    /// The reason, as logged.
    pub fn reason(&self) -> &str {
        &self.reason
    }

    /// Whether this is [`TokenRefusal::expired`].
    pub fn is_expired(&self) -> bool {
        self.kind == RefusalKind::Expired
    }

    /// Whether this is [`TokenRefusal::wrong_audience`].
    pub fn is_wrong_audience(&self) -> bool {
        self.kind == RefusalKind::Audience
    }

    /// Whether this is [`TokenRefusal::insufficient_scope`].
    pub fn is_insufficient_scope(&self) -> bool {
        matches!(self.kind, RefusalKind::Scope(_))
    }

    /// Whether this is [`TokenRefusal::unavailable`].
    pub fn is_unavailable(&self) -> bool {
        self.kind == RefusalKind::Unavailable
    }
}

impl fmt::Display for TokenRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "token refused: {}", self.reason)
    }
}

impl std::error::Error for TokenRefusal {}
