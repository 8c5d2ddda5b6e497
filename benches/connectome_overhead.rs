//! Added cost per `tools/call` of the connectome collector: `Collector::record_dispatch` on an
//! attached collector holding 8 tools, compared with a detached one. Besides the criterion
//! group, a manual timing loop (21 batches of 1e6 calls, median per call) fails loudly — it
//! panics — when the attached median exceeds the 150 ns ceiling.

use std::hint::black_box;
use std::time::Instant;

use beam_mcp::connectome::observed::Collector;
use criterion::{criterion_group, Criterion};

const CEILING_NS: f64 = 150.0;
const TOOLS: [&str; 8] = [
    "get_weather",
    "get_forecast",
    "list_cities",
    "get_alerts",
    "convert_units",
    "get_radar",
    "get_air_quality",
    "get_sunrise",
];

fn collector(attached: bool) -> Collector {
    let c = Collector::new();
    c.attach();
    for t in TOOLS {
        c.record_dispatch(t);
    }
    if !attached {
        c.detach();
    }
    c
}

fn median_ns_per_call(c: &Collector, batches: usize, calls: usize) -> f64 {
    let mut per_call: Vec<f64> = (0..batches)
        .map(|_| {
            let start = Instant::now();
            for i in 0..calls {
                c.record_dispatch(black_box(TOOLS[i % TOOLS.len()]));
            }
            start.elapsed().as_nanos() as f64 / calls as f64
        })
        .collect();
    per_call.sort_by(f64::total_cmp);
    per_call[batches / 2]
}

fn gate() {
    if cfg!(debug_assertions) {
        // `cargo test --all-targets` runs this bench unoptimized: smoke-run only, say so.
        let attached = median_ns_per_call(&collector(true), 3, 10_000);
        println!(
            "connectome_overhead: unoptimized build, gate NOT enforced ({attached:.1} ns); \
             run `cargo bench --bench connectome_overhead`"
        );
        return;
    }
    let attached = median_ns_per_call(&collector(true), 21, 1_000_000);
    let detached = median_ns_per_call(&collector(false), 21, 1_000_000);
    println!(
        "connectome_overhead: record_dispatch median {attached:.1} ns attached, \
         {detached:.1} ns detached (ceiling {CEILING_NS} ns)"
    );
    assert!(
        attached <= CEILING_NS,
        "connectome collector over budget: median {attached:.1} ns per tools/call > {CEILING_NS} ns"
    );
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("connectome_overhead");
    for (name, attached) in [
        ("record_dispatch_attached", true),
        ("record_dispatch_detached", false),
    ] {
        let col = collector(attached);
        let mut i = 0usize;
        group.bench_function(name, |b| {
            b.iter(|| {
                i = i.wrapping_add(1);
                col.record_dispatch(black_box(TOOLS[i % TOOLS.len()]));
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);

fn main() {
    gate();
    // CI runs the gate alone (`CONNECTOME_GATE_ONLY=1`); the criterion groups are for people.
    if std::env::var_os("CONNECTOME_GATE_ONLY").is_some() {
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
