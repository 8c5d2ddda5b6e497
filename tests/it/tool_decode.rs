//! Validation first, then decoding, and the two never disagree: instances drawn from each typed
//! tool's own derived schema (integers at and past their bounds, sent as `3` or `3.0`, optional
//! fields present, absent or `null`, every enum variant, keys for a flattened map, and some
//! deliberately broken) are sent through `Server::answer`. Whatever the schema admits decodes
//! into the handler's type (never -32603); whatever it refuses is -32602; and most draws are
//! admitted, so the property is not vacuous.

use crate::support::splitmix;

use beam_mcp::{Args, Carrier, Catalog, Json, Server, ServerConfig, ToolSpec};
use proptest::prelude::*;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use splitmix::Rng;
use std::collections::BTreeMap;

/// Every integer width schemars knows, and `Option`s of some.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
struct Widths {
    a: u8,
    b: i8,
    c: u16,
    d: i16,
    e: u32,
    f: i32,
    g: u64,
    h: i64,
    i: usize,
    j: isize,
    k: Option<u8>,
    l: Option<i64>,
    x: f32,
    y: f64,
}

/// A unit enum.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Speed {
    Fast,
    Slow,
}

/// An externally tagged enum with data.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
enum Shape {
    Circle { r: u16 },
    Square(u32),
    Dot,
}

/// An internally tagged enum.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(tag = "kind")]
enum Tagged {
    A { x: i16 },
    B { y: Option<u8> },
}

/// A nested struct.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
struct Inner {
    depth: u8,
    note: Option<String>,
    tags: Vec<i8>,
}

/// Everything at once, with a flattened map for the keys nothing declares.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
struct Everything {
    widths: Widths,
    speed: Speed,
    shape: Shape,
    tagged: Tagged,
    inner: Inner,
    list: Vec<Inner>,
    maybe: Option<Inner>,
    pair: (u8, i32),
    #[serde(flatten)]
    rest: BTreeMap<String, i32>,
}

/// A flattened map of nested values beside one field.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
struct Open {
    id: u32,
    #[serde(flatten)]
    extra: BTreeMap<String, Inner>,
}

fn server() -> Server {
    Server::new(ServerConfig::new(catalog())).unwrap()
}

fn catalog() -> Catalog {
    Catalog::new()
        .tool(ToolSpec::new("widths", "w").with_handler(|Args(v): Args<Widths>| async { Json(v) }))
        .tool(
            ToolSpec::new("everything", "e")
                .with_handler(|Args(v): Args<Everything>| async { Json(v) }),
        )
        .tool(ToolSpec::new("open", "o").with_handler(|Args(v): Args<Open>| async { Json(v) }))
}

/// Each tool's name and its derived input schema.
fn schemas() -> Vec<(String, Value)> {
    catalog()
        .tools()
        .iter()
        .map(|t| (t.name().to_owned(), t.input_schema().unwrap().clone()))
        .collect()
}

/// The schema `#/$defs/...` points at, or the schema itself.
fn resolve<'a>(root: &'a Value, schema: &'a Value) -> &'a Value {
    match schema.get("$ref").and_then(Value::as_str) {
        Some(r) => {
            let name = r.trim_start_matches("#/$defs/");
            resolve(root, &root["$defs"][name])
        }
        None => schema,
    }
}

/// An integer of `schema`: at a bound, past one (sometimes), or between; sent as an integer or
/// as the same value with a fractional part of zero.
fn integer(rng: &mut Rng, schema: &Value, stats: &mut Stats) -> Value {
    // Without a bound, values at and past what 32 and 64 bits hold.
    const WIDE: [f64; 6] = [
        4_294_967_296.0,
        9_007_199_254_740_992.0,
        9_223_372_036_854_775_808.0,
        18_446_744_073_709_551_616.0,
        1e20,
        -9_223_372_036_854_777_856.0,
    ];
    let min = schema["minimum"].as_f64().unwrap_or(-1e6);
    let max = schema["maximum"].as_f64().unwrap_or(1e6);
    let unbounded = schema.get("minimum").is_none() || schema.get("maximum").is_none();
    let v: f64 = match rng.below(6) {
        0 => min,
        1 => max,
        2 if rng.chance(10) => max + 1.0,
        3 if rng.chance(10) => min - 1.0,
        4 if unbounded && rng.chance(20) => WIDE[rng.below(WIDE.len())],
        _ => {
            let span = (max - min).min(1e12);
            (min + (rng.next() % 1_000_000) as f64 / 1e6 * span).floor()
        }
    };
    if rng.chance(40) {
        stats.floats_as_integers += 1;
        json!(v)
    } else if (0.0..18_446_744_073_709_551_616.0).contains(&v) {
        json!(v as u64)
    } else if (-9_223_372_036_854_775_808.0..0.0).contains(&v) {
        json!(v as i64)
    } else {
        json!(v)
    }
}

#[derive(Debug, Default)]
struct Stats {
    admitted: usize,
    refused: usize,
    floats_as_integers: usize,
    flattened_keys: usize,
}

/// One instance drawn from `schema`, conforming most of the time.
fn draw(rng: &mut Rng, root: &Value, schema: &Value, depth: usize, stats: &mut Stats) -> Value {
    let schema = resolve(root, schema);
    if rng.below(200) == 0 {
        // A deliberate break: the wrong kind of value.
        return json!("broken");
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(options) = schema.get(key).and_then(Value::as_array) {
            let option = rng_pick(rng, options);
            return draw(rng, root, option, depth + 1, stats);
        }
    }
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        return rng_pick(rng, values).clone();
    }
    if let Some(c) = schema.get("const") {
        return c.clone();
    }
    let kind = match &schema["type"] {
        Value::String(t) => t.clone(),
        Value::Array(ts) => rng_pick(rng, ts).as_str().unwrap().to_owned(),
        _ => "object".to_owned(),
    };
    match kind.as_str() {
        "null" => Value::Null,
        "boolean" => json!(rng.chance(50)),
        "string" => json!(format!("s{}", rng.below(100))),
        "integer" => integer(rng, schema, stats),
        "number" => json!((rng.next() % 10_000) as f64 / 8.0 - 300.0),
        "array" => {
            if let Some(prefix) = schema.get("prefixItems").and_then(Value::as_array) {
                return Value::Array(
                    prefix
                        .iter()
                        .map(|s| draw(rng, root, s, depth + 1, stats))
                        .collect(),
                );
            }
            let n = if depth > 4 { 0 } else { rng.below(3) };
            let items = schema.get("items").cloned().unwrap_or(json!({}));
            Value::Array(
                (0..n)
                    .map(|_| draw(rng, root, &items, depth + 1, stats))
                    .collect(),
            )
        }
        _ => {
            let mut out = Map::new();
            let required: Vec<&str> = schema["required"]
                .as_array()
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            if let Some(props) = schema.get("properties").and_then(Value::as_object) {
                for (name, sub) in props {
                    let needed = required.contains(&name.as_str());
                    if (needed && !rng.chance(1)) || (!needed && rng.chance(50)) {
                        out.insert(name.clone(), draw(rng, root, sub, depth + 1, stats));
                    }
                }
            }
            if let Some(extra) = schema.get("additionalProperties").filter(|s| s.is_object()) {
                for i in 0..rng.below(3) {
                    stats.flattened_keys += 1;
                    out.insert(
                        format!("extra{i}"),
                        draw(rng, root, extra, depth + 1, stats),
                    );
                }
            }
            Value::Object(out)
        }
    }
}

fn rng_pick<'a>(rng: &mut Rng, items: &'a [Value]) -> &'a Value {
    &items[rng.below(items.len())]
}

/// Draws one instance per tool from `seed`, sends each, and holds the property.
async fn one_seed(server: &Server, schemas: &[(String, Value)], seed: u64, stats: &mut Stats) {
    let mut rng = Rng(seed);
    for (tool, schema) in schemas {
        let args = draw(&mut rng, schema, schema, 0, stats);
        let frame = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
            "name": tool, "arguments": args,
            "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                      "io.modelcontextprotocol/clientCapabilities": {}}}});
        let answer = server
            .answer(&serde_json::to_vec(&frame).unwrap(), Carrier::Stdio)
            .await;
        let beam_mcp::Answer::Reply(reply) = answer else {
            panic!("no reply")
        };
        let reply: Value = serde_json::from_slice(reply.bytes()).unwrap();
        match reply["error"]["code"].as_i64() {
            None => {
                assert_eq!(
                    reply["result"].get("isError"),
                    None,
                    "{tool} {args}: {reply}"
                );
                stats.admitted += 1;
            }
            Some(-32602) => stats.refused += 1,
            Some(code) => panic!("{tool}: {args} was answered {code}: {reply}"),
        }
    }
}

#[tokio::test(flavor = "current_thread")]
async fn what_the_derived_schema_admits_decodes_over_many_draws() {
    let server = server();
    let schemas = schemas();
    let mut stats = Stats::default();
    for seed in 0..1500u64 {
        one_seed(&server, &schemas, seed, &mut stats).await;
    }
    let total = stats.admitted + stats.refused;
    assert!(
        stats.admitted * 4 >= total,
        "too few draws admitted for the property to say much: {stats:?}"
    );
    assert!(stats.refused > 0, "no draw was refused: {stats:?}");
    assert!(stats.floats_as_integers > 1000, "{stats:?}");
    assert!(stats.flattened_keys > 500, "{stats:?}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn admitted_means_decoded(seed in any::<u64>()) {
        let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
        let server = server();
        let schemas = schemas();
        let mut stats = Stats::default();
        runtime.block_on(one_seed(&server, &schemas, seed, &mut stats));
    }
}
