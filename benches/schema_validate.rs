//! Validate and normalise a typical 3-property tool call: with a schema inside the subset (the
//! fast path), and with the same call under a JSON Schema 2020-12 schema (`$ref`/`$defs`,
//! `enum`), which the general validator checks.
//!
//! `cargo bench --bench schema_validate`

use std::hint::black_box;

use beam_mcp::schema::Schema;
use criterion::{criterion_group, criterion_main, Criterion};
use serde_json::json;

fn bench(c: &mut Criterion) {
    let schema = match Schema::compile(&json!({
        "type": "object",
        "properties": {
            "place": {"type": "string", "minLength": 1, "maxLength": 128},
            "days": {"type": "integer", "minimum": 1, "maximum": 14},
            "units": {"type": ["string", "null"], "maxLength": 16}
        },
        "required": ["place"],
        "additionalProperties": false
    })) {
        Ok(s) => s,
        Err(e) => panic!("bench schema refused: {e}"),
    };
    let instance = json!({"place": "Oslo", "days": 3, "units": "metric"});
    assert!(schema.validate(&instance).is_ok());

    let mut group = c.benchmark_group("schema");
    group.bench_function("validate_3_props", |b| {
        b.iter(|| schema.validate(black_box(&instance)))
    });
    group.bench_function("arguments_3_props", |b| {
        b.iter(|| schema.arguments(black_box(&instance)))
    });
    group.bench_function("compile_3_props", |b| {
        b.iter(|| Schema::compile(black_box(schema.raw())))
    });

    let general = match Schema::compile(&json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {"place": {"type": "string", "minLength": 1, "maxLength": 128}},
        "properties": {
            "place": {"$ref": "#/$defs/place"},
            "days": {"type": "integer", "minimum": 1, "maximum": 14},
            "units": {"enum": ["metric", "imperial"]}
        },
        "required": ["place"],
        "additionalProperties": false
    })) {
        Ok(s) => s,
        Err(e) => panic!("bench 2020-12 schema refused: {e}"),
    };
    assert!(!general.is_subset());
    assert!(general.validate(&instance).is_ok());
    group.bench_function("validate_3_props_2020_12", |b| {
        b.iter(|| general.validate(black_box(&instance)))
    });
    group.bench_function("arguments_3_props_2020_12", |b| {
        b.iter(|| general.arguments(black_box(&instance)))
    });
    group.bench_function("compile_3_props_2020_12", |b| {
        b.iter(|| Schema::compile(black_box(general.raw())))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
