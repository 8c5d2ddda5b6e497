//! tools/call through the dispatch pool, in process (no stdio): one caller, and 64
//! concurrent callers. Prints calls per second for each.
//!
//! `cargo bench --bench runtime_pool`.

use beam_mcp::runtime::{Application, ApplicationConfig, ApplicationRef};
use beam_mcp::{Answer, Carrier, Catalog, Server, ServerConfig, ToolOutput, ToolSpec};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use serde_json::json;
use std::time::{Duration, Instant};

fn server() -> Server {
    let tool = ToolSpec::new("get_weather", "Read the weather.").with_input_schema(json!({
        "type": "object",
        "properties": {
            "place": {"type": "string", "minLength": 1, "maxLength": 64},
            "days": {"type": "integer", "minimum": 1, "maximum": 14}
        },
        "required": ["place"]
    }));
    Server::new(
        ServerConfig::new(Catalog::new().tool(tool))
            .dispatch(|_c| async { Ok(ToolOutput::text("12°C")) }),
    )
    .unwrap()
}

const FRAME: &[u8] = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_weather","arguments":{"place":"Oslo","days":3}}}"#;

async fn one(rt: &ApplicationRef) {
    match rt.answer(FRAME, Carrier::Stdio).await {
        Answer::Reply(r) => assert!(r.error_code().is_none()),
        other => panic!("unexpected {other:?}"),
    }
}

/// `callers` tasks each make calls until `total` are done; returns the elapsed time.
async fn burst(rt: &ApplicationRef, callers: usize, per_caller: u64) -> Duration {
    let start = Instant::now();
    let tasks: Vec<_> = (0..callers)
        .map(|_| {
            let rt = rt.clone();
            tokio::spawn(async move {
                for _ in 0..per_caller {
                    one(&rt).await;
                }
            })
        })
        .collect();
    for t in tasks {
        t.await.unwrap();
    }
    start.elapsed()
}

fn bench(c: &mut Criterion) {
    let tokio = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let rt = tokio.block_on(async {
        Application::start(server(), ApplicationConfig::new().workers(8).queue(4096))
            .await
            .unwrap()
    });
    let mut group = c.benchmark_group("runtime_pool");
    for callers in [1usize, 64] {
        group.throughput(Throughput::Elements(callers as u64));
        group.bench_function(format!("tools_call_{callers}_callers"), |b| {
            b.iter_custom(|iters| {
                // iters rounds of `callers` concurrent calls.
                tokio.block_on(burst(&rt, callers, iters))
            })
        });
        // A plain calls/s figure, printed beside criterion's estimate.
        let calls = 20_000u64;
        let elapsed = tokio.block_on(burst(&rt, callers, calls / callers as u64));
        println!(
            "runtime_pool/{callers} callers: {:.0} calls/s",
            (calls / callers as u64 * callers as u64) as f64 / elapsed.as_secs_f64()
        );
    }
    group.finish();
    tokio.block_on(async { rt.stop(Duration::from_secs(5)).await.unwrap() });
}

criterion_group!(benches, bench);
criterion_main!(benches);
