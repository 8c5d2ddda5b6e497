//! Schemas a real host declares and the inputs an attacker sends against them (issue 23): a
//! recursive `oneOf`/`anyOf` tree, a 4-branch recursive filter, a `schemars`-derived recursive
//! enum, `uniqueItems` over pairs and objects of integers near 2^63, and a failing composition
//! over a wide array. Each input is built to a target size in bytes.

use serde_json::{json, Value};

/// A file tree: `node = <combinator>[dir, group, file]`, `dir` and `group` holding children.
pub(crate) fn tree(combinator: &str) -> Value {
    let branch = |kind: &str| {
        json!({
            "type": "object",
            "properties": {
                "kind": {"const": kind},
                "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}
            },
            "required": ["kind"]
        })
    };
    json!({
        "type": "object",
        "properties": {"root": {"$ref": "#/$defs/node"}},
        "required": ["root"],
        "$defs": {"node": {combinator: [
            branch("dir"),
            branch("group"),
            {
                "type": "object",
                "properties": {"kind": {"const": "file"}, "size": {"type": "integer"}},
                "required": ["kind"]
            }
        ]}}
    })
}

/// A chain of `depth` directories ending in `leaf`, as the tool's arguments.
pub(crate) fn chain(depth: usize, leaf: Value) -> Value {
    let mut node = leaf;
    for _ in 0..depth {
        node = json!({"kind": "dir", "children": [node]});
    }
    json!({ "root": node })
}

/// The invalid leaf an attacker ends a chain with.
pub(crate) fn bad_leaf() -> Value {
    json!({"kind": "bad"})
}

/// An honest typo: a size as a string.
pub(crate) fn typo_leaf() -> Value {
    json!({"kind": "file", "size": "12"})
}

/// A filter language: `and`/`or` of filters, `not` a filter, or a comparison.
pub(crate) fn filter() -> Value {
    json!({
        "type": "object",
        "properties": {"filter": {"$ref": "#/$defs/filter"}},
        "required": ["filter"],
        "$defs": {"filter": {"anyOf": [
            {"type": "object", "properties": {"and": {"type": "array", "items": {"$ref": "#/$defs/filter"}}}, "required": ["and"]},
            {"type": "object", "properties": {"or": {"type": "array", "items": {"$ref": "#/$defs/filter"}}}, "required": ["or"]},
            {"type": "object", "properties": {"not": {"$ref": "#/$defs/filter"}}, "required": ["not"]},
            {"type": "object", "properties": {
                "field": {"type": "string"},
                "op": {"enum": ["eq", "lt", "gt"]},
                "value": {}
            }, "required": ["field", "op"]}
        ]}}
    })
}

/// A filter of about `bytes` bytes: wide `or`s of nested `and`s, every comparison missing its
/// `op` so that every branch fails all the way down.
pub(crate) fn wide_filter(bytes: usize) -> Value {
    filter_of(bytes, json!({"field": "x"}))
}

/// As [`wide_filter`], every comparison well formed.
pub(crate) fn valid_filter(bytes: usize) -> Value {
    filter_of(bytes, json!({"field": "x", "op": "eq", "value": 1}))
}

fn filter_of(bytes: usize, leaf: Value) -> Value {
    let mut nested = leaf;
    for _ in 0..6 {
        nested = json!({"and": [nested.clone(), {"not": nested}]});
    }
    let one = nested.to_string().len() + 1;
    let n = (bytes / one).max(1);
    json!({ "filter": {"or": vec![nested; n]} })
}

/// `anyOf` of an array of strings and an array of integers.
pub(crate) fn two_arrays() -> Value {
    json!({
        "type": "object",
        "properties": {"list": {"anyOf": [
            {"type": "array", "items": {"type": "string"}},
            {"type": "array", "items": {"type": "integer"}}
        ]}},
        "required": ["list"]
    })
}

/// `[{},{},…]` of about `bytes` bytes, refused by both branches.
pub(crate) fn wide_objects(bytes: usize) -> Value {
    json!({ "list": vec![json!({}); bytes / 3] })
}

/// `uniqueItems` over any items.
pub(crate) fn unique() -> Value {
    json!({
        "type": "object",
        "properties": {"items": {"type": "array", "uniqueItems": true}},
        "required": ["items"]
    })
}

/// Distinct pairs of integers near 2^63 (where an `f64` image collides), about `bytes` bytes.
pub(crate) fn colliding_pairs(bytes: usize) -> Value {
    let base = 1u64 << 63;
    let one = format!("[{base},{base}],").len();
    let items: Vec<Value> = (0..(bytes / one) as u64)
        .map(|i| json!([base + i, base - 1 - i]))
        .collect();
    json!({ "items": items })
}

/// Distinct objects of integers near 2^63, about `bytes` bytes.
pub(crate) fn colliding_objects(bytes: usize) -> Value {
    let base = 1u64 << 63;
    let one = format!("{{\"a\":{base}}},").len();
    let items: Vec<Value> = (0..(bytes / one) as u64)
        .map(|i| json!({"a": base + i}))
        .collect();
    json!({ "items": items })
}

/// `$defs` `d0` … `dN`, each an `anyOf` of two references to the next under
/// `unevaluatedProperties: false`, the last declaring `a`: a host's schema whose validator the
/// `jsonschema` crate builds in time exponential in N (`docs/upstream-jsonschema.md`).
pub(crate) fn unevaluated_chain(n: usize) -> Value {
    let mut defs = serde_json::Map::new();
    for i in 0..n {
        let next = format!("#/$defs/d{}", i + 1);
        defs.insert(
            format!("d{i}"),
            json!({"anyOf": [{"$ref": next}, {"$ref": next}], "unevaluatedProperties": false}),
        );
    }
    defs.insert(
        format!("d{n}"),
        json!({"properties": {"a": {"type": "integer"}}}),
    );
    json!({"$ref": "#/$defs/d0", "$defs": defs})
}

/// The size of `v` on the wire.
pub(crate) fn bytes(v: &Value) -> usize {
    v.to_string().len()
}
