//! Instance validation against a compiled [`Node`].
//!
//! Recursion follows the schema, not the instance: a child value is visited only where the schema
//! has a subschema for it, so depth is bounded by the schema's, which compile caps at
//! [`MAX_DEPTH`](super::MAX_DEPTH). A deeply nested instance cannot overflow the stack.

use std::cmp::Ordering;

use serde_json::{Map, Number, Value};

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

/// Whether `v` is of a type in `mask` (a union of [`JsonType::bit`]; 0 admits every type).
pub(crate) fn type_matches(mask: u8, v: &Value) -> bool {
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

/// `string, number or null`: the type names a message lists.
pub(crate) fn expected(types: &[JsonType]) -> String {
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

/// Whether an object conforms to `node`'s object keywords, found in one merge of its keys with
/// the declared names, both in byte order. `false` says nothing of why: the keyword-by-keyword
/// pass then finds the violation a refusal reports first (`required` in schema order, then the
/// declared properties in schema order, then the undeclared keys), which a merge in key order
/// would not.
fn conforms_in_one_pass(node: &Node, map: &Map<String, Value>, at: &Step<'_>) -> bool {
    if !node.required_declared {
        return false;
    }
    let mut declared = node
        .by_name
        .iter()
        .zip(node.required_by_name.iter())
        .peekable();
    let mut required_met = 0;
    let mut previous: Option<&str> = None;
    for (key, child) in map {
        let key = key.as_str();
        // A map that keeps insertion order (serde_json's `preserve_order`) cannot be merged.
        if previous.is_some_and(|p| p >= key) {
            return false;
        }
        previous = Some(key);
        while declared
            .next_if(|(&i, _)| &*node.properties[i].0 < key)
            .is_some()
        {}
        let conforms = match declared.next_if(|(&i, _)| &*node.properties[i].0 == key) {
            Some((&i, &required)) => {
                required_met += usize::from(required);
                check(&node.properties[i].1.node, child, Step::Key(at, key)).is_ok()
            }
            None => match &node.additional {
                Additional::Allow => true,
                Additional::Deny => false,
                Additional::Schema(extra) => check(extra, child, Step::Key(at, key)).is_ok(),
            },
        };
        if !conforms {
            return false;
        }
    }
    required_met == node.required.len()
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
            if !conforms_in_one_pass(node, map, &at) {
                object_keywords(node, map, at)?;
            }
        }
        Value::Null | Value::Bool(_) => {}
    }
    Ok(())
}

/// The object keywords one by one, in the order a refusal reports them: `required` in schema
/// order, then each declared property present in schema order, then the undeclared keys.
fn object_keywords(node: &Node, map: &Map<String, Value>, at: Step<'_>) -> Result<(), Violation> {
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
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    fn value() -> impl Strategy<Value = Value> {
        prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            (0u8..4).prop_map(|n| json!(n)),
            "[a-c]{0,3}".prop_map(Value::String),
            Just(json!({})),
            Just(json!({"a": "x"})),
        ]
    }

    fn schema() -> impl Strategy<Value = Value> {
        let names = proptest::sample::subsequence(vec!["a", "b", "c", "d"], 0..=4);
        let types = prop_oneof![
            Just(json!({})),
            Just(json!({"type": "string"})),
            Just(json!({"type": "integer", "maximum": 2})),
            Just(json!({"type": "object", "required": ["a"]})),
        ];
        let additional = prop_oneof![
            Just(None),
            Just(Some(json!(false))),
            Just(Some(json!(true))),
            Just(Some(json!({"type": "string"}))),
        ];
        (
            names.clone(),
            proptest::collection::vec(types, 4),
            proptest::sample::subsequence(vec!["a", "b", "c", "d", "e"], 0..=3),
            additional,
        )
            .prop_map(|(names, types, required, additional)| {
                let properties: Map<String, Value> = names
                    .iter()
                    .zip(types)
                    .map(|(n, t)| (n.to_string(), t))
                    .collect();
                let mut schema =
                    json!({"type": "object", "properties": properties, "required": required});
                if let Some(a) = additional {
                    schema["additionalProperties"] = a;
                }
                schema
            })
    }

    proptest! {
        /// The one-pass check never accepts what the keyword-by-keyword pass refuses, and
        /// accepts whatever that accepts when every required name is declared (so the fast
        /// path is taken whenever it can be).
        #[test]
        fn one_pass_agrees_with_the_keywords(
            schema in schema(),
            instance in proptest::collection::btree_map("[a-e]", value(), 0..5),
        ) {
            let node = super::super::compile::compile_root(&schema).unwrap();
            let map: Map<String, Value> = instance.into_iter().collect();
            let fast = conforms_in_one_pass(&node, &map, &Step::Root);
            let slow = object_keywords(&node, &map, Step::Root).is_ok();
            prop_assert!(!fast || slow, "accepted wrongly: schema {} instance {:?}", schema, map);
            // A `required` name that is not a declared property always takes the slow path.
            if node.required_declared {
                prop_assert_eq!(fast, slow, "schema {} instance {:?}", schema, map);
            }
        }
    }
}
