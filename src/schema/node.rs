//! The compiled form of one (sub)schema.

use std::sync::Arc;

use serde_json::{Number, Value};

/// A JSON Schema type name, as the `type` keyword spells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum JsonType {
    /// `"object"`
    Object,
    /// `"array"`
    Array,
    /// `"string"`
    String,
    /// `"number"`: any JSON number, integers included.
    Number,
    /// `"integer"`: a number with a zero fractional part (`42` and `42.0`).
    Integer,
    /// `"boolean"`
    Boolean,
    /// `"null"`
    Null,
}

impl JsonType {
    /// The name as the `type` keyword spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            JsonType::Object => "object",
            JsonType::Array => "array",
            JsonType::String => "string",
            JsonType::Number => "number",
            JsonType::Integer => "integer",
            JsonType::Boolean => "boolean",
            JsonType::Null => "null",
        }
    }

    pub(crate) fn from_name(name: &str) -> Option<JsonType> {
        Some(match name {
            "object" => JsonType::Object,
            "array" => JsonType::Array,
            "string" => JsonType::String,
            "number" => JsonType::Number,
            "integer" => JsonType::Integer,
            "boolean" => JsonType::Boolean,
            "null" => JsonType::Null,
            _ => return None,
        })
    }

    pub(crate) fn bit(self) -> u8 {
        1 << (self as u8)
    }
}

impl std::fmt::Display for JsonType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A declared property: its compiled subschema and the annotations hosts read.
#[derive(Debug, Clone)]
pub struct Property {
    pub(crate) node: Node,
    pub(crate) mcp_header: Option<Value>,
}

impl Property {
    /// The type(s) the property's `type` keyword declares, in declaration order; empty when the
    /// property declares no type.
    pub fn types(&self) -> &[JsonType] {
        &self.node.types
    }

    /// The raw `x-mcp-header` annotation value, exactly as the schema gives it. Whether it is
    /// allowed (primitive types only, unique names) is the catalog's judgement, not this module's.
    pub fn mcp_header(&self) -> Option<&Value> {
        self.mcp_header.as_ref()
    }
}

/// What `additionalProperties` says about keys `properties` does not declare.
#[derive(Debug, Clone)]
pub(crate) enum Additional {
    /// Absent or `true`.
    Allow,
    /// `false`.
    Deny,
    /// A subschema every undeclared value must satisfy.
    Schema(Box<Node>),
}

#[derive(Debug, Clone)]
pub(crate) struct Node {
    pub(crate) types: Box<[JsonType]>,
    /// Union of `JsonType::bit`; 0 means no `type` keyword.
    pub(crate) type_mask: u8,
    pub(crate) minimum: Option<Number>,
    pub(crate) maximum: Option<Number>,
    pub(crate) exclusive_minimum: Option<Number>,
    pub(crate) exclusive_maximum: Option<Number>,
    pub(crate) min_length: Option<u64>,
    pub(crate) max_length: Option<u64>,
    pub(crate) min_items: Option<u64>,
    pub(crate) max_items: Option<u64>,
    /// In schema order.
    pub(crate) properties: Box<[(Arc<str>, Property)]>,
    /// Indices into `properties`, sorted by name, for declared-key lookup without hashing.
    pub(crate) by_name: Box<[usize]>,
    pub(crate) required: Box<[Arc<str>]>,
    /// For each entry of `by_name`, whether `required` names it.
    pub(crate) required_by_name: Box<[bool]>,
    /// Whether every name `required` lists is a declared property, so that one pass over an
    /// instance's keys can count the required ones it meets.
    pub(crate) required_declared: bool,
    pub(crate) additional: Additional,
    pub(crate) items: Option<Box<Node>>,
}

impl Node {
    pub(crate) fn empty() -> Self {
        Node {
            types: Box::new([]),
            type_mask: 0,
            minimum: None,
            maximum: None,
            exclusive_minimum: None,
            exclusive_maximum: None,
            min_length: None,
            max_length: None,
            min_items: None,
            max_items: None,
            properties: Box::new([]),
            by_name: Box::new([]),
            required: Box::new([]),
            required_by_name: Box::new([]),
            required_declared: true,
            additional: Additional::Allow,
            items: None,
        }
    }

    /// Derives what the one-pass object check reads from `properties` and `required`, once
    /// both keywords are compiled (they may come in either order).
    pub(crate) fn index_required(&mut self) {
        self.required_by_name = self
            .by_name
            .iter()
            .map(|&i| self.required.contains(&self.properties[i].0))
            .collect();
        self.required_declared = self.required.iter().all(|name| self.declares(name));
    }

    pub(crate) fn declares(&self, key: &str) -> bool {
        self.by_name
            .binary_search_by(|&i| (*self.properties[i].0).cmp(key))
            .is_ok()
    }
}
