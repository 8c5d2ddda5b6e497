//! Errors a host meets when it builds a server.

use crate::schema::SchemaError;
use std::fmt;

/// Why [`crate::Server::new`] refused a configuration, or [`crate::Server::change`] a change.
/// Every variant names the item at fault.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ConfigError {
    /// Two tools share a name, or a change adds a tool the catalog already has.
    DuplicateTool {
        /// The repeated name.
        name: String,
    },
    /// A tool name outside 1–128 of `A-Z a-z 0-9 _ - .`.
    ToolName {
        /// The name.
        name: String,
    },
    /// A tool's input schema uses a keyword outside JSON Schema 2020-12, a malformed value, or a
    /// remote `$ref`; [`SchemaError::pointer`] says where.
    ToolSchema {
        /// The tool.
        tool: String,
        /// What the schema compiler refused.
        source: SchemaError,
    },
    /// A tool's input schema does not declare `"type": "object"` at its root.
    SchemaRootNotObject {
        /// The tool.
        tool: String,
    },
    /// A tool's output schema uses a keyword the validator cannot enforce, or a malformed one.
    OutputSchema {
        /// The tool.
        tool: String,
        /// What the schema compiler refused.
        source: SchemaError,
    },
    /// A tool's schema carries an `x-mcp-header` annotation the specification forbids.
    McpHeader {
        /// The tool.
        tool: String,
        /// What is wrong with the annotation.
        fault: HeaderFault,
    },
    /// Two resources or templates share a uri (or uri template), or a change adds one the
    /// catalog already has.
    DuplicateResource {
        /// The repeated uri.
        uri: String,
    },
    /// A resource template uses something outside `{var}` and `{+var}`.
    Template {
        /// The template.
        uri_template: String,
        /// What is wrong with it.
        source: TemplateError,
    },
    /// Two prompts share a name, or a change adds a prompt the catalog already has.
    DuplicatePrompt {
        /// The repeated name.
        name: String,
    },
    /// A prompt declares one argument twice.
    DuplicatePromptArgument {
        /// The prompt.
        prompt: String,
        /// The repeated argument.
        argument: String,
    },
    /// A prompt's derived argument schema could not be compiled.
    PromptSchema {
        /// The prompt.
        prompt: String,
        /// What the schema compiler refused.
        source: SchemaError,
    },
    /// A tool has no handler of its own and the configuration no dispatch function.
    MissingDispatch {
        /// The first such tool.
        tool: String,
    },
    /// A tool's handler has two extractors that take the arguments (two `Args`, or `Args` and
    /// `ToolCall`): the second would see none.
    HandlerReadsArgumentsTwice {
        /// The tool.
        tool: String,
    },
    /// Resources are listed but the catalog has no reader.
    MissingReader,
    /// Prompts are listed but the catalog has no renderer.
    MissingRenderer,
    /// A [`crate::catalog::CatalogChange`] replaces or removes an item the catalog does not
    /// hold.
    NotInCatalog {
        /// The item asked for.
        item: ConfigItem,
    },
    /// No cursor key was given and the OS offered no randomness to draw one from: set
    /// [`crate::ServerConfig::cursor_key`].
    NoRandomness,
    /// A [`crate::catalog::Mode::ReadOnly`] tool says `destructiveHint: true`: a tool that
    /// does not modify its environment cannot destroy anything in it.
    ContradictoryAnnotations {
        /// The tool.
        tool: String,
    },
    /// An icon's `src` is not an `https:`, `http:` or `data:` URI.
    IconSource {
        /// The tool, resource, template, prompt or server the icon belongs to.
        item: ConfigItem,
        /// The refused `src`.
        src: String,
        /// What is wrong with it.
        fault: UriFault,
    },
    /// A `_meta` key breaks the MCP naming rules, or uses a prefix reserved for MCP.
    MetaKey {
        /// The tool, resource, template or prompt carrying it.
        item: ConfigItem,
        /// The refused key.
        key: String,
        /// Which rule it breaks.
        fault: MetaKeyFault,
    },
    /// The server's `websiteUrl` is not an `https:` or `http:` URL with a host.
    WebsiteUrl {
        /// The refused URL.
        url: String,
        /// What is wrong with it.
        fault: UriFault,
    },
    /// An extension identifier breaks the `_meta` key naming rules, or has no prefix.
    ExtensionId {
        /// The refused identifier.
        id: String,
        /// Which rule it breaks.
        fault: MetaKeyFault,
    },
    /// An extension's settings are not a JSON object (`{}` declares one with no settings).
    ExtensionSettings {
        /// The extension.
        id: String,
    },
    /// One extension is declared twice.
    DuplicateExtension {
        /// The repeated identifier.
        id: String,
    },
    /// An option is out of range.
    InvalidOption {
        /// The option.
        option: &'static str,
        /// Why.
        reason: &'static str,
    },
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigError::DuplicateTool { name } => write!(f, "the catalog already has a tool `{name}`"),
            ConfigError::ToolName { name } => {
                write!(f, "tool name `{name}` is not 1 to 128 of A-Z a-z 0-9 _ - .")
            }
            ConfigError::ToolSchema { tool, source } => {
                write!(f, "tool `{tool}`: input schema refused: {source}")
            }
            ConfigError::SchemaRootNotObject { tool } => {
                write!(
                    f,
                    "tool `{tool}`: input schema root must declare \"type\": \"object\""
                )
            }
            ConfigError::OutputSchema { tool, source } => {
                write!(f, "tool `{tool}`: output schema refused: {source}")
            }
            ConfigError::McpHeader { tool, fault } => write!(f, "tool `{tool}`: {fault}"),
            ConfigError::DuplicateResource { uri } => {
                write!(f, "the catalog already has a resource or template `{uri}`")
            }
            ConfigError::Template {
                uri_template,
                source,
            } => {
                write!(f, "resource template `{uri_template}`: {source}")
            }
            ConfigError::DuplicatePrompt { name } => write!(f, "the catalog already has a prompt `{name}`"),
            ConfigError::DuplicatePromptArgument { prompt, argument } => {
                write!(f, "prompt `{prompt}` declares argument `{argument}` twice")
            }
            ConfigError::PromptSchema { prompt, source } => {
                write!(f, "prompt `{prompt}`: argument schema refused: {source}")
            }
            ConfigError::MissingDispatch { tool } => write!(
                f,
                "tool `{tool}` has no handler and no dispatch function was given"
            ),
            ConfigError::HandlerReadsArgumentsTwice { tool } => write!(
                f,
                "tool `{tool}`: the handler takes the arguments twice (two `Args`, or `Args` and `ToolCall`)"
            ),
            ConfigError::MissingReader => {
                f.write_str("the catalog lists resources but provides no reader")
            }
            ConfigError::MissingRenderer => {
                f.write_str("the catalog lists prompts but provides no renderer")
            }
            ConfigError::NotInCatalog { item } => write!(f, "the catalog holds no {item}"),
            ConfigError::NoRandomness => f.write_str(
                "no cursor key was given and the OS offered no randomness: set ServerConfig::cursor_key",
            ),
            ConfigError::ContradictoryAnnotations { tool } => write!(
                f,
                "tool `{tool}` is Mode::ReadOnly (readOnlyHint: true) and says destructiveHint: true"
            ),
            ConfigError::IconSource { item, src, fault } => write!(
                f,
                "{item}: icon src `{src}`: {fault} (an icon is an https, http or data URI)"
            ),
            ConfigError::MetaKey { item, key, fault } => {
                write!(f, "{item}: _meta key `{key}`: {fault}")
            }
            ConfigError::WebsiteUrl { url, fault } => write!(
                f,
                "server websiteUrl `{url}`: {fault} (a website is an https or http URL)"
            ),
            ConfigError::ExtensionId { id, fault } => {
                write!(f, "extension identifier `{id}`: {fault}")
            }
            ConfigError::ExtensionSettings { id } => write!(
                f,
                "extension `{id}`: settings must be a JSON object ({{}} for none)"
            ),
            ConfigError::DuplicateExtension { id } => {
                write!(f, "extension `{id}` is declared twice")
            }
            ConfigError::InvalidOption { option, reason } => {
                write!(f, "option `{option}`: {reason}")
            }
        }
    }
}

impl std::error::Error for ConfigError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ConfigError::ToolSchema { source, .. }
            | ConfigError::OutputSchema { source, .. }
            | ConfigError::PromptSchema { source, .. } => Some(source),
            ConfigError::Template { source, .. } => Some(source),
            ConfigError::IconSource { fault, .. } | ConfigError::WebsiteUrl { fault, .. } => {
                Some(fault)
            }
            ConfigError::MetaKey { fault, .. } | ConfigError::ExtensionId { fault, .. } => {
                Some(fault)
            }
            _ => None,
        }
    }
}

/// The item of the configuration a [`ConfigError`] is about, when more than one kind of item
/// can be at fault.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ConfigItem {
    /// A tool, by name.
    Tool(String),
    /// A resource, by uri.
    Resource(String),
    /// A resource template, by uri template.
    ResourceTemplate(String),
    /// A prompt, by name.
    Prompt(String),
    /// The server itself (its `serverInfo`).
    Server,
}

impl fmt::Display for ConfigItem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigItem::Tool(name) => write!(f, "tool `{name}`"),
            ConfigItem::Resource(uri) => write!(f, "resource `{uri}`"),
            ConfigItem::ResourceTemplate(t) => write!(f, "resource template `{t}`"),
            ConfigItem::Prompt(name) => write!(f, "prompt `{name}`"),
            ConfigItem::Server => f.write_str("the server's serverInfo"),
        }
    }
}

/// What is wrong with an `x-mcp-header` annotation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HeaderFault {
    /// The annotation sits on a property whose declared type is not one primitive
    /// (`integer`, `string` or `boolean`).
    NotPrimitive {
        /// The property.
        property: String,
    },
    /// The annotation's value is not a valid HTTP header name token.
    InvalidName {
        /// The property.
        property: String,
    },
    /// Two properties name the same header, compared case-insensitively.
    Duplicate {
        /// The header name.
        header: String,
    },
    /// The annotation appears somewhere other than on a top-level property.
    NotTopLevel {
        /// JSON Pointer to it.
        pointer: String,
    },
}

impl fmt::Display for HeaderFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HeaderFault::NotPrimitive { property } => write!(
                f,
                "x-mcp-header on property `{property}`, which is not an integer, string or boolean"
            ),
            HeaderFault::InvalidName { property } => write!(
                f,
                "x-mcp-header on property `{property}` is not a valid header name"
            ),
            HeaderFault::Duplicate { header } => write!(
                f,
                "x-mcp-header `{header}` is not case-insensitively unique"
            ),
            HeaderFault::NotTopLevel { pointer } => {
                write!(
                    f,
                    "x-mcp-header at `{pointer}` is not on a top-level property"
                )
            }
        }
    }
}

impl std::error::Error for HeaderFault {}

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

/// Why a `_meta` key or an extension identifier breaks the MCP naming rules.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum MetaKeyFault {
    /// A prefix label is empty, does not start with a letter, does not end with a letter or a
    /// digit, or has something other than letters, digits and hyphens inside.
    Label {
        /// The label at fault (empty for an empty label).
        label: String,
    },
    /// The name does not start and end with an alphanumeric character, or has something other
    /// than alphanumerics, `-`, `_` and `.` inside (a second `/` included).
    Name {
        /// The name at fault.
        name: String,
    },
    /// The prefix's second label is `modelcontextprotocol` or `mcp`: reserved for MCP.
    Reserved {
        /// The prefix, without its slash.
        prefix: String,
    },
    /// An extension identifier has no prefix; the schema makes one mandatory there.
    MissingPrefix,
}

impl fmt::Display for MetaKeyFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MetaKeyFault::Label { label } => write!(
                f,
                "prefix label `{label}` must start with a letter, end with a letter or digit, \
                 and hold only letters, digits and hyphens"
            ),
            MetaKeyFault::Name { name } => write!(
                f,
                "name `{name}` must start and end with a letter or digit and hold only \
                 letters, digits, `-`, `_` and `.`"
            ),
            MetaKeyFault::Reserved { prefix } => write!(
                f,
                "prefix `{prefix}/` is reserved for MCP (its second label is \
                 `modelcontextprotocol` or `mcp`)"
            ),
            MetaKeyFault::MissingPrefix => f.write_str(
                "an extension identifier needs a prefix (`com.example/name`, reverse DNS)",
            ),
        }
    }
}

impl std::error::Error for MetaKeyFault {}

/// Why a template was refused at startup.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TemplateError {
    /// A `}` with no `{` before it, or a `{` never closed.
    BareBrace {
        /// Byte offset of the brace.
        at: usize,
    },
    /// An expression other than `{var}` or `{+var}`: another operator, a list, a modifier.
    UnsupportedExpression {
        /// The expression, braces included.
        expression: String,
    },
    /// Two expressions with no literal between them, which no uri can be split by.
    AdjacentExpressions {
        /// Byte offset of the second expression.
        at: usize,
    },
}

impl fmt::Display for TemplateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TemplateError::BareBrace { at } => write!(f, "bare brace at byte {at}"),
            TemplateError::UnsupportedExpression { expression } => write!(
                f,
                "unsupported expression `{expression}` (only {{var}} and {{+var}} are supported)"
            ),
            TemplateError::AdjacentExpressions { at } => {
                write!(
                    f,
                    "two expressions with no literal between them at byte {at}"
                )
            }
        }
    }
}

impl std::error::Error for TemplateError {}
