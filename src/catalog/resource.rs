//! Resources, resource templates, and the one reader that serves both.

use crate::dispatch::CallContext;
use crate::model::{Icon, ResourceContents};
use crate::BoxFuture;
use serde_json::{Map, Value};
use std::fmt;
use std::future::Future;
use std::sync::Arc;

/// The optional descriptive fields both kinds of resource entry share: set by `with_<field>`,
/// read by `<field>()`.
macro_rules! descriptive_fields {
    () => {
        /// Sets the title.
        #[must_use]
        pub fn with_title(mut self, t: impl Into<String>) -> Self {
            self.title = Some(t.into());
            self
        }
        /// Sets the description.
        #[must_use]
        pub fn with_description(mut self, d: impl Into<String>) -> Self {
            self.description = Some(d.into());
            self
        }
        /// Sets the MIME type.
        #[must_use]
        pub fn with_mime_type(mut self, m: impl Into<String>) -> Self {
            self.mime_type = Some(m.into());
            self
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
    };
}

/// A concrete resource, listed by `resources/list`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceSpec {
    pub(crate) uri: String,
    pub(crate) name: String,
    pub(crate) title: Option<String>,
    pub(crate) description: Option<String>,
    pub(crate) mime_type: Option<String>,
    pub(crate) icons: Vec<Icon>,
    pub(crate) meta: Map<String, Value>,
}

impl ResourceSpec {
    /// A resource with a uri and a name.
    pub fn new(uri: impl Into<String>, name: impl Into<String>) -> Self {
        ResourceSpec {
            uri: uri.into(),
            name: name.into(),
            title: None,
            description: None,
            mime_type: None,
            icons: Vec::new(),
            meta: Map::new(),
        }
    }
    descriptive_fields!();
    super::meta::icons_and_meta!();
    /// The uri.
    pub fn uri(&self) -> &str {
        &self.uri
    }
    /// The name.
    pub fn name(&self) -> &str {
        &self.name
    }
}

/// A family of resources named by an RFC 6570 template, listed by `resources/templates/list`.
///
/// Only `{var}` (one non-empty path segment) and `{+var}` (across segments) are supported; any
/// other expression, or a bare brace, is refused by [`crate::Server::new`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceTemplateSpec {
    pub(crate) uri_template: String,
    pub(crate) name: String,
    pub(crate) title: Option<String>,
    pub(crate) description: Option<String>,
    pub(crate) mime_type: Option<String>,
    pub(crate) icons: Vec<Icon>,
    pub(crate) meta: Map<String, Value>,
}

impl ResourceTemplateSpec {
    /// A template with a uri template and a name.
    pub fn new(uri_template: impl Into<String>, name: impl Into<String>) -> Self {
        ResourceTemplateSpec {
            uri_template: uri_template.into(),
            name: name.into(),
            title: None,
            description: None,
            mime_type: None,
            icons: Vec::new(),
            meta: Map::new(),
        }
    }
    descriptive_fields!();
    super::meta::icons_and_meta!();
    /// The uri template.
    pub fn uri_template(&self) -> &str {
        &self.uri_template
    }
    /// The name.
    pub fn name(&self) -> &str {
        &self.name
    }
}

/// One entry of the catalog's resources list: a resource or a template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResourceEntry {
    /// A concrete resource.
    Resource(ResourceSpec),
    /// A resource template.
    Template(ResourceTemplateSpec),
}

impl From<ResourceSpec> for ResourceEntry {
    fn from(r: ResourceSpec) -> Self {
        ResourceEntry::Resource(r)
    }
}

impl From<ResourceTemplateSpec> for ResourceEntry {
    fn from(t: ResourceTemplateSpec) -> Self {
        ResourceEntry::Template(t)
    }
}

/// A host's refusal to read a resource. The reason travels to the client as error data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadError {
    reason: String,
}

impl ReadError {
    /// A refusal with a reason the client may see.
    pub fn new(reason: impl Into<String>) -> Self {
        ReadError {
            reason: reason.into(),
        }
    }
    /// The reason.
    pub fn reason(&self) -> &str {
        &self.reason
    }
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "resource read refused: {}", self.reason)
    }
}

impl std::error::Error for ReadError {}

/// The one reader behind `resources/read`.
///
/// It is only ever called with a uri the catalog lists or one of its templates matches: every
/// other uri is refused as not found before the reader runs. A closure `Fn(String) -> impl
/// Future` is a reader that ignores the context; one that reads it (the principal the host's
/// authorize hook attached) is given with [`crate::Catalog::reader_in_context`].
pub trait ResourceReader: Send + Sync + 'static {
    /// Reads `uri` for the caller `context` describes.
    fn read(
        &self,
        uri: &str,
        context: &CallContext,
    ) -> BoxFuture<Result<Vec<ResourceContents>, ReadError>>;
}

impl<F, Fut> ResourceReader for F
where
    F: Fn(String) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Vec<ResourceContents>, ReadError>> + Send + 'static,
{
    fn read(
        &self,
        uri: &str,
        _context: &CallContext,
    ) -> BoxFuture<Result<Vec<ResourceContents>, ReadError>> {
        Box::pin(self(uri.to_owned()))
    }
}

/// A closure that reads the call's context: what [`crate::Catalog::reader_in_context`] holds.
pub(crate) struct InContext<F>(pub(crate) F);

impl<F, Fut> ResourceReader for InContext<F>
where
    F: Fn(String, CallContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Vec<ResourceContents>, ReadError>> + Send + 'static,
{
    fn read(
        &self,
        uri: &str,
        context: &CallContext,
    ) -> BoxFuture<Result<Vec<ResourceContents>, ReadError>> {
        Box::pin((self.0)(uri.to_owned(), context.clone()))
    }
}

pub(crate) type SharedReader = Arc<dyn ResourceReader>;
