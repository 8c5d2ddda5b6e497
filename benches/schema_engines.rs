//! The two validators on the schemas real hosts advertise: each schema `schemars` derives for
//! the example hosts' types (`weather`'s arguments and report, a typed tool's arguments with a
//! flattened map, a nested list of records), compiled and validated by the subset and, with a
//! neutral `"$defs": {}` added, by the general evaluator: the same schema, the same instance,
//! the two engines. A nested struct derives `$ref`/`$defs`, which only the general path takes:
//! that case is measured there alone. What ARCHITECTURE.md's "two validators" decision quotes.
//!
//! `cargo bench --bench schema_engines`

use std::collections::BTreeMap;
use std::hint::black_box;

use beam_mcp::schema::Schema;
use beam_mcp::{Args, Json, ToolSpec};
use criterion::{criterion_group, criterion_main, Criterion};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// `weather`'s arguments.
#[allow(dead_code)] // only the derived schemas are read
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Query {
    /// The place.
    #[schemars(length(min = 1, max = 64))]
    place: String,
}

/// `weather`'s report.
#[derive(Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Report {
    place: String,
    celsius: i64,
    conditions: String,
}

/// A typed tool's arguments with a flattened map of labels.
#[allow(dead_code)] // only the derived schemas are read
#[derive(Deserialize, JsonSchema)]
struct Label {
    name: String,
    level: u8,
    #[serde(flatten)]
    labels: BTreeMap<String, String>,
}

/// A list of records, as a search tool returns.
#[derive(Serialize, JsonSchema)]
struct Hits {
    total: u32,
    hits: Vec<Hit>,
}

/// One record.
#[derive(Serialize, JsonSchema)]
struct Hit {
    id: u64,
    title: String,
    score: f64,
    tags: Vec<String>,
}

async fn query(Args(_): Args<Query>) -> Json<Report> {
    unreachable!("only the schemas are read")
}

async fn label(Args(_): Args<Label>) -> Json<Hits> {
    unreachable!("only the schemas are read")
}

/// Each schema with an instance it admits.
fn cases() -> Vec<(&'static str, Value, Value)> {
    let weather = ToolSpec::new("w", "d").with_handler(query);
    let labels = ToolSpec::new("l", "d").with_handler(label);
    let hits: Vec<Value> = (0..10)
        .map(|i| json!({"id": i, "title": format!("hit {i}"), "score": 0.5, "tags": ["a", "b"]}))
        .collect();
    vec![
        (
            "weather_arguments",
            weather.input_schema().cloned().unwrap_or_default(),
            json!({"place": "Oslo"}),
        ),
        (
            "weather_report",
            weather.output_schema().cloned().unwrap_or_default(),
            json!({"place": "Oslo", "celsius": 12, "conditions": "light rain"}),
        ),
        (
            "labels_arguments",
            labels.input_schema().cloned().unwrap_or_default(),
            json!({"name": "crate", "level": 3, "color": "red", "size": "L"}),
        ),
        (
            "ten_hits",
            labels.output_schema().cloned().unwrap_or_default(),
            json!({"total": 10, "hits": hits}),
        ),
    ]
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("engines");
    for (name, raw, instance) in cases() {
        let mut general_raw = raw.clone();
        if let Some(object) = general_raw.as_object_mut() {
            object.entry("$defs").or_insert_with(|| json!({}));
        }
        // A nested struct derives `$ref`/`$defs`: such a schema is the general path's alone.
        let subset_too = Schema::compile(&raw).is_ok_and(|s| s.is_subset());
        let engines = [("subset", &raw), ("general", &general_raw)];
        for (engine, raw) in engines
            .into_iter()
            .filter(|(e, _)| subset_too || *e == "general")
        {
            let schema = match Schema::compile(raw) {
                Ok(s) => s,
                Err(e) => panic!("{name}: refused: {e}"),
            };
            assert_eq!(schema.is_subset(), engine == "subset", "{name} on {engine}");
            assert!(schema.validate(&instance).is_ok(), "{name} on {engine}");
            group.bench_function(format!("{name}/{engine}/validate"), |b| {
                b.iter(|| schema.validate(black_box(&instance)))
            });
            group.bench_function(format!("{name}/{engine}/compile"), |b| {
                b.iter(|| Schema::compile(black_box(raw)))
            });
        }
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
