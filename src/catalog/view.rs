//! Per-caller views: the host's hook narrowing what one caller sees and may use.

use super::{PromptSpec, ResourceSpec, ResourceTemplateSpec, ToolSpec};
use crate::dispatch::Extensions;

/// One item of the catalog, as a [`CatalogView`] is asked about it.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub enum Item<'a> {
    /// A tool.
    Tool(&'a ToolSpec),
    /// A concrete resource.
    Resource(&'a ResourceSpec),
    /// A resource template.
    ResourceTemplate(&'a ResourceTemplateSpec),
    /// A prompt.
    Prompt(&'a PromptSpec),
}

/// The host's hook narrowing the catalog per caller (`ServerConfig::view`): given an item and
/// the request's [`Extensions`] (the principal an `authorize` hook attached, say), whether that
/// caller may see and use it.
///
/// The crate enforces the answer and decides nothing: a hidden item is left out of every list
/// and answered by `tools/call`, `resources/read`, `prompts/get` and `completion/complete`
/// exactly as an item that does not exist (same code, same message, same data, found by the
/// same lookup), so a caller cannot probe for it. Which kinds of item exist is not hidden: the
/// capabilities, and whether a method is served at all, follow the whole catalog. A host
/// dispatch (`ApplicationRef::dispatch_with`) is a caller too, named by its extensions. A
/// resource read is allowed when the uri is a resource the caller sees or matches a template
/// the caller sees. Every list and every read served under a view is cached `private`: what
/// it holds depends on who asked.
///
/// The hook runs on the request path, once per item a list pages over and once per lookup:
/// keep it a lookup, not IO. It must answer the same for the same caller and item, or a
/// paging client may see an item appear or vanish between pages. A hook that panics hides the
/// item it was asked about (the panic is logged); nothing else is affected.
///
/// ```
/// use beam_mcp::catalog::{Item, ToolSpec};
/// use beam_mcp::{Catalog, Extensions, Server, ServerConfig, ToolOutput};
///
/// #[derive(Clone)]
/// struct Tenant(&'static str);
///
/// let catalog = Catalog::new()
///     .tool(ToolSpec::new("acme.report", "Acme's report."))
///     .tool(ToolSpec::new("globex.report", "Globex's report."));
/// let server = Server::new(
///     ServerConfig::new(catalog)
///         .dispatch(|_call| async { Ok(ToolOutput::text("ok")) })
///         .view(|item: Item<'_>, caller: &Extensions| match item {
///             Item::Tool(tool) => caller
///                 .get::<Tenant>()
///                 .is_some_and(|t| tool.name().starts_with(&format!("{}.", t.0))),
///             _ => true,
///         }),
/// )?;
/// # let _ = server;
/// # Ok::<(), beam_mcp::ConfigError>(())
/// ```
pub trait CatalogView: Send + Sync + 'static {
    /// Whether the caller whose request carries `caller` sees `item`.
    fn shows(&self, item: Item<'_>, caller: &Extensions) -> bool;
}

impl<F> CatalogView for F
where
    F: Fn(Item<'_>, &Extensions) -> bool + Send + Sync + 'static,
{
    fn shows(&self, item: Item<'_>, caller: &Extensions) -> bool {
        self(item, caller)
    }
}
