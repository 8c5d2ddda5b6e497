//! What one caller sees: the host's view applied to every lookup and list entry. Each lookup
//! finds a hidden item exactly as it finds none, so the answer cannot tell them apart.

use super::inner::Inner;
use crate::catalog::validated::{PromptEntry, TemplateEntry, ToolEntry};
use crate::catalog::Item;
use crate::dispatch::Extensions;

/// Whether the caller whose request carries `caller` sees `item`: always, without a view.
///
/// A view that panics hides the item (it fails closed), and the panic is logged: the request
/// is answered as for an item that does not exist, and the connection serves on.
pub(super) fn shows(inner: &Inner, item: Item<'_>, caller: &Extensions) -> bool {
    let Some(view) = &inner.view else {
        return true;
    };
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| view.shows(item, caller)))
        .unwrap_or_else(|_| {
            tracing::error!("the catalog view panicked; the item is hidden from this caller");
            false
        })
}

/// The tool `name`, when it exists and the caller sees it: one lookup either way, so a hidden
/// tool is found exactly as a missing one is not.
pub(super) fn visible_tool<'a>(
    inner: &'a Inner,
    name: &str,
    caller: &Extensions,
) -> Option<&'a ToolEntry> {
    inner
        .catalog
        .tool(name)
        .filter(|t| shows(inner, Item::Tool(&t.spec), caller))
}

/// Whether `uri` is a resource the caller sees or matches a template the caller sees: the only
/// uris the reader is asked for. The same lookups run whatever the answer (every template is
/// tried); a hidden item costs one call of the view more than a missing one.
pub(super) fn readable(inner: &Inner, uri: &str, caller: &Extensions) -> bool {
    let cat = &inner.catalog;
    let listed = cat
        .resource(uri)
        .is_some_and(|r| shows(inner, Item::Resource(&r.spec), caller));
    let matched = cat
        .templates_matching(uri)
        .filter(|t| shows(inner, Item::ResourceTemplate(&t.spec), caller))
        .count();
    listed || matched > 0
}

/// The prompt `name`, when it exists and the caller sees it.
pub(super) fn visible_prompt<'a>(
    inner: &'a Inner,
    name: &str,
    caller: &Extensions,
) -> Option<&'a PromptEntry> {
    inner
        .catalog
        .prompt(name)
        .filter(|p| shows(inner, Item::Prompt(&p.spec), caller))
}

/// The template `uri_template`, when it exists and the caller sees it.
pub(super) fn visible_template<'a>(
    inner: &'a Inner,
    uri_template: &str,
    caller: &Extensions,
) -> Option<&'a TemplateEntry> {
    inner
        .catalog
        .template(uri_template)
        .filter(|t| shows(inner, Item::ResourceTemplate(&t.spec), caller))
}
