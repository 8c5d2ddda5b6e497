//! Validated arguments, keyed by the schema's own property names.

use std::sync::Arc;

use serde_json::{Map, Value};

/// A tool's (or prompt's) arguments after validation and normalisation.
///
/// Holds only the top-level properties the schema declares that the caller supplied, in schema
/// order. Each key is a clone of the compiled [`Schema`](super::Schema)'s own `Arc<str>`, never a
/// string taken from the request; each value is the caller's, untouched. Undeclared keys the
/// schema admitted are validated and then dropped.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Arguments {
    entries: Vec<(Arc<str>, Value)>,
}

impl Arguments {
    pub(crate) fn from_entries(entries: Vec<(Arc<str>, Value)>) -> Self {
        Self { entries }
    }

    /// No arguments.
    pub fn empty() -> Arguments {
        Arguments::default()
    }

    /// The value supplied for declared property `name`, if any.
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.entries
            .iter()
            .find(|(k, _)| &**k == name)
            .map(|(_, v)| v)
    }

    /// `(name, value)` pairs in schema order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Value)> {
        self.entries.iter().map(|(k, v)| (&**k, v))
    }

    /// `(name, value)` pairs in schema order, exposing the schema's shared key, so a host can keep
    /// a name without allocating (and can check it is the schema's own with [`Arc::ptr_eq`]).
    pub fn entries(&self) -> impl Iterator<Item = (&Arc<str>, &Value)> {
        self.entries.iter().map(|(k, v)| (k, v))
    }

    /// How many declared properties the caller supplied.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no declared property was supplied.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// A plain JSON object of the arguments, in schema order (allocates each key).
    pub fn into_map(self) -> Map<String, Value> {
        self.entries
            .into_iter()
            .map(|(k, v)| (String::from(&*k), v))
            .collect()
    }
}
