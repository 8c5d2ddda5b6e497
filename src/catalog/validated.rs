//! The catalog as the server holds it: validated once at startup, sorted, schemas compiled,
//! and every `tools/list` entry rendered in advance.

use super::icon::{check_link, ICON_SCHEMES};
use super::meta::check_host_meta_key;
use super::template::UriTemplate;
use super::{
    Catalog, Icon, Mode, PromptSpec, ResourceSpec, ResourceTemplateSpec, SharedCompleter,
    SharedReader, SharedRenderer, ToolSpec,
};
use crate::error::{ConfigError, ConfigItem, HeaderFault};
use crate::model::listing::{
    Prompt, PromptArgument, Resource, ResourceTemplate, Tool, ToolAnnotations,
};
use crate::schema::{JsonType, Schema};
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

pub(crate) struct ValidatedCatalog {
    /// Sorted by name.
    pub(crate) tools: Vec<ToolEntry>,
    /// Sorted by uri.
    pub(crate) resources: Vec<ResourceEntryV>,
    /// Sorted by uri template.
    pub(crate) templates: Vec<TemplateEntry>,
    /// Sorted by name.
    pub(crate) prompts: Vec<PromptEntry>,
    pub(crate) reader: Option<SharedReader>,
    pub(crate) renderer: Option<SharedRenderer>,
    /// Present only when there is something to complete (a prompt or a template).
    pub(crate) completer: Option<SharedCompleter>,
}

impl std::fmt::Debug for ValidatedCatalog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ValidatedCatalog")
            .field("tools", &self.tools.len())
            .field("resources", &self.resources.len())
            .field("templates", &self.templates.len())
            .field("prompts", &self.prompts.len())
            .field("completer", &self.completer.is_some())
            .finish()
    }
}

impl ValidatedCatalog {
    pub(crate) fn tool(&self, name: &str) -> Option<&ToolEntry> {
        self.tool_index(name).map(|i| &self.tools[i])
    }

    /// Where `name` sits in [`ValidatedCatalog::tools`].
    pub(crate) fn tool_index(&self, name: &str) -> Option<usize> {
        self.tools
            .binary_search_by(|t| t.spec.name().cmp(name))
            .ok()
    }

    pub(crate) fn prompt(&self, name: &str) -> Option<&PromptEntry> {
        self.prompts
            .binary_search_by(|p| p.spec.name.as_str().cmp(name))
            .ok()
            .map(|i| &self.prompts[i])
    }

    pub(crate) fn template(&self, uri_template: &str) -> Option<&TemplateEntry> {
        self.templates
            .binary_search_by(|t| t.spec.uri_template.as_str().cmp(uri_template))
            .ok()
            .map(|i| &self.templates[i])
    }

    /// Whether `uri` is listed or matched by a listed template: the only uris the reader sees.
    ///
    /// Template matching is bounded to uris of [`MAX_TEMPLATE_URI_BYTES`]: a longer uri is
    /// matched by no template, so no request can make a match cost more than that bound.
    pub(crate) fn is_readable(&self, uri: &str) -> bool {
        let listed = self
            .resources
            .binary_search_by(|r| r.spec.uri.as_str().cmp(uri))
            .is_ok();
        listed
            || (uri.len() <= MAX_TEMPLATE_URI_BYTES
                && self.templates.iter().any(|t| t.template.matches(uri)))
    }

    pub(crate) fn build(
        catalog: Catalog,
        header_faults: HeaderFaultPolicy,
    ) -> Result<Self, ConfigError> {
        let Catalog {
            tools,
            resources,
            prompts,
            reader,
            renderer,
            completer,
        } = catalog;

        let mut seen = HashSet::new();
        let mut tool_entries = Vec::with_capacity(tools.len());
        for spec in tools {
            if !seen.insert(spec.name.clone()) {
                return Err(ConfigError::DuplicateTool {
                    name: spec.name.to_string(),
                });
            }
            tool_entries.push(tool_entry(spec, header_faults)?);
        }
        tool_entries.sort_by(|a, b| a.spec.name.cmp(&b.spec.name));

        let mut res = Vec::new();
        let mut templates = Vec::new();
        let mut uris = HashSet::new();
        for entry in resources {
            match entry {
                super::ResourceEntry::Resource(spec) => {
                    if !uris.insert(spec.uri.clone()) {
                        return Err(ConfigError::DuplicateResource { uri: spec.uri });
                    }
                    check_presentation(&spec.icons, &spec.meta, || {
                        ConfigItem::Resource(spec.uri.clone())
                    })?;
                    res.push(ResourceEntryV {
                        wire: wire(&resource_listing(&spec)),
                        spec,
                    });
                }
                super::ResourceEntry::Template(spec) => {
                    if !uris.insert(spec.uri_template.clone()) {
                        return Err(ConfigError::DuplicateResource {
                            uri: spec.uri_template,
                        });
                    }
                    let template = UriTemplate::parse(&spec.uri_template).map_err(|source| {
                        ConfigError::Template {
                            uri_template: spec.uri_template.clone(),
                            source,
                        }
                    })?;
                    check_presentation(&spec.icons, &spec.meta, || {
                        ConfigItem::ResourceTemplate(spec.uri_template.clone())
                    })?;
                    templates.push(TemplateEntry {
                        uri_template: spec.uri_template.as_str().into(),
                        wire: wire(&template_listing(&spec)),
                        spec,
                        template,
                    });
                }
            }
        }
        res.sort_by(|a, b| a.spec.uri.cmp(&b.spec.uri));
        templates.sort_by(|a, b| a.spec.uri_template.cmp(&b.spec.uri_template));
        if (!res.is_empty() || !templates.is_empty()) && reader.is_none() {
            return Err(ConfigError::MissingReader);
        }

        let mut names = HashSet::new();
        let mut prompt_entries = Vec::with_capacity(prompts.len());
        for spec in prompts {
            if !names.insert(spec.name.clone()) {
                return Err(ConfigError::DuplicatePrompt { name: spec.name });
            }
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
            let schema = Schema::compile(&spec.argument_schema()).map_err(|source| {
                ConfigError::PromptSchema {
                    prompt: spec.name.clone(),
                    source,
                }
            })?;
            let wire = wire(&prompt_listing(&spec));
            prompt_entries.push(PromptEntry {
                name: spec.name.as_str().into(),
                arguments: spec
                    .arguments
                    .iter()
                    .map(|a| a.name.as_str().into())
                    .collect(),
                spec,
                schema,
                wire,
            });
        }
        prompt_entries.sort_by(|a, b| a.spec.name.cmp(&b.spec.name));
        if !prompt_entries.is_empty() && renderer.is_none() {
            return Err(ConfigError::MissingRenderer);
        }

        let completer = completer.filter(|_| !prompt_entries.is_empty() || !templates.is_empty());
        Ok(ValidatedCatalog {
            completer,
            tools: tool_entries,
            resources: res,
            templates,
            prompts: prompt_entries,
            reader,
            renderer,
        })
    }
}

/// Tool names the specification recommends: 1 to 128 of `A-Z a-z 0-9 _ - .`. Anything else
/// could not travel in an `Mcp-Name` header unencoded, so it is refused rather than guessed at.
fn valid_tool_name(name: &str) -> bool {
    (1..=128).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
}

fn tool_entry(spec: ToolSpec, header_faults: HeaderFaultPolicy) -> Result<ToolEntry, ConfigError> {
    if !valid_tool_name(&spec.name) {
        return Err(ConfigError::ToolName {
            name: spec.name.to_string(),
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
        Err(fault) => match header_faults {
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

/// HTTP token characters (RFC 9110 `tchar`): what a header name may be made of.
fn is_token(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

fn header_annotations(schema: &Schema) -> Result<Vec<(String, Arc<str>)>, HeaderFault> {
    if let Some(pointer) = nested_header(schema.raw(), "", 0) {
        return Err(HeaderFault::NotTopLevel { pointer });
    }
    let mut out: Vec<(String, Arc<str>)> = Vec::new();
    for (prop, info) in schema.properties() {
        let Some(raw) = info.mcp_header() else {
            continue;
        };
        let Some(name) = raw.as_str().filter(|n| is_token(n)) else {
            return Err(HeaderFault::InvalidName {
                property: prop.to_string(),
            });
        };
        let types = info.types();
        let primitive = types.len() == 1
            && matches!(
                types[0],
                JsonType::Integer | JsonType::String | JsonType::Boolean
            );
        if !types.is_empty() && !primitive {
            return Err(HeaderFault::NotPrimitive {
                property: prop.to_string(),
            });
        }
        if out.iter().any(|(h, _)| h.eq_ignore_ascii_case(name)) {
            return Err(HeaderFault::Duplicate {
                header: name.to_string(),
            });
        }
        out.push((name.to_string(), prop.clone()));
    }
    Ok(out)
}

/// Finds an `x-mcp-header` anywhere but on a top-level property.
fn nested_header(v: &Value, pointer: &str, depth: usize) -> Option<String> {
    if let Value::Array(items) = v {
        // Subschema lists (`allOf`, `prefixItems`, ...): no item is a top-level property.
        return items
            .iter()
            .enumerate()
            .find_map(|(i, child)| nested_header(child, &format!("{pointer}/{i}"), depth + 1));
    }
    let obj = v.as_object()?;
    for (k, child) in obj {
        let here = format!("{pointer}/{}", k.replace('~', "~0").replace('/', "~1"));
        let top_level_property = depth == 2 && pointer.starts_with("/properties/");
        if k == "x-mcp-header" && !top_level_property {
            return Some(here);
        }
        let annotation_data = matches!(k.as_str(), "default" | "examples" | "const" | "enum");
        if (child.is_object() || child.is_array()) && !annotation_data {
            if let Some(p) = nested_header(child, &here, depth + 1) {
                return Some(p);
            }
        }
    }
    None
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
