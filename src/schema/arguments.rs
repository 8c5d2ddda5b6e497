//! Validated arguments, keyed by the schema's own property names.

use std::sync::Arc;

use serde_json::{Map, Value};

/// A tool's (or prompt's) arguments after validation and normalisation.
///
/// Holds the top-level properties the schema declares that the caller supplied, in schema
/// order, each keyed by a clone of the compiled [`Schema`](super::Schema)'s own `Arc<str>`,
/// never a string taken from the request; and apart from them, the keys the schema admitted
/// without declaring them (through `additionalProperties`, `patternProperties` or
/// `unevaluatedProperties`), as the caller spelled them: owned by this call and dropped with
/// it, never interned or kept. Every value is the caller's, untouched.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Arguments {
    entries: Vec<(Arc<str>, Value)>,
    undeclared: Map<String, Value>,
}

impl Arguments {
    pub(crate) fn from_entries(entries: Vec<(Arc<str>, Value)>) -> Self {
        Self {
            entries,
            undeclared: Map::new(),
        }
    }

    pub(crate) fn with_undeclared(mut self, undeclared: Map<String, Value>) -> Self {
        self.undeclared = undeclared;
        self
    }

    /// No arguments.
    pub fn empty() -> Arguments {
        Arguments::default()
    }

    /// The value supplied for property `name`, declared or admitted undeclared, if any.
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.entries
            .iter()
            .find(|(k, _)| &**k == name)
            .map(|(_, v)| v)
            .or_else(|| self.undeclared.get(name))
    }

    /// The keys the schema admitted without declaring them, as the caller spelled them, with
    /// their values.
    pub fn undeclared(&self) -> &Map<String, Value> {
        &self.undeclared
    }

    /// The declared `(name, value)` pairs in schema order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Value)> {
        self.entries.iter().map(|(k, v)| (&**k, v))
    }

    /// The declared `(name, value)` pairs in schema order, exposing the schema's shared key, so a host can keep
    /// a name without allocating (and can check it is the schema's own with [`Arc::ptr_eq`]).
    pub fn entries(&self) -> impl Iterator<Item = (&Arc<str>, &Value)> {
        self.entries.iter().map(|(k, v)| (k, v))
    }

    /// How many properties the caller supplied, declared or not.
    pub fn len(&self) -> usize {
        self.entries.len() + self.undeclared.len()
    }

    /// Whether no property was supplied.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty() && self.undeclared.is_empty()
    }

    /// A plain JSON object of every argument, declared and undeclared (allocates each declared
    /// key).
    pub fn into_map(self) -> Map<String, Value> {
        let mut map = self.undeclared;
        map.extend(
            self.entries
                .into_iter()
                .map(|(k, v)| (String::from(&*k), v)),
        );
        map
    }
}
