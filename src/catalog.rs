//! The catalog contract: what a host offers (tools, resources, prompts) and the reader and
//! renderer behind the last two.
//!
//! A [`Catalog`] is plain data plus two optional callbacks. [`crate::Server::new`] validates it
//! at startup, [`crate::Server::change`] validates every [`CatalogChange`] the same way while
//! serving, and each refuses a bad one with a [`crate::ConfigError`] naming the item:
//! a repeated tool name, uri, template or prompt; a schema the crate cannot validate (a keyword
//! outside JSON Schema 2020-12, a remote `$ref`); a forbidden `x-mcp-header` annotation; a template with an unsupported expression;
//! resources or prompts listed with no reader or renderer. An optional [`Completer`] answers
//! `completion/complete` for prompt arguments and template variables.
//!
//! Every listed item may carry [`Icon`]s and host `_meta` members (`with_icon`, `with_meta`),
//! and a tool the five `annotations` of the schema; [`crate::Server::new`] checks an icon's
//! source and every `_meta` key at startup (`meta.rs` holds the key rules).

mod change;
mod completion;
pub(crate) mod cursor;
mod header;
pub(crate) mod icon;
pub(crate) mod meta;
mod prompt;
mod resource;
pub(crate) mod template;
mod tool;
pub(crate) mod validated;
mod view;

pub use crate::error::{MetaKeyFault, TemplateError, UriFault};
pub use crate::model::{
    Completion, Icon, IconTheme, PromptMessage, RenderedPrompt, ResourceBody, ResourceContents,
    Role, MAX_COMPLETION_VALUES,
};

pub use change::CatalogChange;
pub use completion::{CompleteError, Completer, CompletionRef, CompletionRequest};
pub use prompt::{PromptArgument, PromptRenderer, PromptSpec, RenderError};
pub use resource::{ReadError, ResourceEntry, ResourceReader, ResourceSpec, ResourceTemplateSpec};
pub use tool::{Mode, ToolSpec};
pub use validated::MAX_TEMPLATE_URI_BYTES;
pub use view::{CatalogView, Item};

use completion::SharedCompleter;
use prompt::SharedRenderer;
use resource::SharedReader;
use std::fmt;
use std::sync::Arc;

/// What a host offers: tools, resources and templates in one list, prompts, and the reader and
/// renderer that serve the last two.
///
/// ```
/// use beam_mcp::catalog::{Catalog, ToolSpec};
/// let catalog = Catalog::new().tool(ToolSpec::new("ping_host", "Ping a host."));
/// assert_eq!(catalog.tools().len(), 1);
/// ```
#[derive(Clone, Default)]
pub struct Catalog {
    pub(crate) tools: Vec<ToolSpec>,
    pub(crate) resources: Vec<ResourceEntry>,
    pub(crate) prompts: Vec<PromptSpec>,
    pub(crate) reader: Option<SharedReader>,
    pub(crate) renderer: Option<SharedRenderer>,
    pub(crate) completer: Option<SharedCompleter>,
}

impl fmt::Debug for Catalog {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Catalog")
            .field("tools", &self.tools)
            .field("resources", &self.resources)
            .field("prompts", &self.prompts)
            .field("reader", &self.reader.is_some())
            .field("renderer", &self.renderer.is_some())
            .field("completer", &self.completer.is_some())
            .finish()
    }
}

impl Catalog {
    /// An empty catalog.
    pub fn new() -> Self {
        Catalog::default()
    }

    /// Adds a tool.
    #[must_use]
    pub fn tool(mut self, tool: ToolSpec) -> Self {
        self.tools.push(tool);
        self
    }

    /// Adds a resource or a resource template.
    #[must_use]
    pub fn resource(mut self, entry: impl Into<ResourceEntry>) -> Self {
        self.resources.push(entry.into());
        self
    }

    /// Adds a prompt.
    #[must_use]
    pub fn prompt(mut self, prompt: PromptSpec) -> Self {
        self.prompts.push(prompt);
        self
    }

    /// Sets the reader behind `resources/read`. Required when any resource is listed.
    #[must_use]
    pub fn reader(mut self, reader: impl ResourceReader) -> Self {
        self.reader = Some(Arc::new(reader));
        self
    }

    /// Sets the renderer behind `prompts/get`. Required when any prompt is listed.
    #[must_use]
    pub fn renderer(mut self, renderer: impl PromptRenderer) -> Self {
        self.renderer = Some(Arc::new(renderer));
        self
    }

    /// Sets a reader that reads the call's context: `read(uri, context)`, where
    /// [`crate::CallContext::extensions`] holds what the host attached (the principal its
    /// authorize hook returned, say).
    #[must_use]
    pub fn reader_in_context<F, Fut>(self, read: F) -> Self
    where
        F: Fn(String, crate::CallContext) -> Fut + Send + Sync + 'static,
        Fut:
            std::future::Future<Output = Result<Vec<ResourceContents>, ReadError>> + Send + 'static,
    {
        self.reader(resource::InContext(read))
    }

    /// Sets a renderer that reads the call's context: `render(name, arguments, context)`.
    #[must_use]
    pub fn renderer_in_context<F, Fut>(self, render: F) -> Self
    where
        F: Fn(String, crate::schema::Arguments, crate::CallContext) -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<Output = Result<RenderedPrompt, RenderError>> + Send + 'static,
    {
        self.renderer(resource::InContext(render))
    }

    /// Sets the completer behind `completion/complete`, for the arguments of the listed prompts
    /// and the variables of the listed resource templates. With one (and something to
    /// complete), the `completions` capability is advertised; without one, the method is
    /// refused -32601.
    #[must_use]
    pub fn completer(mut self, completer: impl Completer) -> Self {
        self.completer = Some(Arc::new(completer));
        self
    }

    /// The tools, in declaration order.
    pub fn tools(&self) -> &[ToolSpec] {
        &self.tools
    }

    /// The resources and templates, in declaration order.
    pub fn resources(&self) -> &[ResourceEntry] {
        &self.resources
    }

    /// The prompts, in declaration order.
    pub fn prompts(&self) -> &[PromptSpec] {
        &self.prompts
    }
}
