//! Errors a host meets when it builds a server.

use crate::catalog::TemplateError;
use crate::schema::SchemaError;
use std::fmt;

/// Why [`crate::Server::new`] refused a configuration. Every variant names the item at fault.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ConfigError {
    /// Two tools share a name.
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
    /// A tool's output schema does not declare `"type": "object"` at its root.
    OutputSchemaRootNotObject {
        /// The tool.
        tool: String,
    },
    /// A tool's schema carries an `x-mcp-header` annotation the specification forbids.
    McpHeader {
        /// The tool.
        tool: String,
        /// What is wrong with the annotation.
        fault: HeaderFault,
    },
    /// Two resources or templates share a uri (or uri template).
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
    /// Two prompts share a name.
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
    /// No cursor key was given and the OS offered no randomness to draw one from: set
    /// [`crate::ServerConfig::cursor_key`].
    NoRandomness,
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
            ConfigError::DuplicateTool { name } => write!(f, "tool `{name}` is declared twice"),
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
            ConfigError::OutputSchemaRootNotObject { tool } => {
                write!(
                    f,
                    "tool `{tool}`: output schema root must declare \"type\": \"object\""
                )
            }
            ConfigError::McpHeader { tool, fault } => write!(f, "tool `{tool}`: {fault}"),
            ConfigError::DuplicateResource { uri } => {
                write!(f, "resource `{uri}` is declared twice")
            }
            ConfigError::Template {
                uri_template,
                source,
            } => {
                write!(f, "resource template `{uri_template}`: {source}")
            }
            ConfigError::DuplicatePrompt { name } => write!(f, "prompt `{name}` is declared twice"),
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
            ConfigError::NoRandomness => f.write_str(
                "no cursor key was given and the OS offered no randomness: set ServerConfig::cursor_key",
            ),
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
            _ => None,
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
