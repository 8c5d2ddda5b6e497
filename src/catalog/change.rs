//! A change to a live catalog: items added, replaced and removed, applied whole or not at all.

use super::{
    Completer, PromptRenderer, PromptSpec, ResourceEntry, ResourceReader, SharedCompleter,
    SharedReader, SharedRenderer, ToolSpec,
};
use std::fmt;
use std::sync::Arc;

/// Items to add, replace and remove in a serving catalog, in order, as one change.
///
/// [`crate::Server::change`] (or, under the runtime, `ApplicationRef::change`) validates the
/// whole change as [`crate::Server::new`] validates a catalog, and applies it only if every
/// step passes: a refused schema, template, name or `_meta` key changes nothing. A request
/// already routed finishes on the catalog it started with; the next request sees the change.
///
/// `add_*` refuses a name or uri the catalog already holds; `replace_*` and `remove_*` refuse
/// one it does not hold ([`crate::ConfigError::NotInCatalog`]). Steps see the steps before
/// them: removing a tool and adding one of the same name in one change replaces it.
///
/// ```
/// use beam_mcp::catalog::{CatalogChange, ToolSpec};
/// use beam_mcp::{Catalog, Server, ServerConfig, ToolOutput};
///
/// let server = Server::new(
///     ServerConfig::new(Catalog::new())
///         .dispatch(|_call| async { Ok(ToolOutput::text("done")) }),
/// )?;
/// let generation = server.change(
///     CatalogChange::new().add_tool(ToolSpec::new("reindex", "Rebuild the index.")),
/// )?;
/// assert_eq!(generation, 1);
/// assert!(server.advertised_tool("reindex").is_some());
/// # Ok::<(), beam_mcp::ConfigError>(())
/// ```
#[derive(Clone, Default)]
#[must_use]
pub struct CatalogChange {
    pub(crate) steps: Vec<Step>,
}

/// One step of a [`CatalogChange`].
#[derive(Clone)]
pub(crate) enum Step {
    AddTool(ToolSpec),
    ReplaceTool(ToolSpec),
    RemoveTool(String),
    AddResource(ResourceEntry),
    ReplaceResource(ResourceEntry),
    /// A resource's uri or a template's uri template.
    RemoveResource(String),
    AddPrompt(PromptSpec),
    ReplacePrompt(PromptSpec),
    RemovePrompt(String),
    Reader(SharedReader),
    Renderer(SharedRenderer),
    Completer(SharedCompleter),
}

impl fmt::Debug for CatalogChange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(&self.steps).finish()
    }
}

impl fmt::Debug for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Step::AddTool(t) => write!(f, "add tool {}", t.name()),
            Step::ReplaceTool(t) => write!(f, "replace tool {}", t.name()),
            Step::RemoveTool(n) => write!(f, "remove tool {n}"),
            Step::AddResource(r) => write!(f, "add resource {}", resource_key(r)),
            Step::ReplaceResource(r) => write!(f, "replace resource {}", resource_key(r)),
            Step::RemoveResource(u) => write!(f, "remove resource {u}"),
            Step::AddPrompt(p) => write!(f, "add prompt {}", p.name()),
            Step::ReplacePrompt(p) => write!(f, "replace prompt {}", p.name()),
            Step::RemovePrompt(n) => write!(f, "remove prompt {n}"),
            Step::Reader(_) => f.write_str("set reader"),
            Step::Renderer(_) => f.write_str("set renderer"),
            Step::Completer(_) => f.write_str("set completer"),
        }
    }
}

/// A resource's uri, or a template's uri template: the one namespace both share.
pub(crate) fn resource_key(entry: &ResourceEntry) -> &str {
    match entry {
        ResourceEntry::Resource(r) => &r.uri,
        ResourceEntry::Template(t) => &t.uri_template,
    }
}

impl CatalogChange {
    /// An empty change (applying it changes nothing but the generation).
    pub fn new() -> Self {
        CatalogChange::default()
    }

    /// Adds a tool; refused if the catalog has one of that name.
    pub fn add_tool(mut self, tool: ToolSpec) -> Self {
        self.steps.push(Step::AddTool(tool));
        self
    }

    /// Replaces the tool of the same name; refused if there is none.
    pub fn replace_tool(mut self, tool: ToolSpec) -> Self {
        self.steps.push(Step::ReplaceTool(tool));
        self
    }

    /// Removes the tool `name`; refused if there is none.
    pub fn remove_tool(mut self, name: impl Into<String>) -> Self {
        self.steps.push(Step::RemoveTool(name.into()));
        self
    }

    /// Adds a resource or a resource template; refused if its uri (or uri template) is taken.
    pub fn add_resource(mut self, entry: impl Into<ResourceEntry>) -> Self {
        self.steps.push(Step::AddResource(entry.into()));
        self
    }

    /// Replaces the resource or template of the same uri (or uri template), of either kind;
    /// refused if there is none.
    pub fn replace_resource(mut self, entry: impl Into<ResourceEntry>) -> Self {
        self.steps.push(Step::ReplaceResource(entry.into()));
        self
    }

    /// Removes the resource whose uri, or the template whose uri template, is `uri`; refused
    /// if there is none.
    pub fn remove_resource(mut self, uri: impl Into<String>) -> Self {
        self.steps.push(Step::RemoveResource(uri.into()));
        self
    }

    /// Adds a prompt; refused if the catalog has one of that name.
    pub fn add_prompt(mut self, prompt: PromptSpec) -> Self {
        self.steps.push(Step::AddPrompt(prompt));
        self
    }

    /// Replaces the prompt of the same name; refused if there is none.
    pub fn replace_prompt(mut self, prompt: PromptSpec) -> Self {
        self.steps.push(Step::ReplacePrompt(prompt));
        self
    }

    /// Removes the prompt `name`; refused if there is none.
    pub fn remove_prompt(mut self, name: impl Into<String>) -> Self {
        self.steps.push(Step::RemovePrompt(name.into()));
        self
    }

    /// Sets the reader behind `resources/read` (a catalog that lists resources needs one).
    pub fn reader(mut self, reader: impl ResourceReader) -> Self {
        self.steps.push(Step::Reader(Arc::new(reader)));
        self
    }

    /// Sets the renderer behind `prompts/get` (a catalog that lists prompts needs one).
    pub fn renderer(mut self, renderer: impl PromptRenderer) -> Self {
        self.steps.push(Step::Renderer(Arc::new(renderer)));
        self
    }

    /// Sets the completer behind `completion/complete`.
    pub fn completer(mut self, completer: impl Completer) -> Self {
        self.steps.push(Step::Completer(Arc::new(completer)));
        self
    }

    /// Whether the change has no steps.
    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }
}
