//! The general validator's work is linear: for composition-heavy recursive schemas and
//! instances grown from a few KiB to about 256 KiB, the steps [`Schema::validate_within`]
//! charges an unlimited [`Budget`] stay within `C` × (the instance's size in values) × (the
//! schema's size in subschemas), and it never reports keyword `budget`.
//!
//! Input (read structurally; missing bytes read as 0):
//!
//! | byte | meaning |
//! |---|---|
//! | 0 | shape, mod 3: 0 a recursive tree, 1 a list, 2 the filter language |
//! | 1, 2 | the schema's flags (per shape, below) |
//! | 3, 4 | the instance's form and leaf (per shape, below) |
//! | 5, 6 | target size, little-endian: `1 KiB × (1 + n mod 256)`, at most 256 KiB |
//! | 7.. | variation bytes, read in a cycle for per-node choices |
//!
//! **Tree** (`{"root": node}`, `node` a `$defs` entry referring to itself through children):
//! byte 1 bit 0 `anyOf` (else `oneOf`); bits 1-2 extra branches (2 to 5 in all); bit 3
//! `uniqueItems` on children; bit 4 `contains` of the node on children; bit 5 every branch
//! closed with `unevaluatedProperties: false` and a `name` declared through `allOf`; bit 6
//! `dependentSchemas`; bit 7 `if`/`then`/`else` beside the combinator. Byte 2 bit 0 recursion
//! through `$dynamicRef` (else `$ref`); bit 1 `not` beside the combinator; bit 2 `enum` tags
//! (else `const`); bit 3 the root closed with `unevaluatedProperties: false`; bit 4 one more
//! reference hop to the combinator. Byte 3: bits 0-5 the depth (capped to what
//! [`MAX_INSTANCE_DEPTH`] admits), bits 6-7 the form: 0 one chain of directories (the issue's
//! input), 1 chains under one directory until the size, 2 a balanced binary tree, 3 leaves
//! under one directory until the size. Byte 4 mod 4, the last leaf: 0 `{"kind":"file",
//! "size":12}`, 1 `{"kind":"bad"}`, 2 `{"kind":"file","size":"12"}` (the typo), 3 a directory
//! with no children.
//!
//! **List** (`{"list": [...]}`): byte 1 mod 6, the list's schema: 0 `anyOf` of an array of
//! strings and an array of integers; 1 `uniqueItems`; 2 `contains` with `minContains` 2 and
//! `maxContains` (byte 2); 3 `prefixItems`, `contains` and `unevaluatedItems: false`; 4 `oneOf`
//! of three array schemas, one with `uniqueItems`; 5 arrays nested through a `$ref`, each level
//! with `uniqueItems`. Byte 3 mod 6, the items: 0 `{}`; 1 pairs of integers near 2^63 whose
//! `f64` images collide; 2 objects of one such integer; 3 strings; 4 integers; 5 arrays nested
//! byte 4 (mod 64, capped) deep. Byte 4 bit 7: the first item repeated at the end.
//!
//! **Filter** (`and`/`or`/`not` of filters, or a comparison; the `anyOf` of four): byte 3 mod 8
//! the nesting of each `or` entry; byte 4 bit 0 every comparison missing its `op`.
//!
//! `C` is [`STEPS_PER_PAIR`], 2. A value counts once, plus once per 64 bytes of its string or
//! key; a subschema counts once, plus the values of its `enum` and `const`. The product is
//! loose (most subschemas apply to few of the values): over this target's corpus the steps
//! stay below 1.13 × the product. Work that grows with the nesting times the values breaks it:
//! `uniqueItems` arrays nested 60 deep, each hashing its whole subtree, took 6 × the product
//! (36 steps per value) before `equal::Hashes` kept the hashes of nested arrays.
#![no_main]

#[allow(dead_code)] // shared with `tests/it`; this target uses part of it
#[path = "../../tests/it/support/adversarial.rs"]
mod adversarial;

use beam_mcp::schema::{Budget, Schema, MAX_INSTANCE_DEPTH};
use libfuzzer_sys::fuzz_target;
use serde_json::{json, Map, Value};

/// The `C` of the bound (see the module docs).
const STEPS_PER_PAIR: u64 = 2;

/// The largest instance grown, in bytes.
const MAX_BYTES: usize = 256 << 10;

/// The input, with zeros past its end.
struct Input<'a> {
    bytes: &'a [u8],
    next: usize,
}

impl Input<'_> {
    fn at(&self, i: usize) -> u8 {
        self.bytes.get(i).copied().unwrap_or(0)
    }

    /// The next variation byte, cycling over bytes 7.. (0 when there are none).
    fn vary(&mut self) -> u8 {
        let rest = self.bytes.get(7..).unwrap_or(&[]);
        if rest.is_empty() {
            return 0;
        }
        let b = rest[self.next % rest.len()];
        self.next += 1;
        b
    }

    fn target_bytes(&self) -> usize {
        let n = u16::from_le_bytes([self.at(5), self.at(6)]) as usize;
        ((1 + n % 256) << 10).min(MAX_BYTES)
    }
}

const KINDS: &[&str] = &["dir", "group", "link", "pipe"];

fn tree_schema(f1: u8, f2: u8) -> Value {
    let combinator = if f1 & 1 != 0 { "anyOf" } else { "oneOf" };
    let recursive = 1 + usize::from((f1 >> 1) & 3);
    let dynamic = f2 & 1 != 0;
    let reference = if dynamic {
        json!({"$dynamicRef": "#node"})
    } else {
        json!({"$ref": "#/$defs/node"})
    };
    let tag = |kind: &str| {
        if f2 & 4 != 0 {
            json!({ "enum": [kind, "unused"] })
        } else {
            json!({ "const": kind })
        }
    };
    let mut children = json!({"type": "array", "items": reference});
    if f1 & 8 != 0 {
        children["uniqueItems"] = json!(true);
    }
    if f1 & 16 != 0 {
        children["contains"] = reference.clone();
        children["minContains"] = json!(0);
    }
    let closed = f1 & 32 != 0;
    let mut branches: Vec<Value> = KINDS[..recursive]
        .iter()
        .map(|kind| {
            let mut b = json!({
                "type": "object",
                "properties": {"kind": tag(kind), "children": children.clone()},
                "required": ["kind"]
            });
            if f1 & 64 != 0 {
                b["dependentSchemas"] = json!({"children": {"required": ["kind"]}});
            }
            b
        })
        .collect();
    let mut file = json!({
        "type": "object",
        "properties": {"kind": tag("file"), "size": {"type": "integer"}},
        "required": ["kind"]
    });
    if f1 & 64 != 0 {
        file["dependentSchemas"] = json!({"size": {"properties": {"unit": {"enum": ["b", "kb"]}}}});
    }
    branches.push(file);
    if closed {
        for b in &mut branches {
            b["allOf"] = json!([{"properties": {"name": {"type": "string"}, "unit": true}}]);
            b["unevaluatedProperties"] = json!(false);
        }
    }
    let mut node = Map::new();
    node.insert(combinator.into(), Value::Array(branches));
    if f1 & 128 != 0 {
        node.insert(
            "if".into(),
            json!({"properties": {"kind": {"const": "file"}}}),
        );
        node.insert("then".into(), json!({"required": ["kind"]}));
        node.insert(
            "else".into(),
            json!({"properties": {"children": {"type": "array"}}}),
        );
    }
    if f2 & 2 != 0 {
        node.insert("not".into(), json!({"required": ["bad"]}));
    }
    let mut defs = Map::new();
    if f2 & 16 != 0 {
        defs.insert("inner".into(), Value::Object(node));
        node = Map::new();
        node.insert("$ref".into(), json!("#/$defs/inner"));
    }
    if dynamic {
        node.insert("$dynamicAnchor".into(), json!("node"));
    }
    defs.insert("node".into(), Value::Object(node));
    let mut root = json!({
        "type": "object",
        "properties": {"root": {"$ref": "#/$defs/node"}},
        "required": ["root"],
        "$defs": defs
    });
    if f2 & 8 != 0 {
        root["unevaluatedProperties"] = json!(false);
    }
    root
}

fn last_leaf(b: u8) -> Value {
    match b % 4 {
        0 => json!({"kind": "file", "size": 12}),
        1 => json!({"kind": "bad"}),
        2 => json!({"kind": "file", "size": "12"}),
        _ => json!({"kind": "dir", "children": []}),
    }
}

/// A leaf from a variation byte: mostly valid, now and then not.
fn some_leaf(b: u8) -> Value {
    match b % 8 {
        0 => json!({"kind": "file", "size": 12, "unit": "b"}),
        1 => json!({"kind": "dir", "children": []}),
        2 => json!({"kind": "file", "name": "n"}),
        7 => json!({"kind": "file", "size": 1.5}),
        _ => json!({"kind": "file", "size": u64::from(b)}),
    }
}

fn directory(kind: u8, recursive: usize, children: Vec<Value>) -> Value {
    json!({"kind": KINDS[usize::from(kind) % recursive], "children": children})
}

fn chain(input: &mut Input<'_>, depth: usize, recursive: usize, leaf: Value) -> Value {
    let mut node = leaf;
    for _ in 0..depth {
        let kind = input.vary();
        node = directory(kind, recursive, vec![node]);
    }
    node
}

fn tree_instance(input: &mut Input<'_>, recursive: usize) -> Value {
    // `{"root": node}` is one level, each directory two (itself and its children).
    let max_depth = (MAX_INSTANCE_DEPTH - 4) / 2;
    let f3 = input.at(3);
    let depth = usize::from(f3 & 63).min(max_depth);
    let leaf = last_leaf(input.at(4));
    let target = input.target_bytes();
    let root = match f3 >> 6 {
        0 => chain(input, depth, recursive, leaf),
        1 => {
            let mut chains = Vec::new();
            let mut bytes = 0;
            let depth = depth.min(max_depth - 1);
            while bytes < target {
                let b = input.vary();
                let c = chain(input, depth, recursive, some_leaf(b));
                bytes += c.to_string().len() + 1;
                chains.push(c);
            }
            chains.push(chain(input, depth, recursive, leaf));
            directory(0, recursive, chains)
        }
        2 => {
            // A balanced binary tree (both halves alike) no larger than the target.
            let leaf_bytes = leaf.to_string().len() + 40;
            let mut levels = 0;
            while levels < depth && leaf_bytes << (levels + 1) <= target {
                levels += 1;
            }
            let mut node = leaf;
            for _ in 0..levels {
                let kind = input.vary();
                node = directory(kind, recursive, vec![node.clone(), node]);
            }
            node
        }
        _ => {
            let mut leaves = Vec::new();
            let mut bytes = 0;
            while bytes < target {
                let b = input.vary();
                let l = some_leaf(b);
                bytes += l.to_string().len() + 1;
                leaves.push(l);
            }
            leaves.push(leaf);
            directory(0, recursive, leaves)
        }
    };
    json!({ "root": root })
}

fn list_schema(f1: u8, f2: u8) -> Value {
    let list = match f1 % 6 {
        0 => json!({"anyOf": [
            {"type": "array", "items": {"type": "string"}},
            {"type": "array", "items": {"type": "integer"}}
        ]}),
        1 => json!({"type": "array", "uniqueItems": true}),
        2 => json!({
            "type": "array",
            "contains": {"type": "object", "required": ["a"]},
            "minContains": 2,
            "maxContains": u64::from(f2)
        }),
        3 => json!({
            "type": "array",
            "prefixItems": [{"type": "object"}, {"type": "array"}],
            "contains": {"type": ["string", "integer"]},
            "unevaluatedItems": false
        }),
        4 => json!({"oneOf": [
            {"type": "array", "items": {"type": "object"}, "uniqueItems": true},
            {"type": "array", "items": {"type": "array"}},
            {"type": "array", "contains": {"const": 1}}
        ]}),
        _ => json!({"$ref": "#/$defs/nest"}),
    };
    json!({
        "type": "object",
        "properties": {"list": list},
        "required": ["list"],
        "$defs": {"nest": {"anyOf": [
            {"type": "array", "items": {"$ref": "#/$defs/nest"}, "uniqueItems": true},
            {"type": "integer"}
        ]}}
    })
}

fn list_instance(input: &Input<'_>) -> Value {
    let base = 1u64 << 63;
    let f3 = input.at(3);
    let f4 = input.at(4);
    // `{"list": [item]}` is two levels above the item.
    let nesting = usize::from(f4 & 63).min(MAX_INSTANCE_DEPTH - 4);
    let item = |i: u64| -> Value {
        match f3 % 6 {
            0 => json!({}),
            1 => json!([base + i, base - 1 - i]),
            2 => json!({"a": base + i}),
            3 => json!(format!("s{i}")),
            4 => json!(i),
            _ => {
                let mut v = json!([i, i + 1]);
                for _ in 0..nesting {
                    v = json!([v]);
                }
                v
            }
        }
    };
    let one = item(base - 1).to_string().len() + 1;
    let n = (input.target_bytes() / one).max(1) as u64;
    let mut items: Vec<Value> = (0..n).map(item).collect();
    if f4 & 128 != 0 {
        items.push(items[0].clone());
    }
    json!({ "list": items })
}

fn filter_instance(input: &Input<'_>) -> Value {
    let mut nested = if input.at(4) & 1 != 0 {
        json!({"field": "x"})
    } else {
        json!({"field": "x", "op": "eq", "value": 1})
    };
    for _ in 0..input.at(3) % 8 {
        nested = json!({"and": [nested.clone(), {"not": nested}]});
    }
    let one = nested.to_string().len() + 1;
    let n = (input.target_bytes() / one).max(1);
    json!({ "filter": {"or": vec![nested; n]} })
}

/// Values of an instance: one each, plus one per 64 bytes of a string or a key.
fn values(v: &Value) -> u64 {
    let mut n = 0;
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        n += 1;
        match v {
            Value::String(s) => n += (s.len() / 64) as u64,
            Value::Array(items) => stack.extend(items),
            Value::Object(map) => {
                for (k, v) in map {
                    n += (k.len() / 64) as u64;
                    stack.push(v);
                }
            }
            _ => {}
        }
    }
    n
}

/// Subschemas of a schema, each once, plus the values of its `enum` and `const`.
fn subschemas(schema: &Value) -> u64 {
    const ONE: &[&str] = &[
        "not",
        "if",
        "then",
        "else",
        "items",
        "contains",
        "additionalProperties",
        "propertyNames",
        "unevaluatedItems",
        "unevaluatedProperties",
    ];
    const MAPS: &[&str] = &[
        "$defs",
        "properties",
        "patternProperties",
        "dependentSchemas",
    ];
    const LISTS: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems"];
    let mut n = 0;
    let mut stack = vec![schema];
    while let Some(s) = stack.pop() {
        n += 1;
        let Value::Object(map) = s else { continue };
        for (k, v) in map {
            let k = k.as_str();
            if ONE.contains(&k) {
                stack.push(v);
            } else if MAPS.contains(&k) {
                stack.extend(v.as_object().into_iter().flat_map(|m| m.values()));
            } else if LISTS.contains(&k) {
                stack.extend(v.as_array().into_iter().flatten());
            } else if k == "enum" || k == "const" {
                n += values(v);
            }
        }
    }
    n
}

fuzz_target!(|data: &[u8]| {
    let mut input = Input {
        bytes: data,
        next: 0,
    };
    let (raw, instance) = match input.at(0) % 3 {
        0 => {
            let (f1, f2) = (input.at(1), input.at(2));
            let recursive = 1 + usize::from((f1 >> 1) & 3);
            (tree_schema(f1, f2), tree_instance(&mut input, recursive))
        }
        1 => (list_schema(input.at(1), input.at(2)), list_instance(&input)),
        _ => (adversarial::filter(), filter_instance(&input)),
    };
    let schema = Schema::compile(&raw).expect("the target's schemas compile");
    assert!(!schema.is_subset());
    let mut budget = Budget::new(u64::MAX);
    let verdict = schema.validate_within(&instance, &mut budget);
    if let Err(v) = &verdict {
        assert_ne!(v.keyword(), "budget", "{v}");
    }
    let (v, s) = (values(&instance), subschemas(&raw));
    assert!(
        budget.used() <= STEPS_PER_PAIR * v * s,
        "{} steps for {v} values x {s} subschemas (more than {STEPS_PER_PAIR} per pair): \
         {verdict:?}; schema {raw}",
        budget.used()
    );
});
