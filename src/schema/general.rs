//! JSON Schema 2020-12 beyond the subset, compiled once by the `jsonschema` crate.
//!
//! Before the crate sees a schema, [`scan::Scan`] refuses any keyword outside the allow-list,
//! any reference that is not a `#` reference, and any `#` reference that lands nowhere, each
//! with a pointer. The crate is then built offline (its retriever refuses everything), with the
//! `regex` engine (linear time in the input; ECMA-262 lookaround and backreferences do not
//! compile and are refused at startup), formats as annotations, draft 2020-12 whatever
//! `$schema` says, and the 2020-12 meta-schema check on, whose refusals carry their pointer.

use std::sync::Arc;

use serde_json::Value;

use super::error::{SchemaError, Violation};
use super::node::{JsonType, Node, Property};
use super::MAX_DEPTH;

mod scan;
mod violation;

/// How deep an instance may nest before the general validator looks at it. The validator
/// recurses along the instance where a schema refers to itself (`$ref`) or compares items
/// (`uniqueItems`), so this bounds its stack; the wire already refuses frames nested deeper
/// than 64 levels.
pub const MAX_INSTANCE_DEPTH: usize = 128;

/// A compiled general schema and the top-level property names it declares.
#[derive(Debug)]
pub(crate) struct General {
    validator: jsonschema::Validator,
    pub(crate) properties: Box<[(Arc<str>, Property)]>,
}

impl General {
    /// Compiles an object schema; `raw` has passed the raw-depth bound already.
    pub(crate) fn compile(raw: &Value) -> Result<General, SchemaError> {
        let scan = scan::Scan::of(raw)?;
        let validator = jsonschema::options()
            .with_draft(jsonschema::Draft::Draft202012)
            .offline()
            .with_pattern_options(jsonschema::PatternOptions::regex())
            .should_validate_formats(false)
            .build(raw)
            .map_err(|e| build_error(raw, &e))?;
        Ok(General {
            validator,
            properties: declared(raw, &scan),
        })
    }

    pub(crate) fn validate(&self, instance: &Value) -> Result<(), Violation> {
        if nests_deeper_than(instance, MAX_INSTANCE_DEPTH) {
            return Err(Violation::new(
                String::new(),
                "depth",
                format!("nests deeper than {MAX_INSTANCE_DEPTH} levels"),
            ));
        }
        match self.validator.validate(instance) {
            Ok(()) => Ok(()),
            Err(e) => Err(violation::from_error(&e)),
        }
    }
}

/// Whether `v` nests deeper than `limit`, checked without recursion.
fn nests_deeper_than(v: &Value, limit: usize) -> bool {
    let mut stack = vec![(v, 0usize)];
    while let Some((v, depth)) = stack.pop() {
        match v {
            Value::Array(items) if !items.is_empty() => {
                if depth >= limit {
                    return true;
                }
                stack.extend(items.iter().map(|c| (c, depth + 1)));
            }
            Value::Object(map) if !map.is_empty() => {
                if depth >= limit {
                    return true;
                }
                stack.extend(map.values().map(|c| (c, depth + 1)));
            }
            _ => {}
        }
    }
    false
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
    let mut visited: Vec<String> = Vec::new();
    let mut pending: Vec<(String, &Value, usize)> = vec![(String::new(), raw, 0)];
    while let Some((at, schema, depth)) = pending.pop() {
        if depth > MAX_DEPTH || visited.contains(&at) {
            continue;
        }
        visited.push(at.clone());
        let Value::Object(map) = schema else { continue };
        if let Some(Value::Object(props)) = map.get("properties") {
            for (name, sub) in props {
                if out.iter().any(|(k, _)| &**k == name) {
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
