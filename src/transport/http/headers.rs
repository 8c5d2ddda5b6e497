//! Pure header checks: the MCP request headers against the body, and the Host and Origin
//! allow-lists. No IO.

use base64::Engine as _;
use http::header::{self, HeaderMap, HeaderName, HeaderValue, ValueIter};
use serde_json::Value;
use std::borrow::Cow;
use std::fmt;

const SENTINEL_OPEN: &str = "=?base64?";
/// The prefix of every `Mcp-Param-{Name}` header, as the map spells names (lower case).
pub(crate) const PARAM_PREFIX: &str = "mcp-param-";
const SENTINEL_CLOSE: &str = "?=";

/// Why a header was refused (answered 400 with -32020).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum HeaderError {
    /// The header is required and absent.
    Missing(String),
    /// Its value is not visible ASCII, or its base64 form does not decode to UTF-8.
    Malformed(String),
    /// Two of its values disagree.
    Conflicting(String),
    /// It disagrees with the body.
    Mismatch(String),
    /// It is present and the body has no such argument.
    Unexpected(String),
    /// An `Mcp-Param-*` header that names no `x-mcp-header` argument of the tool the request
    /// calls (or a request that calls no tool): a proxy would route on a value the server
    /// never reads.
    Unannotated(String),
}

impl HeaderError {
    pub(crate) fn header(&self) -> &str {
        match self {
            HeaderError::Missing(h)
            | HeaderError::Malformed(h)
            | HeaderError::Conflicting(h)
            | HeaderError::Mismatch(h)
            | HeaderError::Unexpected(h)
            | HeaderError::Unannotated(h) => h,
        }
    }
}

impl fmt::Display for HeaderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HeaderError::Missing(h) => write!(f, "header {h} is required"),
            HeaderError::Malformed(h) => write!(f, "header {h} is malformed"),
            HeaderError::Conflicting(h) => write!(f, "header {h} has values that disagree"),
            HeaderError::Mismatch(h) => write!(f, "header {h} does not match the body"),
            HeaderError::Unexpected(h) => {
                write!(f, "header {h} names an argument the body does not carry")
            }
            HeaderError::Unannotated(h) => write!(
                f,
                "header {h} names no x-mcp-header argument of a tool this request calls"
            ),
        }
    }
}

/// Decodes one header value: `=?base64?…?=` (case-sensitive markers) is base64 of UTF-8;
/// anything else must be visible ASCII and is taken as it is.
pub(crate) fn decode_value(raw: &[u8]) -> Option<Cow<'_, str>> {
    let text = std::str::from_utf8(raw).ok()?;
    if !text
        .bytes()
        .all(|b| b == b' ' || b == b'\t' || b.is_ascii_graphic())
    {
        return None;
    }
    match text
        .strip_prefix(SENTINEL_OPEN)
        .and_then(|t| t.strip_suffix(SENTINEL_CLOSE))
    {
        Some(b64) => {
            let bytes = base64::engine::general_purpose::STANDARD.decode(b64).ok()?;
            String::from_utf8(bytes).ok().map(Cow::Owned)
        }
        None => Some(Cow::Borrowed(text)),
    }
}

/// Whether a header may carry the `=?base64?…?=` form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Encoding {
    /// Plain ASCII only: `Mcp-Method` and `MCP-Protocol-Version`, whose values are always
    /// ASCII. An encoded one would slip past a gateway rule that matches the literal header.
    Plain,
    /// Plain ASCII or the base64 form: `Mcp-Name` and `Mcp-Param-*`, which mirror
    /// caller-chosen values.
    MayEncode,
}

/// What one pass over the map saw of a header.
#[derive(Debug, Clone, Copy)]
enum Seen<'h> {
    Absent,
    Once(&'h HeaderValue),
    /// Repeated: its values are read from the map, in order, when asked for.
    Often,
}

impl<'h> Seen<'h> {
    fn and(self, value: &'h HeaderValue) -> Seen<'h> {
        match self {
            Seen::Absent => Seen::Once(value),
            Seen::Once(_) | Seen::Often => Seen::Often,
        }
    }
}

/// Every value of one header, in the order the request gave them.
#[derive(Debug)]
pub(crate) enum Values<'h> {
    /// None, or the only one.
    Once(Option<&'h HeaderValue>),
    /// Several: read from the map.
    All(ValueIter<'h, HeaderValue>),
}

impl<'h> Iterator for Values<'h> {
    type Item = &'h HeaderValue;
    fn next(&mut self) -> Option<&'h HeaderValue> {
        match self {
            Values::Once(v) => v.take(),
            Values::All(all) => all.next(),
        }
    }
}

/// A header the endpoint reads: [`Head::scan`] finds them all in one pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Read {
    Host,
    Origin,
    ContentType,
    Accept,
    ContentLength,
    TransferEncoding,
    ProtocolVersion,
    McpMethod,
    McpName,
}

/// The name of each [`Read`], in its declaration order.
static NAMES: [HeaderName; 9] = [
    header::HOST,
    header::ORIGIN,
    header::CONTENT_TYPE,
    header::ACCEPT,
    header::CONTENT_LENGTH,
    header::TRANSFER_ENCODING,
    HeaderName::from_static("mcp-protocol-version"),
    HeaderName::from_static("mcp-method"),
    HeaderName::from_static("mcp-name"),
];

impl Read {
    pub(crate) fn name(self) -> &'static HeaderName {
        &NAMES[self as usize]
    }
}

/// The headers this endpoint reads, found in one pass over the map. Looking each up (the
/// Host, Origin, media, length and MCP checks) would hash and probe the map about ten times
/// per request.
#[derive(Debug)]
pub(crate) struct Head<'h> {
    map: &'h HeaderMap,
    /// Indexed by [`Read`].
    seen: [Seen<'h>; NAMES.len()],
    /// Whether any `Mcp-Param-*` header is present.
    params: bool,
}

impl<'h> Head<'h> {
    pub(crate) fn scan(map: &'h HeaderMap) -> Head<'h> {
        let mut seen = [Seen::Absent; NAMES.len()];
        let mut params = false;
        for (name, value) in map {
            if let Some(i) = NAMES.iter().position(|n| n == name) {
                seen[i] = seen[i].and(value);
            } else if name.as_str().starts_with(PARAM_PREFIX) {
                params = true;
            }
        }
        Head { map, seen, params }
    }

    /// The name of every `Mcp-Param-*` header present, each once (lower case, as the map
    /// spells it).
    pub(crate) fn params(&self) -> impl Iterator<Item = &'h HeaderName> {
        let map = self.map;
        self.params
            .then(move || map.keys().filter(|n| n.as_str().starts_with(PARAM_PREFIX)))
            .into_iter()
            .flatten()
    }

    /// The map the head was read from.
    pub(crate) fn map(&self) -> &'h HeaderMap {
        self.map
    }

    /// Every value of `header`, in order.
    pub(crate) fn values(&self, header: Read) -> Values<'h> {
        match self.seen[header as usize] {
            Seen::Absent => Values::Once(None),
            Seen::Once(v) => Values::Once(Some(v)),
            Seen::Often => Values::All(self.map.get_all(header.name()).iter()),
        }
    }

    pub(crate) fn has(&self, header: Read) -> bool {
        !matches!(self.seen[header as usize], Seen::Absent)
    }

    /// [`single`] over `header`'s values.
    ///
    /// # Errors
    /// As [`single`].
    pub(crate) fn single(
        &self,
        header: Read,
        encoding: Encoding,
    ) -> Result<Option<Cow<'h, str>>, HeaderError> {
        single(self.values(header), header.name(), encoding)
    }

    /// `header` must equal `expected`, required or checked only when present.
    ///
    /// # Errors
    /// Missing (when required), malformed, conflicting, or not equal to `expected` (`None` when
    /// the body has no value to compare with, which is a mismatch).
    pub(crate) fn require_eq(
        &self,
        header: Read,
        encoding: Encoding,
        expected: Option<&str>,
        presence: Presence,
    ) -> Result<(), HeaderError> {
        let name = header.name();
        match self.single(header, encoding)? {
            None if presence == Presence::IfPresent => Ok(()),
            None => Err(HeaderError::Missing(name.to_string())),
            Some(v) if Some(&*v) == expected => Ok(()),
            Some(_) => Err(HeaderError::Mismatch(name.to_string())),
        }
    }
}

/// The one value among `values` (every occurrence of the header `name`), decoded, checked
/// across them all.
///
/// # Errors
/// [`HeaderError::Malformed`] for an undecodable value (or an encoded one where only
/// [`Encoding::Plain`] is allowed), [`HeaderError::Conflicting`] when two occurrences decode
/// differently.
pub(crate) fn single<'h>(
    values: impl IntoIterator<Item = &'h HeaderValue>,
    name: &HeaderName,
    encoding: Encoding,
) -> Result<Option<Cow<'h, str>>, HeaderError> {
    let mut found: Option<Cow<'h, str>> = None;
    for raw in values {
        if encoding == Encoding::Plain && raw.as_bytes().starts_with(SENTINEL_OPEN.as_bytes()) {
            return Err(HeaderError::Malformed(name.to_string()));
        }
        let v =
            decode_value(raw.as_bytes()).ok_or_else(|| HeaderError::Malformed(name.to_string()))?;
        match &found {
            Some(prev) if *prev != v => return Err(HeaderError::Conflicting(name.to_string())),
            Some(_) => {}
            None => found = Some(v),
        }
    }
    Ok(found)
}

/// Whether a request must carry the MCP headers that mirror its body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Presence {
    /// 2026-07-28: the header is required.
    Required,
    /// 2025-11-25, which defines none of them: absent is fine, present must agree.
    IfPresent,
}

/// Whether a header value stands for a body argument: strings exactly, booleans as
/// `true`/`false`, numbers numerically (42 equals 42.0).
pub(crate) fn value_matches(header: &str, arg: &Value) -> bool {
    match arg {
        Value::String(s) => s == header,
        Value::Bool(b) => header == if *b { "true" } else { "false" },
        Value::Number(n) => {
            // Exact integer comparison first: u64 values past 2^53 must not meet in f64.
            if let (Some(a), Ok(h)) = (n.as_i64(), header.parse::<i64>()) {
                return a == h;
            }
            if let (Some(a), Ok(h)) = (n.as_u64(), header.parse::<u64>()) {
                return a == h;
            }
            let integral = |t: &str| !t.contains(['.', 'e', 'E']);
            if (n.is_u64() || n.is_i64()) && integral(header) {
                // An integer argument against an integer header that did not parse: out of range.
                return false;
            }
            match (n.as_f64(), header.parse::<f64>()) {
                (Some(a), Ok(h)) => h.is_finite() && a == h,
                _ => false,
            }
        }
        _ => false,
    }
}

/// One `Mcp-Param-{Name}` header against its argument: both absent is fine, one without the
/// other is not.
///
/// # Errors
/// Malformed or conflicting values, a header without its argument, an argument without its
/// header, or values that disagree.
pub(crate) fn check_param(
    headers: &HeaderMap,
    header: &str,
    arg: Option<&Value>,
    presence: Presence,
) -> Result<(), HeaderError> {
    let label = format!("Mcp-Param-{header}");
    let Ok(name) = HeaderName::from_bytes(label.as_bytes()) else {
        return Err(HeaderError::Malformed(label));
    };
    match (
        single(headers.get_all(&name), &name, Encoding::MayEncode)?,
        arg,
    ) {
        (None, None) => Ok(()),
        (Some(_), None) => Err(HeaderError::Unexpected(label)),
        (None, Some(_)) if presence == Presence::IfPresent => Ok(()),
        (None, Some(_)) => Err(HeaderError::Missing(label)),
        (Some(v), Some(a)) if value_matches(&v, a) => Ok(()),
        (Some(_), Some(_)) => Err(HeaderError::Mismatch(label)),
    }
}

/// The host part of a Host header or `:authority`, without its port.
fn host_name(authority: &str) -> Option<&str> {
    let authority = authority.trim();
    let host = if let Some(rest) = authority.strip_prefix('[') {
        let end = rest.find(']')?;
        let port = &rest[end + 1..];
        if !(port.is_empty() || port.strip_prefix(':').is_some_and(is_port)) {
            return None;
        }
        &authority[..end + 2]
    } else {
        match authority.rsplit_once(':') {
            Some((h, p)) if is_port(p) => h,
            Some(_) => return None,
            None => authority,
        }
    };
    (!host.is_empty()).then_some(host)
}

fn is_port(p: &str) -> bool {
    !p.is_empty() && p.len() <= 5 && p.bytes().all(|b| b.is_ascii_digit())
}

/// Whether `authority` names an allowed host, any port.
pub(crate) fn host_allowed(authority: &str, allowed: &[String]) -> bool {
    host_name(authority).is_some_and(|h| allowed.iter().any(|a| a.eq_ignore_ascii_case(h)))
}

/// Whether `origin` is in `allowed` (ASCII case-insensitive, exact otherwise).
pub(crate) fn origin_listed(origin: &[u8], allowed: &[String]) -> bool {
    allowed
        .iter()
        .any(|a| a.as_bytes().eq_ignore_ascii_case(origin))
}

#[cfg(test)]
mod tests {
    use super::*;
    use http::HeaderValue;
    use serde_json::json;

    fn map(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut m = HeaderMap::new();
        for (k, v) in pairs {
            m.append(
                HeaderName::from_bytes(k.as_bytes()).unwrap(),
                HeaderValue::from_str(v).unwrap(),
            );
        }
        m
    }

    #[test]
    fn base64_sentinel_is_decoded_and_case_sensitive() {
        assert_eq!(decode_value(b"=?base64?w6low6k=?=").as_deref(), Some("éhé"));
        assert_eq!(
            decode_value(b"=?BASE64?w6low6k=?=").as_deref(),
            Some("=?BASE64?w6low6k=?=")
        );
        assert_eq!(decode_value(b"=?base64?!!!?="), None);
        assert_eq!(decode_value(b"caf\xc3\xa9"), None);
    }

    #[test]
    fn every_value_of_a_header_is_checked() {
        let m = map(&[("mcp-method", "tools/call"), ("mcp-method", "tools/list")]);
        assert_eq!(
            Head::scan(&m).single(Read::McpMethod, Encoding::MayEncode),
            Err(HeaderError::Conflicting("mcp-method".into()))
        );
        let m = map(&[
            ("mcp-method", "tools/call"),
            ("mcp-method", "=?base64?dG9vbHMvY2FsbA==?="),
        ]);
        assert_eq!(
            Head::scan(&m).require_eq(
                Read::McpMethod,
                Encoding::MayEncode,
                Some("tools/call"),
                Presence::Required
            ),
            Ok(())
        );
        // Where only plain values are allowed, the encoded twin is malformed, not equal.
        assert_eq!(
            Head::scan(&m).require_eq(
                Read::McpMethod,
                Encoding::Plain,
                Some("tools/call"),
                Presence::Required
            ),
            Err(HeaderError::Malformed("mcp-method".into()))
        );
        assert_eq!(
            Head::scan(&HeaderMap::new()).require_eq(
                Read::McpMethod,
                Encoding::Plain,
                Some("x"),
                Presence::Required
            ),
            Err(HeaderError::Missing("mcp-method".into()))
        );
    }

    #[test]
    fn each_header_read_has_its_own_name() {
        for (header, name) in [
            (Read::Host, "host"),
            (Read::Origin, "origin"),
            (Read::ContentType, "content-type"),
            (Read::Accept, "accept"),
            (Read::ContentLength, "content-length"),
            (Read::TransferEncoding, "transfer-encoding"),
            (Read::ProtocolVersion, "mcp-protocol-version"),
            (Read::McpMethod, "mcp-method"),
            (Read::McpName, "mcp-name"),
        ] {
            assert_eq!(header.name(), name);
        }
    }

    #[test]
    fn one_pass_finds_every_value_of_every_header_it_reads() {
        let m = map(&[
            ("host", "a"),
            ("user-agent", "x"),
            ("mcp-name", "n"),
            ("accept", "1"),
            ("accept", "2"),
            ("accept", "3"),
            ("MCP-Protocol-Version", "v"),
            ("transfer-encoding", "chunked"),
            ("Mcp-Param-Place", "Oslo"),
            ("mcp-param-place", "Lima"),
            ("mcp-params", "not a param header"),
        ]);
        let head = Head::scan(&m);
        let all = |v: Values<'_>| {
            v.map(|v| v.to_str().unwrap().to_owned())
                .collect::<Vec<_>>()
        };
        assert_eq!(all(head.values(Read::Host)), ["a"]);
        assert_eq!(all(head.values(Read::Accept)), ["1", "2", "3"]);
        assert_eq!(all(head.values(Read::ProtocolVersion)), ["v"]);
        assert_eq!(all(head.values(Read::McpName)), ["n"]);
        assert!(head.has(Read::McpName) && head.has(Read::TransferEncoding));
        for none in [
            Read::Origin,
            Read::ContentType,
            Read::ContentLength,
            Read::McpMethod,
        ] {
            assert!(all(head.values(none)).is_empty() && !head.has(none));
        }
        // Each `Mcp-Param-*` name once, however often it is repeated.
        let params: Vec<&str> = head.params().map(HeaderName::as_str).collect();
        assert_eq!(params, ["mcp-param-place"]);
        let empty = HeaderMap::new();
        let bare = Head::scan(&empty);
        assert!(!bare.has(Read::McpName) && !bare.has(Read::TransferEncoding));
        assert_eq!(bare.params().count(), 0);
    }

    #[test]
    fn integers_past_two_to_the_fifty_three_compare_exactly() {
        let big = serde_json::json!(18446744073709551615u64);
        assert!(value_matches("18446744073709551615", &big));
        assert!(!value_matches("18446744073709551000", &big));
        assert!(!value_matches(
            "99999999999999999999999",
            &serde_json::json!(1)
        ));
        assert!(value_matches("42.0", &serde_json::json!(42)));
    }

    #[test]
    fn params_compare_by_type() {
        assert!(value_matches("42", &json!(42)));
        assert!(value_matches("42.0", &json!(42)));
        assert!(value_matches("42", &json!(42.0)));
        assert!(!value_matches("43", &json!(42)));
        assert!(!value_matches("forty-two", &json!(42)));
        assert!(value_matches("true", &json!(true)));
        assert!(!value_matches("True", &json!(true)));
        assert!(value_matches("Oslo", &json!("Oslo")));
        assert!(!value_matches("oslo", &json!("Oslo")));
    }

    #[test]
    fn params_must_come_in_pairs() {
        let m = map(&[("mcp-param-region", "eu")]);
        assert_eq!(
            check_param(&m, "Region", Some(&json!("eu")), Presence::Required),
            Ok(())
        );
        assert!(matches!(
            check_param(&m, "Region", None, Presence::Required),
            Err(HeaderError::Unexpected(_))
        ));
        assert!(matches!(
            check_param(
                &HeaderMap::new(),
                "Region",
                Some(&json!("eu")),
                Presence::Required
            ),
            Err(HeaderError::Missing(_))
        ));
        assert_eq!(
            check_param(&HeaderMap::new(), "Region", None, Presence::Required),
            Ok(())
        );
    }

    #[test]
    fn hosts_match_any_port() {
        let allowed: Vec<String> = ["localhost", "127.0.0.1", "[::1]"]
            .map(String::from)
            .to_vec();
        for ok in [
            "localhost",
            "LOCALHOST:80",
            "127.0.0.1:4000",
            "[::1]",
            "[::1]:8080",
        ] {
            assert!(host_allowed(ok, &allowed), "{ok}");
        }
        for bad in [
            "evil.example",
            "localhost.evil.example",
            "127.0.0.1:x",
            "[::1",
            "",
        ] {
            assert!(!host_allowed(bad, &allowed), "{bad}");
        }
    }
}
