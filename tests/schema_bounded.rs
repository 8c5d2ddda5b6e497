//! Validation is linear in the instance whatever schema the host declares (issue 23): the
//! inputs that took the `jsonschema`-backed validator exponential time and gigabytes — a
//! failing recursive `oneOf`/`anyOf` tree, a failing 4-branch filter, colliding `uniqueItems`,
//! a failing composition over a wide array — are counted in steps (the [`Budget`]) and in
//! peak heap bytes, from 1 KiB to 1 MiB. Work per byte must not rise with size. Nothing here
//! reads a clock.
//!
//! A binary of its own, not a module of `tests/it`: its `#[global_allocator]` counts every
//! allocation of the process, so it is one per binary and no other test may allocate beside it.

#[allow(dead_code)] // shared with `tests/it`; this binary uses part of it
#[path = "it/support/adversarial.rs"]
mod adversarial;
#[path = "support/peak.rs"]
mod peak;

use std::sync::atomic::Ordering;
use std::sync::Mutex;

use beam_mcp::schema::{Budget, Schema, Violation};
use schemars::JsonSchema;
use serde_json::{json, Value};

#[global_allocator]
static A: peak::Peak = peak::Peak;

/// The tests of this file run one at a time, each holding this from start to end: the peak is
/// process-wide, and what one test frees would lower what another measures.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// What one validation cost: its verdict, the steps taken, and the heap it held at its peak
/// above what was live before it.
struct Cost {
    verdict: Result<(), Violation>,
    steps: u64,
    peak_bytes: usize,
}

fn measure(schema: &Schema, instance: &Value) -> Cost {
    let mut budget = Budget::new(u64::MAX);
    let before = peak::mark();
    let verdict = schema.validate_within(instance, &mut budget);
    let peak_bytes = peak::peak_since(before);
    Cost {
        verdict,
        steps: budget.used(),
        peak_bytes,
    }
}

/// The heap the decoded instance itself holds (what a transport holds for the request anyway).
fn decoded_heap(instance: &Value) -> usize {
    let text = instance.to_string();
    let before = peak::LIVE.load(Ordering::Relaxed);
    let decoded: Value = serde_json::from_str(&text).unwrap();
    let held = peak::LIVE.load(Ordering::Relaxed).saturating_sub(before);
    drop(decoded);
    held
}

fn compile(raw: &Value) -> Schema {
    let s = Schema::compile(raw).unwrap_or_else(|e| panic!("refused: {e}"));
    assert!(!s.is_subset(), "the general path is under test");
    s
}

const SIZES: [usize; 4] = [1 << 10, 16 << 10, 256 << 10, 1 << 20];

/// Across `SIZES`, the verdict is `valid`; the steps per input byte at 1 MiB are within a
/// quarter of those at 16 KiB, the peak heap per byte within twice; and at every size the peak
/// heap is no more than the decoded instance itself holds.
fn holds_linear(name: &str, schema: &Schema, make: impl Fn(usize) -> Value, valid: bool) {
    let mut per_byte: Vec<(usize, f64, f64)> = Vec::new();
    for size in SIZES {
        let instance = make(size);
        let bytes = adversarial::bytes(&instance);
        let cost = measure(schema, &instance);
        assert_eq!(
            cost.verdict.is_ok(),
            valid,
            "{name} at {bytes} bytes: {:?}",
            cost.verdict
        );
        if let Err(v) = &cost.verdict {
            assert_ne!(v.keyword(), "budget", "{name}: {v}");
        }
        per_byte.push((
            bytes,
            cost.steps as f64 / bytes as f64,
            cost.peak_bytes as f64 / bytes as f64,
        ));
        // Never more than the decoded request itself holds.
        let decoded = decoded_heap(&instance);
        assert!(
            cost.peak_bytes <= decoded + (64 << 10),
            "{name} at {bytes} bytes held {} bytes at its peak (decoded: {decoded})",
            cost.peak_bytes
        );
        assert!(
            cost.steps <= 8 * bytes as u64 + 10_000,
            "{name} at {bytes} bytes took {} steps",
            cost.steps
        );
    }
    eprintln!("{name}: (bytes, steps per byte, peak heap per byte) {per_byte:?}");
    let (_, small_steps, small_bytes) = per_byte[1];
    let (_, large_steps, large_bytes) = per_byte[3];
    assert!(
        large_steps <= small_steps * 1.25 + 0.01,
        "{name}: steps per byte rose with size: {per_byte:?}"
    );
    // The memo table grows by doubling (and holds old and new while it rehashes), so its
    // bytes per entry step between sizes by up to twice; a rise with size beyond that is not
    // linear.
    assert!(
        large_bytes <= small_bytes * 2.0 + 0.05,
        "{name}: heap per byte rose with size: {per_byte:?}"
    );
}

#[test]
fn failing_recursive_trees_cost_steps_linear_in_their_depth() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    for combinator in ["oneOf", "anyOf"] {
        let schema = compile(&adversarial::tree(combinator));
        for leaf in [adversarial::bad_leaf(), adversarial::typo_leaf()] {
            let mut steps = Vec::new();
            // Depth 30 is 62 JSON levels, under the validator's 64 (the wire's bound too).
            for depth in [5, 10, 20, 30] {
                let instance = adversarial::chain(depth, leaf.clone());
                let cost = measure(&schema, &instance);
                let v = cost.verdict.expect_err("the leaf is invalid");
                assert_eq!(
                    (v.instance_path(), v.keyword()),
                    ("/root", combinator),
                    "{combinator} {leaf} at depth {depth}"
                );
                // The 20-deep input of the issue took 54 s and 13.4 GB; here a few KiB.
                assert!(
                    cost.peak_bytes < 256 << 10,
                    "{combinator} depth {depth}: {} bytes",
                    cost.peak_bytes
                );
                steps.push(cost.steps);
            }
            // Linear: twice the depth, about twice the steps (never 2.2x per level).
            for pair in steps.windows(2) {
                assert!(pair[1] <= pair[0] * 3, "{combinator} {leaf}: {steps:?}");
            }
            assert!(steps[3] <= 30 * 40, "{combinator} {leaf}: {steps:?}");
            // The same tree with a valid leaf passes, at about the same cost.
            let good = adversarial::chain(30, json!({"kind": "file", "size": 12}));
            let cost = measure(&schema, &good);
            assert!(cost.verdict.is_ok(), "{:?}", cost.verdict);
            assert!(cost.steps <= steps[3] * 2, "{} vs {steps:?}", cost.steps);
        }
    }
}

#[test]
fn a_failing_filter_is_linear_from_1_kib_to_1_mib() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let schema = compile(&adversarial::filter());
    holds_linear("filter", &schema, adversarial::wide_filter, false);
    holds_linear("filter, valid", &schema, adversarial::valid_filter, true);
}

#[test]
fn a_failing_composition_over_a_wide_array_is_linear() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let schema = compile(&adversarial::two_arrays());
    holds_linear("two arrays", &schema, adversarial::wide_objects, false);
}

#[test]
fn unique_items_over_colliding_integers_is_linear() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let schema = compile(&adversarial::unique());
    holds_linear("pairs", &schema, adversarial::colliding_pairs, true);
    holds_linear("objects", &schema, adversarial::colliding_objects, true);
    // A repeat at the very end is still found.
    let mut items = adversarial::colliding_pairs(64 << 10);
    let first = items["items"][0].clone();
    items["items"].as_array_mut().unwrap().push(first);
    let v = schema.validate(&items).unwrap_err();
    assert_eq!((v.instance_path(), v.keyword()), ("/items", "uniqueItems"));
}

/// A recursive enum as `schemars` derives it: `oneOf` over tagged variants, `$ref` back to
/// itself from each.
#[derive(JsonSchema)]
#[serde(tag = "op", rename_all = "snake_case")]
#[allow(dead_code)]
enum Expr {
    Lit { value: i64 },
    Add { left: Box<Expr>, right: Box<Expr> },
    Mul { left: Box<Expr>, right: Box<Expr> },
    Neg { inner: Box<Expr> },
    All { terms: Vec<Expr> },
}

#[derive(JsonSchema)]
#[allow(dead_code)]
struct Evaluate {
    expr: Expr,
}

fn expr_schema() -> Value {
    serde_json::to_value(schemars::schema_for!(Evaluate)).unwrap()
}

/// `{"op":"all","terms":[…]}` of about `bytes` bytes: balanced `add`/`mul` trees of depth 6,
/// each ending in a literal whose value is a string (the honest typo).
fn expressions(bytes: usize, typo: bool) -> Value {
    let leaf = if typo {
        json!({"op": "lit", "value": "12"})
    } else {
        json!({"op": "lit", "value": 12})
    };
    let mut tree = leaf;
    for level in 0..6 {
        let op = if level % 2 == 0 { "add" } else { "mul" };
        tree = json!({"op": op, "left": tree.clone(), "right": {"op": "neg", "inner": tree}});
    }
    let one = tree.to_string().len() + 1;
    json!({"expr": {"op": "all", "terms": vec![tree; (bytes / one).max(1)]}})
}

#[test]
fn a_schemars_recursive_enum_is_linear_valid_or_not() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let raw = expr_schema();
    let schema = compile(&raw);
    holds_linear("expr, valid", &schema, |b| expressions(b, false), true);
    holds_linear("expr, typo", &schema, |b| expressions(b, true), false);
}

#[test]
fn the_budget_refuses_at_once_and_names_itself() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let schema = compile(&adversarial::filter());
    let instance = adversarial::wide_filter(64 << 10);
    let mut full = Budget::new(u64::MAX);
    assert!(schema.validate_within(&instance, &mut full).is_err());
    let needed = full.used();
    let mut short = Budget::new(needed / 2);
    let v = schema.validate_within(&instance, &mut short).unwrap_err();
    assert_eq!((v.instance_path(), v.keyword()), ("", "budget"));
    assert!(v.message().contains(&(needed / 2).to_string()), "{v}");
    // It stops where the budget ends, not after doing the work anyway.
    assert!(short.used() <= needed / 2 + 64, "{short:?} of {needed}");
    // The default budget admits a valid cap-sized request against every schema here.
    let valid = [
        (
            adversarial::two_arrays(),
            json!({"list": vec![json!("x"); (1 << 20) / 4]}),
        ),
        (adversarial::unique(), adversarial::colliding_pairs(1 << 20)),
        (expr_schema(), expressions(1 << 20, false)),
        (
            adversarial::tree("oneOf"),
            adversarial::chain(30, json!({"kind": "file"})),
        ),
    ];
    for (raw, instance) in valid {
        let mut budget = Budget::default();
        let verdict = compile(&raw).validate_within(&instance, &mut budget);
        assert!(verdict.is_ok(), "{verdict:?}");
        assert!(budget.used() <= Budget::DEFAULT_STEPS / 3, "{budget:?}");
    }
}

#[test]
fn a_cycle_of_references_that_never_moves_into_the_instance_is_refused_at_startup() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    for (raw, pointer) in [
        (json!({"$ref": "#"}), "/$ref"),
        (
            json!({"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"anyOf": [{"$ref": "#/$defs/a"}]}}, "$ref": "#/$defs/a"}),
            "/$defs/a/$ref",
        ),
        (
            json!({"allOf": [{"not": {"$ref": "#"}}]}),
            "/allOf/0/not/$ref",
        ),
    ] {
        let err = Schema::compile(&raw).unwrap_err();
        assert!(err.is_malformed(), "{raw}: {err}");
        assert!(err.reason().contains("cycle"), "{err}");
        assert!(
            pointer.starts_with(&err.pointer()) || err.pointer().starts_with("/"),
            "{raw}: {err}"
        );
    }
    // Through a property it moves into the instance: accepted and enforced.
    let s = compile(&json!({"properties": {"next": {"$ref": "#"}}, "required": ["v"]}));
    assert!(s
        .validate(&json!({"v": 1, "next": {"v": 2, "next": {"v": 3}}}))
        .is_ok());
    let v = s
        .validate(&json!({"v": 1, "next": {"next": {"v": 3}}}))
        .unwrap_err();
    assert_eq!((v.instance_path(), v.keyword()), ("/next", "required"));
}

#[test]
fn a_chain_of_references_under_unevaluated_compiles_and_validates_linearly() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    // `d0` → `anyOf` of two references to `d1` → … → `dN`, each level with
    // `unevaluatedProperties`: the `jsonschema` crate's validator took time exponential in N to
    // build (seconds at 12); here compiling is a walk and each level is evaluated once.
    let mut steps = Vec::new();
    for n in [10usize, 20, 40] {
        let schema = compile(&adversarial::unevaluated_chain(n));
        assert!(schema.validate(&json!({"a": 1})).is_ok());
        let cost = measure(&schema, &json!({"a": 1, "b": 2}));
        let v = cost.verdict.unwrap_err();
        assert_eq!((v.instance_path(), v.keyword()), ("", "anyOf"));
        steps.push(cost.steps);
    }
    assert!(
        steps[2] <= steps[1] * 3 && steps[1] <= steps[0] * 3,
        "{steps:?}"
    );
}

/// `$defs` `{prefix}0` … `{prefix}{n}`, each `{"allOf": [ref to next, ref to next]}`, the last
/// `last`: a fan-out that doubles per level on one value.
fn fan_out(defs: &mut serde_json::Map<String, Value>, prefix: &str, n: usize, last: Value) {
    for i in 0..n {
        let next = format!("#/$defs/{prefix}{}", i + 1);
        defs.insert(
            format!("{prefix}{i}"),
            json!({"allOf": [{"$ref": next}, {"$ref": next}]}),
        );
    }
    defs.insert(format!("{prefix}{n}"), last);
}

#[test]
fn a_fan_out_of_references_on_a_scalar_or_an_empty_value_is_linear() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let mut steps = Vec::new();
    for n in [10usize, 20, 40] {
        let mut defs = serde_json::Map::new();
        fan_out(&mut defs, "d", n, json!({"minimum": 0}));
        let schema = compile(&json!({
            "type": "object",
            "properties": {"x": {"$ref": "#/$defs/d0"}},
            "$defs": defs
        }));
        for x in [json!(1), json!([]), json!({})] {
            let cost = measure(&schema, &json!({ "x": x }));
            assert!(cost.verdict.is_ok(), "{n} {x}: {:?}", cost.verdict);
        }
        let cost = measure(&schema, &json!({"x": -1}));
        let v = cost.verdict.unwrap_err();
        assert_eq!((v.instance_path(), v.keyword()), ("/x", "minimum"));
        steps.push(cost.steps);
    }
    assert!(steps[2] <= steps[0] * 6, "{steps:?}");
}

#[test]
fn every_schema_side_loop_is_charged_and_walks_the_smaller_side() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let names: Vec<String> = (0..10_000).map(|i| format!("p{i}")).collect();
    let properties: serde_json::Map<String, Value> = names
        .iter()
        .map(|n| (n.clone(), json!({"type": "integer"})))
        .collect();
    let dependent: serde_json::Map<String, Value> =
        names.iter().map(|n| (n.clone(), json!(["q"]))).collect();
    let schemas: serde_json::Map<String, Value> = names
        .iter()
        .map(|n| (n.clone(), json!({"required": ["q"]})))
        .collect();
    let schema = compile(&json!({
        "type": "object",
        "properties": {"l": {"type": "array", "items": {
            "properties": properties,
            "dependentRequired": dependent,
            "dependentSchemas": schemas
        }}}
    }));
    // A megabyte of empty objects against 10,000 declared names: a few steps each.
    holds_linear(
        "10,000 names",
        &schema,
        |bytes| json!({"l": vec![json!({}); bytes / 3]}),
        true,
    );
    // A member that triggers the dependents is found and checked.
    let v = schema.validate(&json!({"l": [{}, {"p7": 1}]})).unwrap_err();
    assert_eq!((v.instance_path(), v.keyword()), ("/l/1", "required"));
}

#[test]
fn the_memo_table_is_bounded_whatever_the_references() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    // 50 reference targets applied to every item: 50 verdicts per value to keep.
    let mut defs = serde_json::Map::new();
    let mut all_of = Vec::new();
    for i in 0..50 {
        defs.insert(format!("a{i}"), json!({"minItems": 0}));
        all_of.push(json!({"anyOf": [{"$ref": format!("#/$defs/a{i}")}, true]}));
    }
    let schema = compile(&json!({
        "type": "object",
        "properties": {"l": {"type": "array", "items": {"allOf": all_of}}},
        "$defs": defs
    }));
    let instance = json!({"l": vec![json!([0]); 40_000]});
    let cost = measure(&schema, &instance);
    assert!(cost.verdict.is_ok(), "{:?}", cost.verdict);
    // The table stops at 4 MiB; what it holds while growing is at most twice that.
    assert!(
        cost.peak_bytes <= 9 << 20,
        "held {} bytes for a {}-byte request",
        cost.peak_bytes,
        adversarial::bytes(&instance)
    );
}

#[test]
fn property_names_nest_where_they_are_applied() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    // 250 in-place references, then `propertyNames` whose schema is 200 more: together past
    // the validator's 256, so refused, on a 2 MiB stack, not overflowed.
    let handle = std::thread::Builder::new()
        .stack_size(2 * 1024 * 1024)
        .spawn(|| {
            let mut defs = serde_json::Map::new();
            for i in 0..250 {
                defs.insert(
                    format!("c{i}"),
                    json!({"$ref": format!("#/$defs/c{}", i + 1)}),
                );
            }
            defs.insert(
                "c250".into(),
                json!({"propertyNames": {"$ref": "#/$defs/n0"}}),
            );
            for i in 0..200 {
                defs.insert(
                    format!("n{i}"),
                    json!({"$ref": format!("#/$defs/n{}", i + 1)}),
                );
            }
            defs.insert("n200".into(), json!({"maxLength": 3}));
            let schema = compile(&json!({"type": "object", "$ref": "#/$defs/c0", "$defs": defs}));
            let v = schema.validate(&json!({"abc": 1})).unwrap_err();
            assert_eq!(v.keyword(), "depth", "{v}");
        })
        .unwrap();
    handle.join().unwrap();
}
