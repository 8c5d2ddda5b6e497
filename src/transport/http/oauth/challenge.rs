//! The wire forms of the resource-server mode, as pure functions: where the metadata document
//! lives (RFC 9728 §3.1), the `WWW-Authenticate: Bearer` challenge (RFC 6750 §3), how the
//! bearer token is read from a request (RFC 6750 §2.1), and the query string a token must not
//! travel in.

use http::header::{self, HeaderMap};
use http::HeaderValue;

/// The well-known suffix of RFC 9728.
pub(crate) const WELL_KNOWN: &str = "/.well-known/oauth-protected-resource";

/// Where the metadata of a resource whose path is `path` is published: the well-known
/// prefix inserted before the path (a path of `/` or nothing has the root form alone).
pub(crate) fn metadata_path(path: &str) -> String {
    let path = path.trim_end_matches('/');
    format!("{WELL_KNOWN}{path}")
}

/// Whether `s` is a `scope-token` of RFC 6749 §3.3 (`1*( %x21 / %x23-5B / %x5D-7E )`): one
/// that may stand in a quoted challenge parameter as it is.
pub(crate) fn is_scope_token(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| matches!(b, 0x21 | 0x23..=0x5B | 0x5D..=0x7E))
}

/// The error codes of RFC 6750 §3.1 the crate answers with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ChallengeError {
    /// 400: a request the resource server cannot read (two `Authorization` headers, a token
    /// in the query string).
    InvalidRequest,
    /// 401: a token that is malformed, unknown, expired or issued for another resource.
    InvalidToken,
    /// 403: a valid token without a scope the request needs.
    InsufficientScope,
}

impl ChallengeError {
    pub(crate) fn code(self) -> &'static str {
        match self {
            ChallengeError::InvalidRequest => "invalid_request",
            ChallengeError::InvalidToken => "invalid_token",
            ChallengeError::InsufficientScope => "insufficient_scope",
        }
    }
}

/// One `WWW-Authenticate: Bearer …` challenge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Challenge<'a> {
    /// The error and its description; absent when the request carried no token at all
    /// (RFC 6750 §3.1: no error code then).
    pub(crate) error: Option<(ChallengeError, &'static str)>,
    /// The metadata document's URL.
    pub(crate) resource_metadata: Option<&'a str>,
    /// The scopes the client should ask for, space-separated.
    pub(crate) scope: Option<&'a str>,
}

impl Challenge<'_> {
    /// The header value. Every parameter is a quoted string whose content needs no escape:
    /// the descriptions are the crate's own, the URL a checked URI and the scopes checked
    /// scope-tokens.
    pub(crate) fn header_value(&self) -> HeaderValue {
        let mut params = Vec::with_capacity(4);
        if let Some((error, description)) = self.error {
            params.push(format!("error=\"{}\"", error.code()));
            params.push(format!("error_description=\"{description}\""));
        }
        if let Some(url) = self.resource_metadata {
            params.push(format!("resource_metadata=\"{url}\""));
        }
        if let Some(scope) = self.scope.filter(|s| !s.is_empty()) {
            params.push(format!("scope=\"{scope}\""));
        }
        let value = if params.is_empty() {
            "Bearer".to_owned()
        } else {
            format!("Bearer {}", params.join(", "))
        };
        // Only visible ASCII went in (see above); a value that is not would be a bug here,
        // answered with the bare scheme rather than a panic.
        HeaderValue::from_str(&value).unwrap_or(HeaderValue::from_static("Bearer"))
    }
}

/// What a request's `Authorization` headers carry.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Credentials<'a> {
    /// No `Authorization` header, or one of another scheme.
    Absent,
    /// `Bearer <token>`, the token a `b64token`.
    Bearer(&'a str),
    /// `Bearer` with no token, or one that is not a `b64token`.
    Malformed,
    /// More than one `Authorization` header.
    Several,
}

/// Reads the bearer token of RFC 6750 §2.1: `Bearer` (any case), one or more spaces, then a
/// `b64token` (`1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="`).
pub(crate) fn credentials(headers: &HeaderMap) -> Credentials<'_> {
    let mut all = headers.get_all(header::AUTHORIZATION).iter();
    let Some(value) = all.next() else {
        return Credentials::Absent;
    };
    if all.next().is_some() {
        return Credentials::Several;
    }
    let bytes = value.as_bytes();
    let scheme_end = bytes.iter().position(|&b| b == b' ').unwrap_or(bytes.len());
    if !bytes[..scheme_end].eq_ignore_ascii_case(b"bearer") {
        return Credentials::Absent;
    }
    let token = bytes[scheme_end..].trim_ascii_start();
    let body_end = token.iter().position(|&b| b == b'=').unwrap_or(token.len());
    let body_ok = body_end > 0
        && token[..body_end]
            .iter()
            .all(|&b| b.is_ascii_alphanumeric() || b"-._~+/".contains(&b));
    let padding_ok = token[body_end..].iter().all(|&b| b == b'=');
    match std::str::from_utf8(token) {
        Ok(t) if body_ok && padding_ok => Credentials::Bearer(t),
        _ => Credentials::Malformed,
    }
}

/// Whether a query string carries an `access_token` parameter (RFC 6750 §2.3, which the MCP
/// specification forbids), its name percent-encoded or not, after `&` or `;` (a separator in
/// HTML 4 and to some servers and proxies still).
pub(crate) fn query_carries_token(query: &str) -> bool {
    query.split(['&', ';']).any(|pair| {
        let name = pair.split('=').next().unwrap_or_default();
        decoded_eq(name, "access_token")
    })
}

/// Whether `raw`, percent-decoded, is `want` (ASCII case-sensitive, as parameter names are).
fn decoded_eq(raw: &str, want: &str) -> bool {
    let raw = raw.as_bytes();
    let mut want = want.bytes();
    let mut i = 0;
    while i < raw.len() {
        let b = if raw[i] == b'%' {
            let hex = raw
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok());
            match hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                Some(b) => {
                    i += 3;
                    b
                }
                None => return false,
            }
        } else {
            i += 1;
            raw[i - 1]
        };
        if want.next() != Some(b) {
            return false;
        }
    }
    want.next().is_none()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_well_known_location_inserts_the_prefix_before_the_path() {
        assert_eq!(
            metadata_path("/mcp"),
            "/.well-known/oauth-protected-resource/mcp"
        );
        assert_eq!(
            metadata_path("/a/b/"),
            "/.well-known/oauth-protected-resource/a/b"
        );
        assert_eq!(metadata_path("/"), WELL_KNOWN);
        assert_eq!(metadata_path(""), WELL_KNOWN);
    }

    #[test]
    fn scope_tokens() {
        for ok in ["read", "weather:read", "a!#[]~", "https://x/y"] {
            assert!(is_scope_token(ok), "{ok}");
        }
        for bad in ["", "a b", "a\"b", "a\\b", "é", "a\tb"] {
            assert!(!is_scope_token(bad), "{bad}");
        }
    }

    #[test]
    fn challenges() {
        let bare = Challenge {
            error: None,
            resource_metadata: Some("https://x/.well-known/oauth-protected-resource/mcp"),
            scope: Some("a b"),
        };
        assert_eq!(
            bare.header_value(),
            "Bearer resource_metadata=\"https://x/.well-known/oauth-protected-resource/mcp\", scope=\"a b\""
        );
        let invalid = Challenge {
            error: Some((ChallengeError::InvalidToken, "the access token expired")),
            resource_metadata: None,
            scope: None,
        };
        assert_eq!(
            invalid.header_value(),
            "Bearer error=\"invalid_token\", error_description=\"the access token expired\""
        );
    }

    fn creds(values: &[&str]) -> Credentials<'static> {
        let mut h = HeaderMap::new();
        for v in values {
            h.append(header::AUTHORIZATION, HeaderValue::from_str(v).unwrap());
        }
        // The map is leaked to give the borrowed answer a 'static life in the test.
        credentials(Box::leak(Box::new(h)))
    }

    #[test]
    fn bearer_tokens_are_read_as_rfc_6750_writes_them() {
        assert_eq!(creds(&[]), Credentials::Absent);
        assert_eq!(creds(&["Basic dXNlcjpwYXNz"]), Credentials::Absent);
        assert_eq!(
            creds(&["Bearer abc.DEF-_~+/=="]),
            Credentials::Bearer("abc.DEF-_~+/==")
        );
        assert_eq!(creds(&["bearer   t0k"]), Credentials::Bearer("t0k"));
        assert_eq!(creds(&["Bearer"]), Credentials::Malformed);
        assert_eq!(creds(&["Bearer "]), Credentials::Malformed);
        assert_eq!(creds(&["Bearer a b"]), Credentials::Malformed);
        assert_eq!(creds(&["Bearer ==="]), Credentials::Malformed);
        assert_eq!(creds(&["Bearer a=b"]), Credentials::Malformed);
        assert_eq!(creds(&["Bearer a", "Bearer b"]), Credentials::Several);
    }

    #[test]
    fn a_token_in_the_query_string_is_seen_however_it_is_spelt() {
        assert!(query_carries_token("access_token=x"));
        assert!(query_carries_token("a=1&access_token"));
        assert!(query_carries_token("access%5Ftoken=x"));
        assert!(query_carries_token("%61ccess_token=x"));
        assert!(query_carries_token("x=1;access_token=y"));
        assert!(!query_carries_token("access_tokens=x"));
        assert!(!query_carries_token("token=access_token"));
        assert!(!query_carries_token("access_toke%"));
        assert!(!query_carries_token(""));
    }
}
