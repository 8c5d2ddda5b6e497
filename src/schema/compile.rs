//! Raw JSON Schema value → compiled [`Node`], refusing anything outside the subset.

use std::collections::HashSet;
use std::sync::Arc;

use serde_json::{Map, Number, Value};

use super::error::SchemaError;
use super::node::{Additional, JsonType, Node, Property};
use super::pointer;
use super::MAX_DEPTH;

/// Keywords that are carried but never validated.
const ANNOTATIONS: &[&str] = &[
    "description",
    "title",
    "default",
    "examples",
    "$schema",
    "$comment",
    "x-mcp-header",
    "deprecated",
    "readOnly",
    "writeOnly",
    // An annotation on both paths (2020-12's format-annotation vocabulary): never asserted.
    "format",
];

/// Largest integer an `f64` keyword value may spell and still be read exactly (2^53).
const MAX_EXACT_F64_INT: f64 = 9_007_199_254_740_992.0;

/// Deepest raw JSON nesting accepted anywhere in a schema, annotations included. A subschema
/// level costs at most two JSON levels (`properties` → name), so every schema within
/// [`MAX_DEPTH`] fits; the bound exists so that cloning and dropping the raw value cannot
/// overflow the stack on, say, a pathological `default`.
pub(crate) const MAX_RAW_DEPTH: usize = 4 * MAX_DEPTH;

/// Whether `raw` nests deeper than `limit`, checked without recursion.
fn nests_deeper_than(raw: &Value, limit: usize) -> bool {
    let mut stack = vec![(raw, 0usize)];
    while let Some((v, depth)) = stack.pop() {
        if depth > limit {
            return true;
        }
        match v {
            Value::Array(items) => stack.extend(items.iter().map(|c| (c, depth + 1))),
            Value::Object(map) => stack.extend(map.values().map(|c| (c, depth + 1))),
            _ => {}
        }
    }
    false
}

pub(crate) fn compile_root(raw: &Value) -> Result<Node, SchemaError> {
    if nests_deeper_than(raw, MAX_RAW_DEPTH) {
        return Err(SchemaError::too_deep(""));
    }
    let mut at = String::new();
    match raw {
        Value::Object(map) => compile_object(map, &mut at, 0),
        Value::Bool(_) => Err(SchemaError::not_a_schema(
            "",
            "a boolean schema is not accepted at the root; write an object schema",
        )),
        _ => Err(SchemaError::not_a_schema(
            "",
            "a schema must be a JSON object",
        )),
    }
}

/// A subschema under `properties`, `items` or `additionalProperties`; `at` is its pointer.
fn compile_sub(raw: &Value, at: &mut String, depth: usize) -> Result<Node, SchemaError> {
    if depth > MAX_DEPTH {
        return Err(SchemaError::too_deep(at));
    }
    match raw {
        Value::Object(map) => compile_object(map, at, depth),
        Value::Bool(_) => Err(SchemaError::not_a_schema(
            at,
            "boolean schemas are accepted only as the value of additionalProperties",
        )),
        _ => Err(SchemaError::not_a_schema(
            at,
            "a schema must be a JSON object",
        )),
    }
}

/// Runs `f` with `segment` appended to `at`, restoring `at` afterwards.
fn within<T>(
    at: &mut String,
    segment: &str,
    f: impl FnOnce(&mut String) -> Result<T, SchemaError>,
) -> Result<T, SchemaError> {
    let len = at.len();
    pointer::push(at, segment);
    let out = f(at);
    at.truncate(len);
    out
}

fn compile_object(
    map: &Map<String, Value>,
    at: &mut String,
    depth: usize,
) -> Result<Node, SchemaError> {
    let mut node = Node::empty();
    for (keyword, value) in map {
        match keyword.as_str() {
            "type" => {
                node.types = types(value, at)?;
                node.type_mask = node.types.iter().fold(0, |m, t| m | t.bit());
            }
            "properties" => {
                let Value::Object(props) = value else {
                    return Err(SchemaError::malformed(
                        at,
                        keyword,
                        "must be an object of subschemas",
                    ));
                };
                let mut compiled = Vec::with_capacity(props.len());
                within(at, "properties", |at| {
                    for (name, sub) in props {
                        let sub_node = within(at, name, |at| compile_sub(sub, at, depth + 1))?;
                        let mcp_header = sub.get("x-mcp-header").cloned();
                        compiled.push((
                            Arc::<str>::from(name.as_str()),
                            Property {
                                node: sub_node,
                                mcp_header,
                            },
                        ));
                    }
                    Ok(())
                })?;
                let mut by_name: Vec<usize> = (0..compiled.len()).collect();
                by_name.sort_by(|&a, &b| compiled[a].0.cmp(&compiled[b].0));
                node.properties = compiled.into_boxed_slice();
                node.by_name = by_name.into_boxed_slice();
            }
            "required" => node.required = required(value, at)?,
            "additionalProperties" => {
                node.additional = match value {
                    Value::Bool(true) => Additional::Allow,
                    Value::Bool(false) => Additional::Deny,
                    Value::Object(_) => Additional::Schema(Box::new(within(at, keyword, |at| {
                        compile_sub(value, at, depth + 1)
                    })?)),
                    _ => {
                        return Err(SchemaError::malformed(
                            at,
                            keyword,
                            "must be a boolean or a schema object",
                        ))
                    }
                };
            }
            "items" => match value {
                Value::Object(_) => {
                    node.items = Some(Box::new(within(at, keyword, |at| {
                        compile_sub(value, at, depth + 1)
                    })?));
                }
                Value::Array(_) => {
                    return Err(SchemaError::malformed(
                        at,
                        keyword,
                        "must be a single schema; the tuple form (2020-12 `prefixItems`) is not supported",
                    ))
                }
                _ => return Err(SchemaError::malformed(at, keyword, "must be a schema object")),
            },
            "minimum" => node.minimum = Some(number(value, at, keyword)?),
            "maximum" => node.maximum = Some(number(value, at, keyword)?),
            "exclusiveMinimum" => node.exclusive_minimum = Some(number(value, at, keyword)?),
            "exclusiveMaximum" => node.exclusive_maximum = Some(number(value, at, keyword)?),
            "minLength" => node.min_length = Some(count(value, at, keyword)?),
            "maxLength" => node.max_length = Some(count(value, at, keyword)?),
            "minItems" => node.min_items = Some(count(value, at, keyword)?),
            "maxItems" => node.max_items = Some(count(value, at, keyword)?),
            k if ANNOTATIONS.contains(&k) => annotation(value, at, k)?,
            other => return Err(SchemaError::unsupported(at, other)),
        }
    }
    node.index_required();
    Ok(node)
}

/// An annotation is never validated, but its value must have the type the 2020-12
/// meta-schema gives it, as the general validator's meta-schema check requires: a schema is
/// refused or accepted alike on either path.
fn annotation(value: &Value, at: &str, keyword: &str) -> Result<(), SchemaError> {
    let fits = match keyword {
        "title" | "description" | "$comment" | "$schema" | "format" => value.is_string(),
        "examples" => value.is_array(),
        "deprecated" | "readOnly" | "writeOnly" => value.is_boolean(),
        // `default` may be any value; `x-mcp-header` is MCP's, checked where headers are read.
        _ => true,
    };
    if fits {
        Ok(())
    } else {
        Err(SchemaError::malformed(
            at,
            keyword,
            "a value of the wrong JSON type for this keyword (2020-12 meta-schema)",
        ))
    }
}

fn types(value: &Value, at: &str) -> Result<Box<[JsonType]>, SchemaError> {
    let one = |v: &Value| {
        match v {
        Value::String(s) => JsonType::from_name(s).ok_or_else(|| {
            SchemaError::malformed(
                at,
                "type",
                "unknown type name; expected object, array, string, number, integer, boolean or null",
            )
        }),
        _ => Err(SchemaError::malformed(
            at,
            "type",
            "must be a type name or an array of type names",
        )),
    }
    };
    match value {
        Value::Array(list) => {
            if list.is_empty() {
                return Err(SchemaError::malformed(
                    at,
                    "type",
                    "must not be an empty array",
                ));
            }
            let mut out: Vec<JsonType> = Vec::with_capacity(list.len());
            for v in list {
                let t = one(v)?;
                if out.contains(&t) {
                    return Err(SchemaError::malformed(at, "type", "repeats a type name"));
                }
                out.push(t);
            }
            Ok(out.into_boxed_slice())
        }
        v => Ok(Box::new([one(v)?])),
    }
}

fn required(value: &Value, at: &str) -> Result<Box<[Arc<str>]>, SchemaError> {
    let Value::Array(list) = value else {
        return Err(SchemaError::malformed(
            at,
            "required",
            "must be an array of unique strings",
        ));
    };
    let mut seen = HashSet::with_capacity(list.len());
    let mut out = Vec::with_capacity(list.len());
    for v in list {
        let Value::String(name) = v else {
            return Err(SchemaError::malformed(
                at,
                "required",
                "must be an array of unique strings",
            ));
        };
        if !seen.insert(name.as_str()) {
            return Err(SchemaError::malformed(
                at,
                "required",
                "repeats a property name",
            ));
        }
        out.push(Arc::<str>::from(name.as_str()));
    }
    Ok(out.into_boxed_slice())
}

fn number(value: &Value, at: &str, keyword: &str) -> Result<Number, SchemaError> {
    match value {
        Value::Number(n) => Ok(n.clone()),
        _ => Err(SchemaError::malformed(at, keyword, "must be a number")),
    }
}

/// A non-negative integer; `3.0` is accepted because 2020-12's meta-schema types it "integer".
fn count(value: &Value, at: &str, keyword: &str) -> Result<u64, SchemaError> {
    let refuse = || SchemaError::malformed(at, keyword, "must be a non-negative integer");
    let Value::Number(n) = value else {
        return Err(refuse());
    };
    if let Some(u) = n.as_u64() {
        return Ok(u);
    }
    match n.as_f64() {
        Some(f) if f >= 0.0 && f.fract() == 0.0 && f <= MAX_EXACT_F64_INT => {
            // Range-checked and integral, so the cast is exact.
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            Ok(f as u64)
        }
        _ => Err(refuse()),
    }
}
