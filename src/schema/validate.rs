//! Instance validation against a compiled [`Node`].
//!
//! Recursion follows the schema, not the instance: a child value is visited only where the schema
//! has a subschema for it, so depth is bounded by the schema's, which compile caps at
//! [`MAX_DEPTH`](super::MAX_DEPTH). A deeply nested instance cannot overflow the stack.

use std::cmp::Ordering;

use serde_json::{Number, Value};

use super::error::Violation;
use super::node::{Additional, JsonType, Node};
use super::number;
use super::pointer::Step;

/// The instance's own type name, for messages.
pub(crate) fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn type_matches(mask: u8, v: &Value) -> bool {
    if mask == 0 {
        return true;
    }
    let has = |t: JsonType| mask & t.bit() != 0;
    match v {
        Value::Null => has(JsonType::Null),
        Value::Bool(_) => has(JsonType::Boolean),
        Value::Number(n) => {
            has(JsonType::Number) || (has(JsonType::Integer) && number::is_integer(n))
        }
        Value::String(_) => has(JsonType::String),
        Value::Array(_) => has(JsonType::Array),
        Value::Object(_) => has(JsonType::Object),
    }
}

fn expected(types: &[JsonType]) -> String {
    let mut out = String::new();
    for (i, t) in types.iter().enumerate() {
        if i > 0 {
            out.push_str(if i + 1 == types.len() { " or " } else { ", " });
        }
        out.push_str(t.as_str());
    }
    out
}

fn fail(at: Step<'_>, keyword: &'static str, message: String) -> Result<(), Violation> {
    Err(Violation::new(at.to_pointer(), keyword, message))
}

/// `Ok` iff `compare(value, bound)` is one of `allowed`; an incomparable pair fails closed.
fn bound(
    value: &Number,
    limit: Option<&Number>,
    allowed: &[Ordering],
    at: Step<'_>,
    keyword: &'static str,
    relation: &str,
) -> Result<(), Violation> {
    let Some(limit) = limit else { return Ok(()) };
    match number::compare(value, limit) {
        Some(o) if allowed.contains(&o) => Ok(()),
        _ => fail(at, keyword, format!("must be {relation} {limit}")),
    }
}

fn length(
    len: usize,
    min: Option<u64>,
    max: Option<u64>,
    at: Step<'_>,
    keywords: (&'static str, &'static str),
    unit: &str,
) -> Result<(), Violation> {
    let len = len as u64;
    if let Some(min) = min {
        if len < min {
            return fail(at, keywords.0, format!("must have at least {min} {unit}"));
        }
    }
    if let Some(max) = max {
        if len > max {
            return fail(at, keywords.1, format!("must have at most {max} {unit}"));
        }
    }
    Ok(())
}

pub(crate) fn check(node: &Node, v: &Value, at: Step<'_>) -> Result<(), Violation> {
    if !type_matches(node.type_mask, v) {
        return fail(
            at,
            "type",
            format!("expected {}, got {}", expected(&node.types), kind_of(v)),
        );
    }
    match v {
        Value::Number(n) => {
            use Ordering::{Equal, Greater, Less};
            bound(
                n,
                node.minimum.as_ref(),
                &[Greater, Equal],
                at,
                "minimum",
                ">=",
            )?;
            bound(
                n,
                node.maximum.as_ref(),
                &[Less, Equal],
                at,
                "maximum",
                "<=",
            )?;
            bound(
                n,
                node.exclusive_minimum.as_ref(),
                &[Greater],
                at,
                "exclusiveMinimum",
                ">",
            )?;
            bound(
                n,
                node.exclusive_maximum.as_ref(),
                &[Less],
                at,
                "exclusiveMaximum",
                "<",
            )?;
        }
        Value::String(s) => {
            if node.min_length.is_some() || node.max_length.is_some() {
                length(
                    s.chars().count(),
                    node.min_length,
                    node.max_length,
                    at,
                    ("minLength", "maxLength"),
                    "characters (Unicode code points)",
                )?;
            }
        }
        Value::Array(list) => {
            length(
                list.len(),
                node.min_items,
                node.max_items,
                at,
                ("minItems", "maxItems"),
                "items",
            )?;
            if let Some(items) = &node.items {
                for (i, item) in list.iter().enumerate() {
                    check(items, item, Step::Index(&at, i))?;
                }
            }
        }
        Value::Object(map) => {
            for name in node.required.iter() {
                if !map.contains_key(&**name) {
                    return fail(
                        at,
                        "required",
                        format!("missing required property `{name}`"),
                    );
                }
            }
            for (name, prop) in node.properties.iter() {
                if let Some(child) = map.get(&**name) {
                    check(&prop.node, child, Step::Key(&at, name))?;
                }
            }
            match &node.additional {
                Additional::Allow => {}
                Additional::Deny => {
                    for key in map.keys() {
                        if !node.declares(key) {
                            return fail(
                                Step::Key(&at, key),
                                "additionalProperties",
                                "property is not declared by the schema".to_owned(),
                            );
                        }
                    }
                }
                Additional::Schema(extra) => {
                    for (key, child) in map {
                        if !node.declares(key) {
                            check(extra, child, Step::Key(&at, key))?;
                        }
                    }
                }
            }
        }
        Value::Null | Value::Bool(_) => {}
    }
    Ok(())
}
