//! The live catalog's costs as the catalog grows: building a catalog of `n` tools at startup
//! (`Server::new`), and one change to a serving catalog of `n` tools (one tool added, then
//! removed: two changes per iteration). Tools carry a 3-property input schema.
//!
//! `cargo bench --bench catalog_change`. Targets: startup per tool flat from 50 to 50,000
//! tools (linear in the catalog); one change flat from 50 to 50,000 (it does not rebuild the
//! catalog).

use beam_mcp::catalog::CatalogChange;
use beam_mcp::{Catalog, Server, ServerConfig, ToolOutput, ToolSpec};
use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion, Throughput};
use serde_json::json;
use std::hint::black_box;
use std::time::Duration;

const SIZES: [usize; 4] = [50, 500, 5_000, 50_000];

fn tool(name: String) -> ToolSpec {
    ToolSpec::new(name, "Read the weather.").with_input_schema(json!({
        "type": "object",
        "properties": {
            "place": {"type": "string", "minLength": 1, "maxLength": 64},
            "days": {"type": "integer", "minimum": 1, "maximum": 14},
            "metric": {"type": "boolean"}
        },
        "required": ["place"],
        "additionalProperties": false
    }))
}

fn catalog(n: usize) -> Catalog {
    (0..n).fold(Catalog::new(), |c, i| c.tool(tool(format!("tool_{i:06}"))))
}

fn config(catalog: Catalog) -> ServerConfig {
    ServerConfig::new(catalog)
        .cursor_key([3; 32])
        .dispatch(|_c| async { Ok(ToolOutput::text("12°C")) })
}

fn startup(c: &mut Criterion) {
    let mut g = c.benchmark_group("catalog_startup");
    g.sample_size(10).warm_up_time(Duration::from_millis(500));
    for n in SIZES {
        // Per element: the figure to compare across sizes is the time per tool.
        g.throughput(Throughput::Elements(n as u64));
        g.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, &n| {
            b.iter_batched(
                || config(catalog(n)),
                |config| black_box(Server::new(config).unwrap()),
                BatchSize::LargeInput,
            )
        });
    }
    g.finish();
}

fn change(c: &mut Criterion) {
    let mut g = c.benchmark_group("catalog_change");
    g.sample_size(30).warm_up_time(Duration::from_millis(500));
    for n in SIZES {
        let server = Server::new(config(catalog(n))).unwrap();
        g.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
            // The middle of the name order: the path a change copies is as long as any.
            let name = "tool_0000250x".to_owned();
            b.iter_batched(
                || {
                    (
                        CatalogChange::new().add_tool(tool(name.clone())),
                        CatalogChange::new().remove_tool(name.clone()),
                    )
                },
                |(add, remove)| {
                    black_box(server.change(add).unwrap());
                    black_box(server.change(remove).unwrap());
                },
                BatchSize::SmallInput,
            )
        });
    }
    g.finish();
}

criterion_group!(benches, startup, change);
criterion_main!(benches);
