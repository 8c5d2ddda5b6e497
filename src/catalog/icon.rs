//! Icons: the `Icon` of both revisions' schemas, on tools, resources, templates, prompts and
//! the server's own `serverInfo`, and the checks a link a client may follow passes at startup.

use serde_json::{Map, Value};
use std::fmt;

/// The background an icon is drawn for (`theme`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IconTheme {
    /// Designed for a light background (`"light"`).
    Light,
    /// Designed for a dark background (`"dark"`).
    Dark,
}

impl IconTheme {
    /// The wire string.
    pub const fn as_str(self) -> &'static str {
        match self {
            IconTheme::Light => "light",
            IconTheme::Dark => "dark",
        }
    }
}

/// An icon a client may show beside a tool, a resource, a template, a prompt or the server:
/// `{src, mimeType?, sizes?, theme?}`, listed as one item of `icons` at both revisions.
///
/// `src` must be an `https:` or `http:` URL with a host, or a `data:` URI (the schema: "an
/// HTTP/HTTPS URL or a `data:` URI with Base64-encoded image data"). [`crate::Server::new`]
/// refuses any other scheme, `javascript:` and `file:` included, naming the item
/// ([`crate::ConfigError::IconSource`]): a client fetches or renders what it is given, and
/// only those three are what the specification asks it to. Prefer `https:`; `http:` is
/// accepted because the schema's text admits it. `mimeType` and `sizes` are sent as given (the
/// schema asks for sizes like `"48x48"` or `"any"`, and does not require them).
///
/// ```
/// use beam_mcp::catalog::{Icon, IconTheme, ToolSpec};
///
/// let icon = Icon::new("https://example.com/sun.png")
///     .with_mime_type("image/png")
///     .with_sizes(["48x48", "96x96"])
///     .with_theme(IconTheme::Light);
/// assert_eq!(icon.sizes(), ["48x48", "96x96"]);
/// let tool = ToolSpec::new("get_weather", "Read the weather.").with_icon(icon);
/// assert_eq!(tool.icons()[0].src(), "https://example.com/sun.png");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Icon {
    src: String,
    mime_type: Option<String>,
    sizes: Vec<String>,
    theme: Option<IconTheme>,
}

impl Icon {
    /// An icon at `src`, for any size and theme.
    pub fn new(src: impl Into<String>) -> Self {
        Icon {
            src: src.into(),
            mime_type: None,
            sizes: Vec::new(),
            theme: None,
        }
    }

    /// Sets the MIME type (`"image/png"`, `"image/svg+xml"`, …), for a source whose own is
    /// missing or generic.
    #[must_use]
    pub fn with_mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }

    /// Sets the sizes the icon may be used at (`"48x48"`, or `"any"` for a scalable one),
    /// replacing any set before. None (the default, or an empty list) sends no `sizes`: any
    /// size.
    #[must_use]
    pub fn with_sizes<S: Into<String>>(mut self, sizes: impl IntoIterator<Item = S>) -> Self {
        self.sizes = sizes.into_iter().map(Into::into).collect();
        self
    }

    /// Sets the theme the icon is designed for.
    #[must_use]
    pub fn with_theme(mut self, theme: IconTheme) -> Self {
        self.theme = Some(theme);
        self
    }

    /// The source URI.
    pub fn src(&self) -> &str {
        &self.src
    }

    /// The MIME type, if set.
    pub fn mime_type(&self) -> Option<&str> {
        self.mime_type.as_deref()
    }

    /// The sizes, in the order given (empty: any size).
    pub fn sizes(&self) -> &[String] {
        &self.sizes
    }

    /// The theme, if set.
    pub fn theme(&self) -> Option<IconTheme> {
        self.theme
    }

    /// The wire form: `src`, then each optional member only when set.
    pub(crate) fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.insert("src".into(), Value::String(self.src.clone()));
        if let Some(t) = &self.mime_type {
            m.insert("mimeType".into(), Value::String(t.clone()));
        }
        if !self.sizes.is_empty() {
            m.insert(
                "sizes".into(),
                Value::Array(self.sizes.iter().cloned().map(Value::String).collect()),
            );
        }
        if let Some(t) = self.theme {
            m.insert("theme".into(), Value::String(t.as_str().into()));
        }
        Value::Object(m)
    }
}

/// `icons` as listed: an array of [`Icon::to_value`].
pub(crate) fn icons_value(icons: &[Icon]) -> Value {
    Value::Array(icons.iter().map(Icon::to_value).collect())
}

/// Why a link the server advertises (an icon's `src`, the server's `websiteUrl`) was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum UriFault {
    /// Not a URI by RFC 3986: no `scheme:` at the start, a character no URI may hold (a
    /// space, anything outside ASCII, a brace, …), a malformed authority (an unclosed IPv6
    /// literal, a port that is not digits), a bad percent-escape or a second `#`.
    NotAUri,
    /// A scheme the link may not have (`javascript`, `file`, …).
    Scheme {
        /// The scheme, as written.
        scheme: String,
    },
    /// An `http:` or `https:` URL with no `//host`.
    MissingHost,
    /// A `data:` icon that is not base64-encoded image data
    /// (`data:image/<subtype>[;parameters];base64,<base64>`).
    DataSyntax,
}

impl fmt::Display for UriFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UriFault::NotAUri => f.write_str("not a URI"),
            UriFault::Scheme { scheme } => write!(f, "scheme `{scheme}` is not accepted"),
            UriFault::MissingHost => f.write_str("an http(s) URL needs a host (`https://host/…`)"),
            UriFault::DataSyntax => f.write_str(
                "a data: icon must be base64-encoded image data (`data:image/png;base64,…`)",
            ),
        }
    }
}

impl std::error::Error for UriFault {}

/// The schemes an icon's `src` may have.
pub(crate) const ICON_SCHEMES: &[&str] = &["https", "http", "data"];
/// The schemes the server's `websiteUrl` may have.
pub(crate) const WEBSITE_SCHEMES: &[&str] = &["https", "http"];

/// Checks `uri` is a URI (RFC 3986, as `fluent-uri` parses it: the `format: "uri"` the schema
/// gives `src` and `websiteUrl`) with one of `schemes` (compared case-insensitively): an
/// http(s) URL with a host, or a `data:` URI of base64-encoded image data.
pub(crate) fn check_link(uri: &str, schemes: &[&str]) -> Result<(), UriFault> {
    let parsed = fluent_uri::Uri::parse(uri).map_err(|_| UriFault::NotAUri)?;
    let scheme = parsed.scheme().as_str();
    if !schemes.iter().any(|s| s.eq_ignore_ascii_case(scheme)) {
        return Err(UriFault::Scheme {
            scheme: scheme.to_owned(),
        });
    }
    if scheme.eq_ignore_ascii_case("data") {
        return check_image_data(parsed.path().as_str());
    }
    match parsed.authority() {
        Some(authority) if !authority.host().is_empty() => Ok(()),
        _ => Err(UriFault::MissingHost),
    }
}

/// The body of a `data:` icon (RFC 2397): `image/<subtype>`, optional parameters, `;base64`,
/// a comma, then base64 (standard alphabet, padded) — the "Base64-encoded image data" the
/// schema's `Icon.src` describes.
fn check_image_data(body: &str) -> Result<(), UriFault> {
    use base64::Engine as _;
    let (head, data) = body.split_once(',').ok_or(UriFault::DataSyntax)?;
    let Some(media) = head.strip_suffix(";base64") else {
        return Err(UriFault::DataSyntax);
    };
    let mime = media.split(';').next().unwrap_or_default();
    let image = mime
        .split_once('/')
        .is_some_and(|(kind, sub)| kind.eq_ignore_ascii_case("image") && !sub.is_empty());
    if !image {
        return Err(UriFault::DataSyntax);
    }
    match base64::engine::general_purpose::STANDARD.decode(data) {
        Ok(_) => Ok(()),
        Err(_) => Err(UriFault::DataSyntax),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn icon_sources() {
        for ok in [
            "https://example.com/i.png",
            "HTTPS://EXAMPLE.COM/i.png",
            "http://127.0.0.1:8080/i.svg",
            "https://[::1]:8443/i.png",
            "https://user@example.com/i.png",
            "data:image/png;base64,iVBORw0KGgo=",
            "DATA:image/svg+xml;charset=utf-8;base64,PHN2Zy8+",
        ] {
            assert_eq!(check_link(ok, ICON_SCHEMES), Ok(()), "{ok}");
        }
        for (bad, fault) in [
            (
                "javascript:alert(1)",
                UriFault::Scheme {
                    scheme: "javascript".into(),
                },
            ),
            (
                "file:///etc/passwd",
                UriFault::Scheme {
                    scheme: "file".into(),
                },
            ),
            (
                "ftp://example.com/i.png",
                UriFault::Scheme {
                    scheme: "ftp".into(),
                },
            ),
            ("/relative/i.png", UriFault::NotAUri),
            ("i.png", UriFault::NotAUri),
            ("", UriFault::NotAUri),
            ("1http://x/", UriFault::NotAUri),
            ("https://exa mple.com/", UriFault::NotAUri),
            ("https://example.com/\u{e9}", UriFault::NotAUri),
            ("https:example.com", UriFault::MissingHost),
            ("https:///path", UriFault::MissingHost),
            ("https://:443/", UriFault::MissingHost),
            ("data:image/png;base64", UriFault::DataSyntax),
            ("data:,", UriFault::DataSyntax),
            ("data:text/html;base64,PGI+", UriFault::DataSyntax),
            ("data:image/png,rawbytes", UriFault::DataSyntax),
            ("data:image/png;base64,!!!", UriFault::DataSyntax),
            ("data:/png;base64,AAAA", UriFault::DataSyntax),
            ("https://[::1/i.png", UriFault::NotAUri),
            ("https://example.com:abc/i.png", UriFault::NotAUri),
            ("https://ex[ample.com/i.png", UriFault::NotAUri),
            ("https://example.com/%", UriFault::NotAUri),
            ("https://example.com/%zz", UriFault::NotAUri),
            ("https://example.com/#a#b", UriFault::NotAUri),
        ] {
            assert_eq!(check_link(bad, ICON_SCHEMES), Err(fault), "{bad}");
        }
    }

    #[test]
    fn a_website_is_http_or_https_only() {
        assert_eq!(check_link("https://example.com", WEBSITE_SCHEMES), Ok(()));
        assert_eq!(
            check_link("data:,x", WEBSITE_SCHEMES),
            Err(UriFault::Scheme {
                scheme: "data".into()
            })
        );
    }

    #[test]
    fn only_set_members_are_sent() {
        assert_eq!(
            Icon::new("https://e.com/a.png").to_value(),
            serde_json::json!({"src": "https://e.com/a.png"})
        );
        assert_eq!(
            Icon::new("https://e.com/a.png")
                .with_sizes(Vec::<String>::new())
                .with_theme(IconTheme::Dark)
                .with_mime_type("image/png")
                .to_value(),
            serde_json::json!({"src": "https://e.com/a.png", "theme": "dark", "mimeType": "image/png"})
        );
    }
}
