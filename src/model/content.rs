//! Content blocks, resource contents and roles, as both revisions' schemas write them.

use base64::display::Base64Display;
use base64::engine::general_purpose::STANDARD;
use serde::{Serialize, Serializer};
use std::fmt;

/// One content block of a tool result or a prompt message.
///
/// Serialises to its wire form (`serde_json::to_value(&block)`), which is what the server sends.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Content {
    #[serde(flatten)]
    block: Block,
    #[serde(skip_serializing_if = "Option::is_none")]
    annotations: Option<Annotations>,
}

/// The block itself, tagged by its wire `type`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "type")]
enum Block {
    #[serde(rename = "text")]
    Text { text: String },
    #[serde(rename = "image")]
    Image {
        #[serde(serialize_with = "base64")]
        data: Vec<u8>,
        #[serde(rename = "mimeType")]
        mime_type: String,
    },
    #[serde(rename = "audio")]
    Audio {
        #[serde(serialize_with = "base64")]
        data: Vec<u8>,
        #[serde(rename = "mimeType")]
        mime_type: String,
    },
    #[serde(rename = "resource")]
    Resource { resource: ResourceContents },
    #[serde(rename = "resource_link")]
    Link(ResourceLink),
}

/// Which kind of block a [`Content`] is (its wire `type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ContentKind {
    /// `text`.
    Text,
    /// `image`.
    Image,
    /// `audio`.
    Audio,
    /// `resource`: an embedded resource.
    Resource,
    /// `resource_link`.
    ResourceLink,
}

impl ContentKind {
    /// The wire `type`.
    pub const fn as_str(self) -> &'static str {
        match self {
            ContentKind::Text => "text",
            ContentKind::Image => "image",
            ContentKind::Audio => "audio",
            ContentKind::Resource => "resource",
            ContentKind::ResourceLink => "resource_link",
        }
    }
}

impl Content {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        Content::of(Block::Text { text: text.into() })
    }

    /// An image: raw bytes (sent base64-encoded) and their MIME type (`image/png`, …).
    pub fn image(data: impl Into<Vec<u8>>, mime_type: impl Into<String>) -> Self {
        Content::of(Block::Image {
            data: data.into(),
            mime_type: mime_type.into(),
        })
    }

    /// Audio: raw bytes (sent base64-encoded) and their MIME type (`audio/wav`, …).
    pub fn audio(data: impl Into<Vec<u8>>, mime_type: impl Into<String>) -> Self {
        Content::of(Block::Audio {
            data: data.into(),
            mime_type: mime_type.into(),
        })
    }

    /// An embedded resource: its contents, text or blob, with their uri and MIME type.
    pub fn resource(contents: ResourceContents) -> Self {
        Content::of(Block::Resource { resource: contents })
    }

    /// An embedded text resource with no MIME type (`Content::resource` with
    /// [`ResourceContents::mime_type`] sets one).
    pub fn resource_text(uri: impl Into<String>, text: impl Into<String>) -> Self {
        Content::resource(ResourceContents::text(uri, text))
    }

    /// An embedded binary resource (sent base64-encoded) with no MIME type.
    pub fn resource_blob(uri: impl Into<String>, bytes: impl Into<Vec<u8>>) -> Self {
        Content::resource(ResourceContents::blob(uri, bytes))
    }

    /// A link to a resource the client may read. Links returned by tools need not appear in
    /// `resources/list`.
    pub fn resource_link(link: ResourceLink) -> Self {
        Content::of(Block::Link(link))
    }

    fn of(block: Block) -> Self {
        Content {
            block,
            annotations: None,
        }
    }

    /// Sets the block's annotations (an empty [`Annotations`] is not sent).
    #[must_use]
    pub fn with_annotations(mut self, annotations: Annotations) -> Self {
        self.annotations = (!annotations.is_empty()).then_some(annotations);
        self
    }

    /// The block's kind.
    pub fn kind(&self) -> ContentKind {
        match &self.block {
            Block::Text { .. } => ContentKind::Text,
            Block::Image { .. } => ContentKind::Image,
            Block::Audio { .. } => ContentKind::Audio,
            Block::Resource { .. } => ContentKind::Resource,
            Block::Link(_) => ContentKind::ResourceLink,
        }
    }

    /// The text, when this is a text block.
    pub fn as_text(&self) -> Option<&str> {
        match &self.block {
            Block::Text { text } => Some(text),
            _ => None,
        }
    }

    /// The raw bytes of an image or audio block.
    pub fn data(&self) -> Option<&[u8]> {
        match &self.block {
            Block::Image { data, .. } | Block::Audio { data, .. } => Some(data),
            _ => None,
        }
    }

    /// The annotations, if any were set.
    pub fn annotations(&self) -> Option<&Annotations> {
        self.annotations.as_ref()
    }
}

impl From<String> for Content {
    fn from(text: String) -> Self {
        Content::text(text)
    }
}

impl From<&str> for Content {
    fn from(text: &str) -> Self {
        Content::text(text)
    }
}

/// Bytes as a standard base64 string, encoded straight into the output.
fn base64<S: Serializer>(bytes: &[u8], s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(&Base64Display::new(bytes, &STANDARD))
}

/// A link to a resource, as a `resource_link` content block carries it.
///
/// ```
/// use beam_mcp::content::ResourceLink;
/// let link = ResourceLink::new("file:///report.pdf", "report.pdf")
///     .with_title("Quarterly report")
///     .with_mime_type("application/pdf")
///     .with_size(48_213);
/// assert_eq!(link.uri(), "file:///report.pdf");
/// assert_eq!(link.size(), Some(48_213));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceLink {
    uri: String,
    name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    mime_type: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    size: Option<u64>,
}

impl ResourceLink {
    /// A link with a uri and a name.
    pub fn new(uri: impl Into<String>, name: impl Into<String>) -> Self {
        ResourceLink {
            uri: uri.into(),
            name: name.into(),
            title: None,
            description: None,
            mime_type: None,
            size: None,
        }
    }
    /// Sets the human-readable title.
    #[must_use]
    pub fn with_title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }
    /// Sets the description.
    #[must_use]
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }
    /// Sets the MIME type.
    #[must_use]
    pub fn with_mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }
    /// Sets the size of the raw contents in bytes (before any encoding).
    #[must_use]
    pub fn with_size(mut self, bytes: u64) -> Self {
        self.size = Some(bytes);
        self
    }
    /// The uri.
    pub fn uri(&self) -> &str {
        &self.uri
    }
    /// The name.
    pub fn name(&self) -> &str {
        &self.name
    }
    /// The title, if any.
    pub fn title(&self) -> Option<&str> {
        self.title.as_deref()
    }
    /// The description, if any.
    pub fn description(&self) -> Option<&str> {
        self.description.as_deref()
    }
    /// The MIME type, if any.
    pub fn mime_type(&self) -> Option<&str> {
        self.mime_type.as_deref()
    }
    /// The size of the raw contents in bytes, if given.
    pub fn size(&self) -> Option<u64> {
        self.size
    }
}

/// Optional hints for the client about a content block: who it is for, how much it matters,
/// when it last changed.
///
/// ```
/// use beam_mcp::catalog::Role;
/// use beam_mcp::content::Annotations;
/// let a = Annotations::new()
///     .with_audience([Role::User, Role::Assistant])
///     .with_priority(1.0)?
///     .with_last_modified("2026-01-12T15:00:58Z");
/// assert_eq!(a.priority(), Some(1.0));
/// assert!(Annotations::new().with_priority(1.5).is_err());
/// # Ok::<(), beam_mcp::content::InvalidPriority>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Annotations {
    #[serde(skip_serializing_if = "Vec::is_empty")]
    audience: Vec<Role>,
    #[serde(skip_serializing_if = "Option::is_none")]
    priority: Option<Priority>,
    #[serde(skip_serializing_if = "Option::is_none")]
    last_modified: Option<String>,
}

/// A priority in `[0, 1]`: never NaN, so equality is total.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(transparent)]
struct Priority(f64);

impl Eq for Priority {}

impl Annotations {
    /// No annotations.
    pub fn new() -> Self {
        Annotations::default()
    }

    /// Who the block is for (`user`, `assistant`, or both), in the order given, each once.
    #[must_use]
    pub fn with_audience(mut self, roles: impl IntoIterator<Item = Role>) -> Self {
        self.audience.clear();
        for r in roles {
            if !self.audience.contains(&r) {
                self.audience.push(r);
            }
        }
        self
    }

    /// How important the block is: 1 means effectively required, 0 entirely optional.
    ///
    /// # Errors
    /// [`InvalidPriority`] for a value outside `[0, 1]` or NaN (the schema bounds it).
    pub fn with_priority(mut self, priority: f64) -> Result<Self, InvalidPriority> {
        if !(0.0..=1.0).contains(&priority) {
            return Err(InvalidPriority { value: priority });
        }
        self.priority = Some(Priority(priority));
        Ok(self)
    }

    /// When the underlying data last changed, as an ISO 8601 string
    /// (`"2026-01-12T15:00:58Z"`). Sent as given.
    #[must_use]
    pub fn with_last_modified(mut self, timestamp: impl Into<String>) -> Self {
        self.last_modified = Some(timestamp.into());
        self
    }

    /// The audience, in order.
    pub fn audience(&self) -> &[Role] {
        &self.audience
    }

    /// The priority, if set.
    pub fn priority(&self) -> Option<f64> {
        self.priority.map(|p| p.0)
    }

    /// The last-modified timestamp, if set.
    pub fn last_modified(&self) -> Option<&str> {
        self.last_modified.as_deref()
    }

    /// Whether nothing is set.
    pub fn is_empty(&self) -> bool {
        self.audience.is_empty() && self.priority.is_none() && self.last_modified.is_none()
    }
}

/// A priority outside `[0, 1]` (or NaN), refused by [`Annotations::priority`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct InvalidPriority {
    value: f64,
}

impl InvalidPriority {
    /// The refused value.
    pub fn value(&self) -> f64 {
        self.value
    }
}

impl fmt::Display for InvalidPriority {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "priority {} is outside [0, 1]", self.value)
    }
}

impl std::error::Error for InvalidPriority {}

/// Who speaks a prompt message, or whom a content block is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The user.
    User,
    /// The assistant.
    Assistant,
}

impl Role {
    /// The wire string.
    pub const fn as_str(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Assistant => "assistant",
        }
    }
}

/// What a read returns for one uri: text, or raw bytes (sent base64-encoded).
///
/// The wire form: `uri`, optional `mimeType`, then `text`, or `blob` in base64.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceContents {
    uri: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    mime_type: Option<String>,
    #[serde(flatten)]
    body: ResourceBody,
}

/// The body of [`ResourceContents`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ResourceBody {
    /// UTF-8 text.
    Text(String),
    /// Raw bytes; base64 on the wire.
    Blob(#[serde(serialize_with = "base64")] Vec<u8>),
}

impl ResourceContents {
    /// Text contents.
    pub fn text(uri: impl Into<String>, text: impl Into<String>) -> Self {
        ResourceContents {
            uri: uri.into(),
            mime_type: None,
            body: ResourceBody::Text(text.into()),
        }
    }
    /// Binary contents.
    pub fn blob(uri: impl Into<String>, bytes: impl Into<Vec<u8>>) -> Self {
        ResourceContents {
            uri: uri.into(),
            mime_type: None,
            body: ResourceBody::Blob(bytes.into()),
        }
    }
    /// Sets the MIME type.
    #[must_use]
    pub fn with_mime_type(mut self, m: impl Into<String>) -> Self {
        self.mime_type = Some(m.into());
        self
    }
    /// The uri.
    pub fn uri(&self) -> &str {
        &self.uri
    }
    /// The body.
    pub fn body(&self) -> &ResourceBody {
        &self.body
    }
    /// The MIME type, if any.
    pub fn mime_type(&self) -> Option<&str> {
        self.mime_type.as_deref()
    }
}
