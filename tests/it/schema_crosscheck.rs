//! Cross-check: on random schemas within the subset and near-valid random instances, the subset
//! validator agrees with the `jsonschema` crate (draft 2020-12) on every instance, and so does
//! the crate's general path (the same schema plus an unused `$defs`, which takes it off the fast
//! path): same verdict, and the same normalised arguments.

use crate::support::splitmix;

use std::sync::atomic::{AtomicUsize, Ordering};

use beam_mcp::schema::Schema;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use serde_json::{json, Map, Value};
use splitmix::Rng;

const NAMES: &[&str] = &["a", "b", "c", "d/e", "f~g"];
const EXTRA_KEYS: &[&str] = &["a", "b", "zz", "d/e", "q"];
const CHARS: &[&str] = &["a", "é", "👍", "e\u{301}", "~", "/", "z"];
const SCHEMAS: u32 = 3_000;
const INSTANCES_PER_SCHEMA: usize = 4;

fn bound_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!(-3)),
        Just(json!(0)),
        Just(json!(2)),
        Just(json!(5)),
        Just(json!(5.0)),
        Just(json!(2.5)),
        Just(json!(-1.5)),
        Just(json!(9_007_199_254_740_993_u64)),
        Just(json!(9_007_199_254_740_992.0_f64)),
        Just(json!(u64::MAX)),
        Just(json!(i64::MIN)),
    ]
}

fn count() -> impl Strategy<Value = Option<u64>> {
    proptest::option::of(0u64..4)
}

fn insert_opt(map: &mut Map<String, Value>, key: &str, v: Option<Value>) {
    if let Some(v) = v {
        map.insert(key.to_owned(), v);
    }
}

fn type_keyword() -> impl Strategy<Value = Option<Value>> {
    prop_oneof![
        3 => Just(Some(json!("string"))),
        3 => Just(Some(json!("integer"))),
        3 => Just(Some(json!("number"))),
        1 => Just(Some(json!("boolean"))),
        1 => Just(Some(json!("null"))),
        1 => Just(Some(json!(["string", "null"]))),
        1 => Just(Some(json!(["integer", "string"]))),
        1 => Just(Some(json!(["number", "boolean"]))),
        1 => Just(None),
    ]
}

/// A scalar-ish schema: a type plus bounds, including bounds that do not apply to the type.
fn leaf() -> impl Strategy<Value = Value> {
    (
        type_keyword(),
        proptest::option::of(bound_value()),
        proptest::option::of(bound_value()),
        proptest::option::of(bound_value()),
        proptest::option::of(bound_value()),
        count(),
        count(),
        any::<bool>(),
    )
        .prop_map(|(ty, min, max, xmin, xmax, min_len, max_len, note)| {
            let mut m = Map::new();
            insert_opt(&mut m, "type", ty);
            insert_opt(&mut m, "minimum", min);
            insert_opt(&mut m, "maximum", max);
            insert_opt(&mut m, "exclusiveMinimum", xmin);
            insert_opt(&mut m, "exclusiveMaximum", xmax);
            insert_opt(&mut m, "minLength", min_len.map(Value::from));
            insert_opt(&mut m, "maxLength", max_len.map(Value::from));
            if note {
                m.insert("description".into(), json!("annotation"));
            }
            Value::Object(m)
        })
}

fn schema() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(4, 48, 4, |inner| {
        prop_oneof![
            (
                inner.clone(),
                count(),
                count(),
                any::<bool>(),
                any::<bool>()
            )
                .prop_map(|(items, min_items, max_items, typed, has_items)| {
                    let mut m = Map::new();
                    if typed {
                        m.insert("type".into(), json!("array"));
                    }
                    if has_items {
                        m.insert("items".into(), items);
                    }
                    insert_opt(&mut m, "minItems", min_items.map(Value::from));
                    insert_opt(&mut m, "maxItems", max_items.map(Value::from));
                    Value::Object(m)
                }),
            (
                proptest::collection::vec((proptest::sample::select(NAMES), inner.clone()), 0..4),
                proptest::sample::subsequence(NAMES, 0..=3),
                prop_oneof![
                    Just(None),
                    Just(Some(json!(true))),
                    Just(Some(json!(false))),
                    inner.prop_map(Some),
                ],
                prop_oneof![
                    4 => Just(Some(json!("object"))),
                    1 => Just(Some(json!(["object", "null"]))),
                    1 => Just(None),
                ],
            )
                .prop_map(|(props, required, additional, ty)| {
                    let mut m = Map::new();
                    insert_opt(&mut m, "type", ty);
                    let mut p = Map::new();
                    for (name, sub) in props {
                        p.insert(name.to_owned(), sub);
                    }
                    m.insert("properties".into(), Value::Object(p));
                    m.insert("required".into(), json!(required));
                    insert_opt(&mut m, "additionalProperties", additional);
                    Value::Object(m)
                }),
        ]
    })
}

fn any_value(rng: &mut Rng) -> Value {
    match rng.below(7) {
        0 => Value::Null,
        1 => json!(rng.chance(50)),
        2 => json!(rng.below(10) as i64 - 3),
        3 => json!(2.5),
        4 => json!("é👍"),
        5 => json!([1, "x"]),
        _ => json!({"a": 1}),
    }
}

fn numbers_near(schema: &Value, rng: &mut Rng, integral: bool) -> Value {
    let mut anchors: Vec<f64> = vec![0.0, 3.0];
    let mut exact: Vec<Value> = Vec::new();
    for k in ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"] {
        if let Some(Value::Number(n)) = schema.get(k) {
            exact.push(Value::Number(n.clone()));
            if let Some(f) = n.as_f64() {
                anchors.push(f);
            }
        }
    }
    if !exact.is_empty() && rng.chance(25) {
        let v = rng.pick(&exact).clone();
        if !integral || v.as_f64().is_some_and(|f| f.fract() == 0.0) {
            return v;
        }
    }
    if rng.chance(5) {
        return json!(rng.pick(&[9_007_199_254_740_993_u64, u64::MAX, 9_007_199_254_740_992]));
    }
    let base = *rng.pick(&anchors);
    let deltas: &[f64] = if integral {
        &[-1.0, 0.0, 1.0, 2.0]
    } else {
        &[-1.0, -0.5, 0.0, 0.5, 1.0]
    };
    let x = (base + rng.pick(deltas)).floor_or(integral);
    if integral && x.abs() < 1e15 && rng.chance(60) {
        json!(x as i64)
    } else {
        json!(x)
    }
}

trait FloorOr {
    fn floor_or(self, integral: bool) -> f64;
}

impl FloorOr for f64 {
    fn floor_or(self, integral: bool) -> f64 {
        if integral {
            self.floor()
        } else {
            self
        }
    }
}

fn string_near(schema: &Value, rng: &mut Rng) -> Value {
    let mut lens = vec![0u64, 1, 2];
    for k in ["minLength", "maxLength"] {
        if let Some(n) = schema.get(k).and_then(Value::as_u64) {
            lens.extend([n.saturating_sub(1), n, n + 1]);
        }
    }
    let len = *rng.pick(&lens);
    let s: String = (0..len).map(|_| *rng.pick(CHARS)).collect();
    json!(s)
}

fn instance(schema: &Value, rng: &mut Rng, depth: usize) -> Value {
    if rng.chance(8) || depth > 8 {
        return any_value(rng);
    }
    let types: Vec<&str> = match schema.get("type") {
        Some(Value::String(s)) => vec![s.as_str()],
        Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).collect(),
        _ => {
            if schema.get("properties").is_some() {
                vec!["object"]
            } else if schema.get("items").is_some() || schema.get("minItems").is_some() {
                vec!["array"]
            } else {
                vec!["string", "integer", "number", "boolean", "null"]
            }
        }
    };
    match *rng.pick(&types) {
        "string" => string_near(schema, rng),
        "integer" => numbers_near(schema, rng, true),
        "number" => numbers_near(schema, rng, false),
        "boolean" => json!(rng.chance(50)),
        "null" => Value::Null,
        "array" => {
            let mut lens = vec![0u64, 1, 2];
            for k in ["minItems", "maxItems"] {
                if let Some(n) = schema.get(k).and_then(Value::as_u64) {
                    lens.extend([n.saturating_sub(1), n, n + 1]);
                }
            }
            let len = *rng.pick(&lens);
            let empty = json!({});
            let items = schema.get("items").unwrap_or(&empty);
            Value::Array((0..len).map(|_| instance(items, rng, depth + 1)).collect())
        }
        _ => {
            let mut m = Map::new();
            let required: Vec<&str> = schema
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            if let Some(Value::Object(props)) = schema.get("properties") {
                for (name, sub) in props {
                    let p = if required.contains(&name.as_str()) {
                        95
                    } else {
                        60
                    };
                    if rng.chance(p) {
                        m.insert(name.clone(), instance(sub, rng, depth + 1));
                    }
                }
            }
            for name in &required {
                if !m.contains_key(*name) && rng.chance(90) {
                    m.insert((*name).to_owned(), any_value(rng));
                }
            }
            let additional = schema.get("additionalProperties");
            let extra_chance = if additional == Some(&json!(false)) {
                4
            } else {
                25
            };
            for key in EXTRA_KEYS {
                if rng.chance(extra_chance) && !m.contains_key(*key) {
                    let v = match additional {
                        Some(sub @ Value::Object(_)) => instance(sub, rng, depth + 1),
                        _ => any_value(rng),
                    };
                    m.insert((*key).to_owned(), v);
                }
            }
            Value::Object(m)
        }
    }
}

#[test]
fn agrees_with_jsonschema_crate_on_random_schemas() {
    static VALID: AtomicUsize = AtomicUsize::new(0);
    static INVALID: AtomicUsize = AtomicUsize::new(0);

    let mut runner = TestRunner::new(Config {
        cases: SCHEMAS,
        failure_persistence: None,
        ..Config::default()
    });
    let result = runner.run(&(schema(), any::<u64>()), |(raw, seed)| {
        let ours = Schema::compile(&raw)
            .map_err(|e| TestCaseError::fail(format!("generated schema refused: {e}: {raw}")))?;
        let theirs = jsonschema::options()
            .with_draft(jsonschema::Draft::Draft202012)
            .build(&raw)
            .map_err(|e| TestCaseError::fail(format!("jsonschema refused {raw}: {e}")))?;
        prop_assert!(ours.is_subset(), "off the fast path: {}", raw);
        let mut widened = raw.clone();
        widened
            .as_object_mut()
            .ok_or_else(|| TestCaseError::fail("schema is not an object"))?
            .insert("$defs".into(), json!({"unused": {"enum": [1]}}));
        let general = Schema::compile(&widened)
            .map_err(|e| TestCaseError::fail(format!("general path refused: {e}: {widened}")))?;
        prop_assert!(!general.is_subset());
        let mut rng = Rng(seed);
        for _ in 0..INSTANCES_PER_SCHEMA {
            let inst = instance(&raw, &mut rng, 0);
            let ok = ours.validate(&inst).is_ok();
            prop_assert_eq!(
                ok,
                theirs.is_valid(&inst),
                "schema {} instance {} ours {:?}",
                raw,
                inst,
                ours.validate(&inst)
            );
            prop_assert_eq!(
                ok,
                general.validate(&inst).is_ok(),
                "general path: schema {} instance {} ours {:?} general {:?}",
                raw,
                inst,
                ours.validate(&inst),
                general.validate(&inst)
            );
            if inst.is_object() {
                prop_assert_eq!(
                    ours.arguments(&inst).map(|a| a.into_map()).ok(),
                    general.arguments(&inst).map(|a| a.into_map()).ok(),
                    "arguments differ: schema {} instance {}",
                    raw,
                    inst
                );
            }
            if ok {
                VALID.fetch_add(1, Ordering::Relaxed);
            } else {
                INVALID.fetch_add(1, Ordering::Relaxed);
            }
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    let (valid, invalid) = (
        VALID.load(Ordering::Relaxed),
        INVALID.load(Ordering::Relaxed),
    );
    let total = valid + invalid;
    eprintln!("crosscheck: {total} instances, {valid} valid, {invalid} invalid");
    assert!(
        total >= 2_000 * INSTANCES_PER_SCHEMA,
        "only {total} instances checked"
    );
    assert!(
        valid * 5 >= total,
        "too few valid instances: {valid} of {total}"
    );
    assert!(
        invalid * 5 >= total,
        "too few invalid instances: {invalid} of {total}"
    );
}
