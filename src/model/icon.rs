//! Icons: the `Icon` of both revisions' schemas, on tools, resources, templates, prompts and
//! the server's own `serverInfo`. The checks a link passes at startup live with the catalog.

use serde::Serialize;

/// The background an icon is drawn for (`theme`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
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
/// HTTP/HTTPS URL or a `data:` URI with Base64-encoded image data"). `Server::new`
/// refuses any other scheme, `javascript:` and `file:` included, naming the item
/// (`ConfigError::IconSource`): a client fetches or renders what it is given, and
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Icon {
    src: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    mime_type: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    sizes: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_set_members_are_sent() {
        assert_eq!(
            serde_json::to_value(Icon::new("https://e.com/a.png")).unwrap(),
            serde_json::json!({"src": "https://e.com/a.png"})
        );
        assert_eq!(
            serde_json::to_value(
                Icon::new("https://e.com/a.png")
                    .with_sizes(Vec::<String>::new())
                    .with_theme(IconTheme::Dark)
                    .with_mime_type("image/png")
            )
            .unwrap(),
            serde_json::json!({"src": "https://e.com/a.png", "theme": "dark", "mimeType": "image/png"})
        );
    }
}
