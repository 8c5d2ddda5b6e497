//! The cost per `tools/call` of what the crate records through the `metrics` facade: one
//! request counter, one tool-call counter and one latency histogram, with the same label
//! shapes as `beam_mcp::metrics` (static strings, the catalog's `Arc<str>` tool name). Run
//! with no recorder installed (a host that wants no metrics) and with a recorder that keeps
//! the series (a host that exports them), against the collector's 150 ns budget.

use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;
use std::sync::Arc;

fn record(tool: &Arc<str>) {
    metrics::counter!(
        "mcp_requests_total",
        "method" => "tools/call",
        "revision" => "2026-07-28",
        "transport" => "http",
    )
    .increment(1);
    metrics::counter!("mcp_tool_calls_total", "tool" => tool.clone(), "outcome" => "ok")
        .increment(1);
    metrics::histogram!("mcp_tool_call_duration_seconds", "tool" => tool.clone())
        .record(black_box(0.000_012));
}

fn bench(c: &mut Criterion) {
    let tool: Arc<str> = Arc::from("get_weather");
    c.bench_function("metrics per tools/call, no recorder", |b| {
        b.iter(|| record(black_box(&tool)))
    });
    let recorder = metrics_exporter_prometheus::PrometheusBuilder::new().build_recorder();
    metrics::with_local_recorder(&recorder, || {
        c.bench_function("metrics per tools/call, Prometheus recorder", |b| {
            b.iter(|| record(black_box(&tool)))
        });
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
