//! Validate and normalise a typical 3-property tool call.

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
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
