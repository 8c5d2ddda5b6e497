//! JSON Schema 2020-12 beyond the subset: checked at startup, compiled to a graph of nodes,
//! enforced by this crate's own evaluator in work linear in the instance.
//!
//! At [`General::compile`], [`scan::Scan`] refuses any keyword outside the allow-list, any
//! reference that is not a `#` reference, and any `#` reference that lands nowhere, each with a
//! pointer. The `jsonschema` crate then checks the schema against the 2020-12 meta-schema
//! (offline: its retriever refuses everything), whose refusals carry their pointer; it never
//! sees a caller's value. [`program::Program`] compiles the schema into nodes, patterns with
//! the `regex` engine (linear time in the input; ECMA-262 lookaround and backreferences do not
//! compile and are refused), and refuses a cycle of references that never moves into the
//! instance. [`eval`] validates: reference targets memoised per value, one violation, under a
//! [`Budget`].

use std::collections::HashSet;
use std::sync::Arc;

use serde_json::Value;

use super::budget::Budget;
use super::error::{SchemaError, Violation};
use super::node::{JsonType, Node, Property};
use super::MAX_DEPTH;

mod equal;
mod eval;
mod program;
mod scan;

/// How deep into an instance the general validator follows it. The validator recurses along the
/// instance where a schema refers to itself (`$ref`) or compares values (`enum`, `const`,
/// `uniqueItems`), so this bounds its stack: where it would go deeper, the instance is refused
/// with keyword `depth`. The wire refuses frames nested deeper than 64 levels, so no request's
/// arguments reach it.
pub const MAX_INSTANCE_DEPTH: usize = 64;

/// A compiled general schema and the top-level property names it declares.
#[derive(Debug)]
pub(crate) struct General {
    program: program::Program,
    pub(crate) properties: Box<[(Arc<str>, Property)]>,
}

impl General {
    /// Compiles an object schema; `raw` has passed the raw-depth bound already.
    pub(crate) fn compile(raw: &Value) -> Result<General, SchemaError> {
        let scan = scan::Scan::of(raw)?;
        // The meta-schema check only: building the crate's own validator takes time exponential
        // in references nested under `unevaluated*` (a chain of 12 takes seconds), and nothing
        // of it would be used.
        jsonschema::draft202012::meta::validate(raw).map_err(|e| build_error(raw, &e))?;
        Ok(General {
            program: program::Program::compile(raw, &scan)?,
            properties: declared(raw, &scan),
        })
    }

    pub(crate) fn validate(&self, instance: &Value, budget: &mut Budget) -> Result<(), Violation> {
        eval::validate(&self.program, instance, budget)
    }
}

/// A refusal from the validator crate's build, placed by its pointer into the schema.
fn build_error(raw: &Value, e: &jsonschema::ValidationError<'_>) -> SchemaError {
    use jsonschema::error::ValidationErrorKind as K;
    let reason = match e.kind() {
        K::Format { format } if format == "regex" => {
            "not a regular expression the linear-time engine compiles \
             (ECMA-262 lookaround and backreferences are not supported)"
        }
        K::Referencing(_) => "a reference that does not resolve within the schema",
        K::Type { .. } => "a value of the wrong JSON type for this keyword (2020-12 meta-schema)",
        K::Minimum { .. } | K::ExclusiveMinimum { .. } => {
            "a value below what this keyword takes (2020-12 meta-schema)"
        }
        K::UniqueItems => "repeats an entry that must be unique (2020-12 meta-schema)",
        K::Pattern { .. } | K::Format { .. } => {
            "a value of the wrong form for this keyword (2020-12 meta-schema)"
        }
        _ => "not a value this keyword takes (2020-12 meta-schema)",
    };
    let (at, keyword, rest) = scan::split(raw, e.instance_path().as_str());
    SchemaError::malformed_within(&at, keyword.as_deref(), rest, reason)
}

/// The names the root declares: its own `properties`, then those of the subschemas applied in
/// place to the root object (`allOf`, `anyOf`, `oneOf`, `if`/`then`/`else`,
/// `dependentSchemas`, and the targets of `$ref`/`$dynamicRef`), first declaration first.
fn declared(raw: &Value, scan: &scan::Scan) -> Box<[(Arc<str>, Property)]> {
    let mut out: Vec<(Arc<str>, Property)> = Vec::new();
    let mut names: HashSet<String> = HashSet::new();
    let mut visited: HashSet<String> = HashSet::new();
    let mut pending: Vec<(String, &Value, usize)> = vec![(String::new(), raw, 0)];
    while let Some((at, schema, depth)) = pending.pop() {
        if depth > MAX_DEPTH || !visited.insert(at.clone()) {
            continue;
        }
        let Value::Object(map) = schema else { continue };
        if let Some(Value::Object(props)) = map.get("properties") {
            for (name, sub) in props {
                if !names.insert(name.clone()) {
                    continue;
                }
                let mut node = Node::empty();
                node.types = types_of(sub);
                let mcp_header = if at.is_empty() {
                    sub.get("x-mcp-header").cloned()
                } else {
                    None
                };
                out.push((Arc::from(name.as_str()), Property { node, mcp_header }));
            }
        }
        // Pushed in reverse so that the stack pops them in document order.
        let mut next: Vec<(String, &Value)> = Vec::new();
        for keyword in ["allOf", "anyOf", "oneOf"] {
            if let Some(Value::Array(subs)) = map.get(keyword) {
                for (i, sub) in subs.iter().enumerate() {
                    next.push((format!("{at}/{keyword}/{i}"), sub));
                }
            }
        }
        for keyword in ["if", "then", "else"] {
            if let Some(sub) = map.get(keyword) {
                next.push((format!("{at}/{keyword}"), sub));
            }
        }
        if let Some(Value::Object(subs)) = map.get("dependentSchemas") {
            for (name, sub) in subs {
                let mut p = format!("{at}/dependentSchemas");
                super::pointer::push(&mut p, name);
                next.push((p, sub));
            }
        }
        for keyword in ["$ref", "$dynamicRef"] {
            if let Some(fragment) = map
                .get(keyword)
                .and_then(Value::as_str)
                .and_then(|r| r.strip_prefix('#'))
            {
                if let Some((target, sub)) = scan.resolve(raw, scan.resource_of(&at), fragment) {
                    next.push((target, sub));
                }
            }
        }
        pending.extend(next.into_iter().rev().map(|(p, v)| (p, v, depth + 1)));
    }
    out.into_boxed_slice()
}

/// The type names a property's `type` keyword gives, when it is well formed.
fn types_of(sub: &Value) -> Box<[JsonType]> {
    match sub.get("type") {
        Some(Value::String(s)) => JsonType::from_name(s).into_iter().collect(),
        Some(Value::Array(list)) => list
            .iter()
            .filter_map(|t| t.as_str().and_then(JsonType::from_name))
            .collect(),
        _ => Box::new([]),
    }
}
