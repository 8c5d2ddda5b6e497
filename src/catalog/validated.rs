//! The catalog as the server holds it: validated at startup and at every change, kept sorted
//! in persistent maps, schemas compiled, and every list entry rendered in advance.

use super::change::{resource_key, CatalogChange, Step};
use super::header::header_annotations;
use super::icon::{check_link, ICON_SCHEMES};
use super::meta::check_host_meta_key;
use super::template::UriTemplate;
use super::{
    Catalog, Icon, Mode, PromptSpec, ResourceEntry, ResourceSpec, ResourceTemplateSpec,
    SharedCompleter, SharedReader, SharedRenderer, ToolSpec,
};
use crate::error::{ConfigError, ConfigItem, HeaderFault};
use crate::model::listing::{
    Prompt, PromptArgument, Resource, ResourceTemplate, Tool, ToolAnnotations,
};
use crate::schema::Schema;
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use std::collections::HashSet;
use std::sync::Arc;

/// The longest uri a resource template is matched against.
pub const MAX_TEMPLATE_URI_BYTES: usize = 2048;

/// How a forbidden `x-mcp-header` annotation is treated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum HeaderFaultPolicy {
    /// [`crate::Server::new`] refuses the catalog (the default).
    #[default]
    RefuseAtStartup,
    /// The server starts; every call to the faulty tool is refused as an internal error
    /// (-32603, HTTP 500) with the diagnosis logged and never sent, until the schema is fixed.
    RefuseCalls,
}

#[derive(Debug)]
pub(crate) struct ToolEntry {
    pub(crate) spec: ToolSpec,
    pub(crate) schema: Schema,
    /// The compiled `outputSchema`: every successful result is checked against it.
    pub(crate) output: Option<Schema>,
    pub(crate) advertised: Value,
    /// `advertised`, encoded once: lists copy these bytes instead of re-serialising.
    pub(crate) wire: Box<RawValue>,
    /// The 2025-11-25 list entry where it differs from `wire`: an output schema whose root is
    /// not an object, which that revision cannot carry, left out.
    pub(crate) legacy_wire: Option<Box<RawValue>>,
    pub(crate) header_fault: Option<HeaderFault>,
    /// Top-level properties carrying `x-mcp-header`: (header name, property name).
    pub(crate) headers: Vec<(String, Arc<str>)>,
    /// The metric series a call of this tool records into, built once.
    pub(crate) metric_keys: Arc<crate::metrics::ToolKeys>,
}

#[derive(Debug)]
pub(crate) struct PromptEntry {
    pub(crate) spec: PromptSpec,
    /// The prompt's name and its declared arguments' names, shared: what a completion
    /// request is keyed by.
    pub(crate) name: Arc<str>,
    pub(crate) arguments: Vec<Arc<str>>,
    pub(crate) schema: Schema,
    /// The list entry, encoded once: lists copy these bytes instead of re-serialising.
    pub(crate) wire: Box<RawValue>,
}

#[derive(Debug)]
pub(crate) struct TemplateEntry {
    pub(crate) spec: ResourceTemplateSpec,
    /// The uri template, shared: what a completion request is keyed by.
    pub(crate) uri_template: Arc<str>,
    pub(crate) template: UriTemplate,
    /// The list entry, encoded once: lists copy these bytes instead of re-serialising.
    pub(crate) wire: Box<RawValue>,
}

#[derive(Debug)]
pub(crate) struct ResourceEntryV {
    pub(crate) spec: ResourceSpec,
    /// The list entry, encoded once: lists copy these bytes instead of re-serialising.
    pub(crate) wire: Box<RawValue>,
}

/// The persistent ordered maps a catalog is kept in: a change copies the path to what it
/// touches and shares the rest, so one change costs the same at 50 items as at 50,000, and a
/// snapshot a request holds is never written to.
pub(crate) type Ordered<K, V> = rpds::RedBlackTreeMapSync<K, V>;

/// What startup and every change validate against beside the items themselves.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Rules {
    pub(crate) header_faults: HeaderFaultPolicy,
    /// Whether the configuration has one dispatch function: without it every tool needs its
    /// own handler.
    pub(crate) has_dispatch: bool,
}

#[derive(Clone)]
pub(crate) struct ValidatedCatalog {
    /// Keyed (so sorted) by name.
    pub(crate) tools: Ordered<Arc<str>, ToolEntry>,
    /// Keyed by uri.
    pub(crate) resources: Ordered<String, ResourceEntryV>,
    /// Keyed by uri template.
    pub(crate) templates: Ordered<String, TemplateEntry>,
    /// Keyed by name.
    pub(crate) prompts: Ordered<String, PromptEntry>,
    pub(crate) reader: Option<SharedReader>,
    pub(crate) renderer: Option<SharedRenderer>,
    completer: Option<SharedCompleter>,
}

impl std::fmt::Debug for ValidatedCatalog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ValidatedCatalog")
            .field("tools", &self.tools.size())
            .field("resources", &self.resources.size())
            .field("templates", &self.templates.size())
            .field("prompts", &self.prompts.size())
            .field("completer", &self.completer.is_some())
            .finish()
    }
}

impl ValidatedCatalog {
    pub(crate) fn tool(&self, name: &str) -> Option<&ToolEntry> {
        self.tools.get(name)
    }

    pub(crate) fn prompt(&self, name: &str) -> Option<&PromptEntry> {
        self.prompts.get(name)
    }

    pub(crate) fn template(&self, uri_template: &str) -> Option<&TemplateEntry> {
        self.templates.get(uri_template)
    }

    pub(crate) fn resource(&self, uri: &str) -> Option<&ResourceEntryV> {
        self.resources.get(uri)
    }

    /// The completer, while there is something to complete (a prompt or a template).
    pub(crate) fn completer(&self) -> Option<&SharedCompleter> {
        self.completer
            .as_ref()
            .filter(|_| !self.prompts.is_empty() || !self.templates.is_empty())
    }

    pub(crate) fn has_resources(&self) -> bool {
        !self.resources.is_empty() || !self.templates.is_empty()
    }

    /// The templates that may match `uri`: none for a uri longer than
    /// [`MAX_TEMPLATE_URI_BYTES`], so no request can make a match cost more than that bound.
    pub(crate) fn templates_matching<'a>(
        &'a self,
        uri: &'a str,
    ) -> impl Iterator<Item = &'a TemplateEntry> + 'a {
        let bounded = uri.len() <= MAX_TEMPLATE_URI_BYTES;
        self.templates
            .values()
            .filter(move |t| bounded && t.template.matches(uri))
    }

    /// The catalog `catalog` describes, validated.
    pub(crate) fn build(catalog: Catalog, rules: Rules) -> Result<Self, ConfigError> {
        let Catalog {
            tools,
            resources,
            prompts,
            reader,
            renderer,
            completer,
        } = catalog;
        let mut steps = Vec::with_capacity(tools.len() + resources.len() + prompts.len() + 3);
        steps.extend(tools.into_iter().map(Step::AddTool));
        steps.extend(resources.into_iter().map(Step::AddResource));
        steps.extend(prompts.into_iter().map(Step::AddPrompt));
        steps.extend(reader.map(Step::Reader));
        steps.extend(renderer.map(Step::Renderer));
        steps.extend(completer.map(Step::Completer));
        ValidatedCatalog::empty().apply(CatalogChange { steps }, rules)
    }

    fn empty() -> Self {
        ValidatedCatalog {
            tools: Ordered::new_sync(),
            resources: Ordered::new_sync(),
            templates: Ordered::new_sync(),
            prompts: Ordered::new_sync(),
            reader: None,
            renderer: None,
            completer: None,
        }
    }

    /// This catalog with `change` applied, every step validated as startup validates: the
    /// first refused step refuses the whole change, and `self` is untouched either way.
    pub(crate) fn apply(&self, change: CatalogChange, rules: Rules) -> Result<Self, ConfigError> {
        let mut next = self.clone();
        for step in change.steps {
            next.step(step, rules)?;
        }
        if next.has_resources() && next.reader.is_none() {
            return Err(ConfigError::MissingReader);
        }
        if !next.prompts.is_empty() && next.renderer.is_none() {
            return Err(ConfigError::MissingRenderer);
        }
        Ok(next)
    }

    fn step(&mut self, step: Step, rules: Rules) -> Result<(), ConfigError> {
        let absent = |item| Err(ConfigError::NotInCatalog { item });
        match step {
            Step::AddTool(spec) => {
                if self.tools.contains_key(spec.name()) {
                    return Err(ConfigError::DuplicateTool {
                        name: spec.name().to_owned(),
                    });
                }
                let entry = tool_entry(spec, rules)?;
                self.tools.insert_mut(entry.spec.name.clone(), entry);
            }
            Step::ReplaceTool(spec) => {
                if !self.tools.contains_key(spec.name()) {
                    return absent(ConfigItem::Tool(spec.name().to_owned()));
                }
                let entry = tool_entry(spec, rules)?;
                self.tools.insert_mut(entry.spec.name.clone(), entry);
            }
            Step::RemoveTool(name) => {
                if !self.tools.remove_mut(name.as_str()) {
                    return absent(ConfigItem::Tool(name));
                }
            }
            Step::AddResource(entry) => {
                let uri = resource_key(&entry);
                if self.resources.contains_key(uri) || self.templates.contains_key(uri) {
                    return Err(ConfigError::DuplicateResource {
                        uri: uri.to_owned(),
                    });
                }
                self.insert_resource(entry)?;
            }
            Step::ReplaceResource(entry) => {
                let uri = resource_key(&entry);
                if !self.remove_resource(uri) {
                    return absent(item_of(&entry));
                }
                self.insert_resource(entry)?;
            }
            Step::RemoveResource(uri) => {
                if !self.remove_resource(&uri) {
                    return absent(ConfigItem::Resource(uri));
                }
            }
            Step::AddPrompt(spec) => {
                if self.prompts.contains_key(spec.name.as_str()) {
                    return Err(ConfigError::DuplicatePrompt { name: spec.name });
                }
                let entry = prompt_entry(spec)?;
                self.prompts.insert_mut(entry.spec.name.clone(), entry);
            }
            Step::ReplacePrompt(spec) => {
                if !self.prompts.contains_key(spec.name.as_str()) {
                    return absent(ConfigItem::Prompt(spec.name));
                }
                let entry = prompt_entry(spec)?;
                self.prompts.insert_mut(entry.spec.name.clone(), entry);
            }
            Step::RemovePrompt(name) => {
                if !self.prompts.remove_mut(name.as_str()) {
                    return absent(ConfigItem::Prompt(name));
                }
            }
            Step::Reader(reader) => self.reader = Some(reader),
            Step::Renderer(renderer) => self.renderer = Some(renderer),
            Step::Completer(completer) => self.completer = Some(completer),
        }
        Ok(())
    }

    /// Removes the resource or template `uri` names; whether there was one.
    fn remove_resource(&mut self, uri: &str) -> bool {
        self.resources.remove_mut(uri) || self.templates.remove_mut(uri)
    }

    fn insert_resource(&mut self, entry: ResourceEntry) -> Result<(), ConfigError> {
        match entry {
            ResourceEntry::Resource(spec) => {
                check_presentation(&spec.icons, &spec.meta, || {
                    ConfigItem::Resource(spec.uri.clone())
                })?;
                let entry = ResourceEntryV {
                    wire: wire(&resource_listing(&spec)),
                    spec,
                };
                self.resources.insert_mut(entry.spec.uri.clone(), entry);
            }
            ResourceEntry::Template(spec) => {
                let template = UriTemplate::parse(&spec.uri_template).map_err(|source| {
                    ConfigError::Template {
                        uri_template: spec.uri_template.clone(),
                        source,
                    }
                })?;
                check_presentation(&spec.icons, &spec.meta, || {
                    ConfigItem::ResourceTemplate(spec.uri_template.clone())
                })?;
                let entry = TemplateEntry {
                    uri_template: spec.uri_template.as_str().into(),
                    wire: wire(&template_listing(&spec)),
                    spec,
                    template,
                };
                self.templates
                    .insert_mut(entry.spec.uri_template.clone(), entry);
            }
        }
        Ok(())
    }
}

fn item_of(entry: &ResourceEntry) -> ConfigItem {
    match entry {
        ResourceEntry::Resource(r) => ConfigItem::Resource(r.uri.clone()),
        ResourceEntry::Template(t) => ConfigItem::ResourceTemplate(t.uri_template.clone()),
    }
}

fn prompt_entry(spec: PromptSpec) -> Result<PromptEntry, ConfigError> {
    let mut args = HashSet::new();
    for a in &spec.arguments {
        if !args.insert(a.name.as_str()) {
            return Err(ConfigError::DuplicatePromptArgument {
                prompt: spec.name.clone(),
                argument: a.name.clone(),
            });
        }
    }
    check_presentation(&spec.icons, &spec.meta, || {
        ConfigItem::Prompt(spec.name.clone())
    })?;
    let schema =
        Schema::compile(&spec.argument_schema()).map_err(|source| ConfigError::PromptSchema {
            prompt: spec.name.clone(),
            source,
        })?;
    Ok(PromptEntry {
        name: spec.name.as_str().into(),
        arguments: spec
            .arguments
            .iter()
            .map(|a| a.name.as_str().into())
            .collect(),
        wire: wire(&prompt_listing(&spec)),
        spec,
        schema,
    })
}

/// Tool names the specification recommends: 1 to 128 of `A-Z a-z 0-9 _ - .`. Anything else
/// could not travel in an `Mcp-Name` header unencoded, so it is refused rather than guessed at.
fn valid_tool_name(name: &str) -> bool {
    (1..=128).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
}

fn tool_entry(spec: ToolSpec, rules: Rules) -> Result<ToolEntry, ConfigError> {
    if !valid_tool_name(&spec.name) {
        return Err(ConfigError::ToolName {
            name: spec.name.to_string(),
        });
    }
    if !rules.has_dispatch && spec.handler.is_none() {
        return Err(ConfigError::MissingDispatch {
            tool: spec.name.to_string(),
        });
    }
    if spec.argument_readers > 1 {
        return Err(ConfigError::HandlerReadsArgumentsTwice {
            tool: spec.name.to_string(),
        });
    }
    if spec.mode == Mode::ReadOnly && spec.hints.destructive == Some(true) {
        return Err(ConfigError::ContradictoryAnnotations {
            tool: spec.name.to_string(),
        });
    }
    check_presentation(&spec.icons, &spec.meta, || {
        ConfigItem::Tool(spec.name.to_string())
    })?;
    let schema = match &spec.input_schema {
        None => Schema::open_object(),
        Some(raw) => {
            let schema = Schema::compile(raw).map_err(|source| ConfigError::ToolSchema {
                tool: spec.name.to_string(),
                source,
            })?;
            if !schema.is_object_root() {
                return Err(ConfigError::SchemaRootNotObject {
                    tool: spec.name.to_string(),
                });
            }
            schema
        }
    };
    let output = match &spec.output_schema {
        None => None,
        Some(raw) => {
            let schema = Schema::compile(raw).map_err(|source| ConfigError::OutputSchema {
                tool: spec.name.to_string(),
                source,
            })?;
            Some(schema)
        }
    };
    let (headers, fault) = match header_annotations(&schema) {
        Ok(h) => (h, None),
        Err(fault) => match rules.header_faults {
            HeaderFaultPolicy::RefuseAtStartup => {
                return Err(ConfigError::McpHeader {
                    tool: spec.name.to_string(),
                    fault,
                })
            }
            HeaderFaultPolicy::RefuseCalls => (Vec::new(), Some(fault)),
        },
    };
    let entry = tool_listing(&spec, &schema, output.as_ref());
    // Serialising borrowed strings and values cannot fail; the fallback only keeps this total.
    let advertised = serde_json::to_value(&entry).unwrap_or(Value::Null);
    let listed = wire(&entry);
    // 2025-11-25 admits only an object-rooted `outputSchema` (SEP-2106 lifted that at
    // 2026-07-28): there the tool is listed without one, and its result travels as content.
    let legacy_wire = output
        .as_ref()
        .filter(|o| !o.is_object_root())
        .map(|_| wire(&tool_listing(&spec, &schema, None)));
    Ok(ToolEntry {
        metric_keys: Arc::new(crate::metrics::ToolKeys::new(&spec.name)),
        spec,
        schema,
        output,
        wire: listed,
        legacy_wire,
        advertised,
        header_fault: fault,
        headers,
    })
}

/// The tool's `tools/list` entry.
fn tool_listing<'a>(
    spec: &'a ToolSpec,
    schema: &'a Schema,
    output: Option<&'a Schema>,
) -> Tool<'a> {
    Tool {
        name: &spec.name,
        title: spec.title.as_deref(),
        description: &spec.description,
        input_schema: schema.raw(),
        output_schema: output.map(Schema::raw),
        annotations: ToolAnnotations {
            title: spec.hints.title.as_deref(),
            read_only_hint: matches!(spec.mode, Mode::ReadOnly),
            destructive_hint: spec.hints.destructive,
            idempotent_hint: spec.hints.idempotent,
            open_world_hint: spec.hints.open_world,
        },
        icons: &spec.icons,
        meta: &spec.meta,
    }
}

/// Checks an item's icons (each `src` an https, http or data URI) and `_meta` keys (the MCP
/// naming rules, no reserved prefix), naming the item on a refusal.
pub(crate) fn check_presentation(
    icons: &[Icon],
    meta: &Map<String, Value>,
    item: impl Fn() -> ConfigItem,
) -> Result<(), ConfigError> {
    check_icons(icons, &item)?;
    for key in meta.keys() {
        check_host_meta_key(key).map_err(|fault| ConfigError::MetaKey {
            item: item(),
            key: key.clone(),
            fault,
        })?;
    }
    Ok(())
}

/// Checks each icon's `src` is an https, http or data URI, naming the item on a refusal.
pub(crate) fn check_icons(
    icons: &[Icon],
    item: impl Fn() -> ConfigItem,
) -> Result<(), ConfigError> {
    for icon in icons {
        check_link(icon.src(), ICON_SCHEMES).map_err(|fault| ConfigError::IconSource {
            item: item(),
            src: icon.src().to_owned(),
            fault,
        })?;
    }
    Ok(())
}

fn resource_listing(spec: &ResourceSpec) -> Resource<'_> {
    Resource {
        uri: &spec.uri,
        name: &spec.name,
        title: spec.title.as_deref(),
        description: spec.description.as_deref(),
        mime_type: spec.mime_type.as_deref(),
        icons: &spec.icons,
        meta: &spec.meta,
    }
}

fn template_listing(spec: &ResourceTemplateSpec) -> ResourceTemplate<'_> {
    ResourceTemplate {
        uri_template: &spec.uri_template,
        name: &spec.name,
        title: spec.title.as_deref(),
        description: spec.description.as_deref(),
        mime_type: spec.mime_type.as_deref(),
        icons: &spec.icons,
        meta: &spec.meta,
    }
}

fn prompt_listing(spec: &PromptSpec) -> Prompt<'_> {
    Prompt {
        name: &spec.name,
        title: spec.title.as_deref(),
        description: spec.description.as_deref(),
        arguments: spec
            .arguments
            .iter()
            .map(|a| PromptArgument {
                name: &a.name,
                description: a.description.as_deref(),
                required: a.required,
            })
            .collect(),
        icons: &spec.icons,
        meta: &spec.meta,
    }
}

/// A value's wire bytes, encoded once at startup.
fn wire<T: serde::Serialize>(v: &T) -> Box<RawValue> {
    // Serialising borrowed strings and values cannot fail; the fallback only keeps this total.
    serde_json::value::to_raw_value(v).unwrap_or_else(|_| RawValue::NULL.to_owned())
}
