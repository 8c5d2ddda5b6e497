//! The entries of the four lists: a tool, a resource, a resource template and a prompt as
//! `tools/list`, `resources/list`, `resources/templates/list` and `prompts/list` carry them.
//!
//! Each borrows from the catalog item it lists; the catalog encodes them once, at startup.

use super::icon::Icon;
use serde::Serialize;
use serde_json::{Map, Value};

/// A `Tool`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Tool<'a> {
    pub(crate) name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) title: Option<&'a str>,
    pub(crate) description: &'a str,
    pub(crate) input_schema: &'a Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) output_schema: Option<&'a Value>,
    pub(crate) annotations: ToolAnnotations<'a>,
    #[serde(skip_serializing_if = "<[Icon]>::is_empty")]
    pub(crate) icons: &'a [Icon],
    #[serde(rename = "_meta", skip_serializing_if = "Map::is_empty")]
    pub(crate) meta: &'a Map<String, Value>,
}

/// A tool's `ToolAnnotations`: `readOnlyHint` always (the tool's mode), the rest when set.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ToolAnnotations<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) title: Option<&'a str>,
    pub(crate) read_only_hint: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) destructive_hint: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) idempotent_hint: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) open_world_hint: Option<bool>,
}

/// A `Resource`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Resource<'a> {
    pub(crate) uri: &'a str,
    pub(crate) name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) title: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) description: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) mime_type: Option<&'a str>,
    #[serde(skip_serializing_if = "<[Icon]>::is_empty")]
    pub(crate) icons: &'a [Icon],
    #[serde(rename = "_meta", skip_serializing_if = "Map::is_empty")]
    pub(crate) meta: &'a Map<String, Value>,
}

/// A `ResourceTemplate`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ResourceTemplate<'a> {
    pub(crate) uri_template: &'a str,
    pub(crate) name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) title: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) description: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) mime_type: Option<&'a str>,
    #[serde(skip_serializing_if = "<[Icon]>::is_empty")]
    pub(crate) icons: &'a [Icon],
    #[serde(rename = "_meta", skip_serializing_if = "Map::is_empty")]
    pub(crate) meta: &'a Map<String, Value>,
}

/// A `Prompt`: its arguments always listed, an empty list included.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Prompt<'a> {
    pub(crate) name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) title: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) description: Option<&'a str>,
    pub(crate) arguments: Vec<PromptArgument<'a>>,
    #[serde(skip_serializing_if = "<[Icon]>::is_empty")]
    pub(crate) icons: &'a [Icon],
    #[serde(rename = "_meta", skip_serializing_if = "Map::is_empty")]
    pub(crate) meta: &'a Map<String, Value>,
}

/// A `PromptArgument`: `required` always sent.
#[derive(Debug, Serialize)]
pub(crate) struct PromptArgument<'a> {
    pub(crate) name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) description: Option<&'a str>,
    pub(crate) required: bool,
}
