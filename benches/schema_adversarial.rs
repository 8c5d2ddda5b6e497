//! What the issue-23 inputs cost now: the failing recursive `oneOf`/`anyOf` tree, colliding
//! `uniqueItems`, a failing composition over a wide array, a failing and a valid filter, a
//! `schemars`-style recursive enum.
//!
//! `cargo bench --bench schema_adversarial` prints, before criterion's timings:
//!
//! - **startup**: building the `jsonschema` crate's validator against `Schema::compile` for a
//!   chain of references under `unevaluatedProperties`;
//! - **in process**: for each input, its size, the validation steps, the peak heap held during
//!   validation (a counting allocator) and the median time of 15 validations;
//! - **over a real listener** (HTTP/1.1 on 127.0.0.1, the bare transport): the median round
//!   trip of a depth-20 refusal, the process's peak resident memory above its level before the
//!   request (`VmHWM` after resetting it through `/proc/self/clear_refs`) and the peak heap of
//!   server and client together, for the depth-20 trees and the 1 MiB wide array;
//! - **a good call beside costly ones**: the median round trip of a small call alone, then
//!   while two other connections send, in a loop, good calls (the baseline: on two cores any
//!   two busy neighbours slow it), depth-20 trees, and 1 MiB colliding pairs.

#[allow(dead_code)] // shared with `tests/it`; this bench uses part of it
#[path = "../tests/it/support/adversarial.rs"]
mod adversarial;
#[path = "../tests/support/peak.rs"]
mod peak;

use std::hint::black_box;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use beam_mcp::schema::{Budget, Schema};
use beam_mcp::transport::http::{serve, AllowedOrigins, HttpService};
use beam_mcp::{Catalog, Server, ServerConfig, ToolCall, ToolOutput, ToolSpec};
use bytes::Bytes;
use criterion::{criterion_group, criterion_main, Criterion};
use http_body_util::{BodyExt, Full};
use hyper_util::rt::TokioIo;
use serde_json::{json, Value};
use tokio::net::{TcpListener, TcpStream};

#[global_allocator]
static A: peak::Peak = peak::Peak;

use peak::{mark as heap_mark, peak_since as heap_peak_since};

/// Resets the kernel's peak resident set of this process and returns the current one (KiB).
fn rss_mark() -> Option<u64> {
    std::fs::write("/proc/self/clear_refs", "5").ok()?;
    status_kib("VmRSS:")
}

fn status_kib(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

struct Case {
    name: &'static str,
    schema: Value,
    instance: Value,
}

fn cases() -> Vec<Case> {
    let expr = json!({
        "type": "object",
        "properties": {"root": {"$ref": "#/$defs/node"}},
        "$defs": {"node": {"oneOf": [
            {"type": "object", "properties": {"op": {"const": "lit"}, "value": {"type": "integer"}}, "required": ["op", "value"]},
            {"type": "object", "properties": {"op": {"const": "add"}, "terms": {"type": "array", "items": {"$ref": "#/$defs/node"}}}, "required": ["op", "terms"]},
            {"type": "object", "properties": {"op": {"const": "neg"}, "inner": {"$ref": "#/$defs/node"}}, "required": ["op", "inner"]}
        ]}}
    });
    let mut wide = json!({"op": "lit", "value": 1});
    for _ in 0..5 {
        wide = json!({"op": "add", "terms": [wide.clone(), {"op": "neg", "inner": wide}]});
    }
    let one = wide.to_string().len() + 1;
    let expr_instance = json!({"root": {"op": "add", "terms": vec![wide; (1 << 20) / one]}});
    vec![
        Case {
            name: "oneOf tree, depth 20, bad leaf",
            schema: adversarial::tree("oneOf"),
            instance: adversarial::chain(20, adversarial::bad_leaf()),
        },
        Case {
            name: "anyOf tree, depth 20, bad leaf",
            schema: adversarial::tree("anyOf"),
            instance: adversarial::chain(20, adversarial::bad_leaf()),
        },
        Case {
            name: "anyOf tree, depth 20, typo leaf",
            schema: adversarial::tree("anyOf"),
            instance: adversarial::chain(20, adversarial::typo_leaf()),
        },
        Case {
            name: "uniqueItems, colliding pairs, 256 KiB",
            schema: adversarial::unique(),
            instance: adversarial::colliding_pairs(256 << 10),
        },
        Case {
            name: "uniqueItems, colliding pairs, 1 MiB",
            schema: adversarial::unique(),
            instance: adversarial::colliding_pairs(1 << 20),
        },
        Case {
            name: "uniqueItems, colliding objects, 1 MiB",
            schema: adversarial::unique(),
            instance: adversarial::colliding_objects(1 << 20),
        },
        Case {
            name: "anyOf of two arrays, [{},...] 1 MiB",
            schema: adversarial::two_arrays(),
            instance: adversarial::wide_objects(1 << 20),
        },
        Case {
            name: "filter, failing, 1 MiB",
            schema: adversarial::filter(),
            instance: adversarial::wide_filter(1 << 20),
        },
        Case {
            name: "filter, valid, 1 MiB",
            schema: adversarial::filter(),
            instance: adversarial::valid_filter(1 << 20),
        },
        Case {
            name: "recursive enum, valid, 1 MiB",
            schema: expr,
            instance: expr_instance,
        },
    ]
}

fn startup() {
    println!("schema_adversarial, startup: a chain of N references under unevaluatedProperties (once each):");
    for n in [6, 8, 10, 12] {
        let raw = adversarial::unevaluated_chain(n);
        let t = Instant::now();
        let built = jsonschema::options()
            .with_draft(jsonschema::Draft::Draft202012)
            .build(&raw)
            .is_ok();
        let theirs = t.elapsed();
        let t = Instant::now();
        let ours = Schema::compile(&raw).is_ok();
        println!(
            "  N = {n:>2}: the jsonschema crate's validator built in {:>10.3} ms ({built}); Schema::compile {:>7.3} ms ({ours})",
            theirs.as_secs_f64() * 1e3,
            t.elapsed().as_secs_f64() * 1e3
        );
    }
}

fn in_process(cases: &[(Case, Schema)]) {
    println!("schema_adversarial, in process (bytes, steps, peak heap, median of 15):");
    for (case, schema) in cases {
        let mut budget = Budget::new(u64::MAX);
        let mark = heap_mark();
        let verdict = schema.validate_within(&case.instance, &mut budget);
        let heap = heap_peak_since(mark);
        let times: Vec<Duration> = (0..15)
            .map(|_| {
                let t = Instant::now();
                let _ = black_box(schema.validate(black_box(&case.instance)));
                t.elapsed()
            })
            .collect();
        println!(
            "  {:<40} {:>8} B  {:>9} steps  {:>9} B heap  {:>10.3} ms  {}",
            case.name,
            adversarial::bytes(&case.instance),
            budget.used(),
            heap,
            median(times).as_secs_f64() * 1e3,
            match &verdict {
                Ok(()) => "valid".to_owned(),
                Err(v) => format!("refused: {} at {:?}", v.keyword(), v.instance_path()),
            }
        );
    }
}

fn service() -> HttpService {
    let catalog = Catalog::new()
        .tool(ToolSpec::new("one_of", "Tree.").with_input_schema(adversarial::tree("oneOf")))
        .tool(ToolSpec::new("any_of", "Tree.").with_input_schema(adversarial::tree("anyOf")))
        .tool(ToolSpec::new("arrays", "Arrays.").with_input_schema(adversarial::two_arrays()))
        .tool(ToolSpec::new("unique", "Unique.").with_input_schema(adversarial::unique()))
        .tool(ToolSpec::new("ping", "Ping."));
    let config = ServerConfig::new(catalog)
        .dispatch(|_call: ToolCall| async move { Ok(ToolOutput::text("ok")) });
    HttpService::new(
        Server::new(config).expect("the bench catalog is valid"),
        |_| Ok(()),
        AllowedOrigins::list(["http://localhost"]),
    )
    .path("/mcp")
}

type Sender = hyper::client::conn::http1::SendRequest<Full<Bytes>>;

async fn connect(addr: SocketAddr) -> Sender {
    let io = TokioIo::new(TcpStream::connect(addr).await.expect("connects"));
    let (tx, conn) = hyper::client::conn::http1::handshake(io)
        .await
        .expect("handshake");
    tokio::spawn(conn);
    tx
}

fn frame(tool: &str, arguments: Value) -> Bytes {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": tool, "arguments": arguments,
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                  "io.modelcontextprotocol/clientCapabilities": {}}}});
    Bytes::from(body.to_string())
}

async fn round_trip(tx: &mut Sender, addr: SocketAddr, tool: &str, body: &Bytes) -> Value {
    let req = http::Request::post("/mcp")
        .header("host", addr.to_string())
        .header("content-type", "application/json")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", tool)
        .body(Full::new(body.clone()))
        .expect("a request");
    tx.ready().await.expect("the connection is open");
    let resp = tx.send_request(req).await.expect("answered");
    let bytes = resp.into_body().collect().await.expect("a body").to_bytes();
    serde_json::from_slice(&bytes).expect("JSON")
}

async fn over_http() {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("binds");
    let addr = listener.local_addr().expect("an address");
    tokio::spawn(serve(listener, service()));
    println!("schema_adversarial, over a real listener (HTTP/1.1, 127.0.0.1):");
    let mut tx = connect(addr).await;
    let inputs = [
        ("one_of", adversarial::chain(20, adversarial::bad_leaf())),
        ("any_of", adversarial::chain(20, adversarial::bad_leaf())),
        ("any_of", adversarial::chain(20, adversarial::typo_leaf())),
        // Just under the 1 MiB body cap, with the envelope.
        ("arrays", adversarial::wide_objects((1 << 20) - 4096)),
        ("unique", adversarial::colliding_pairs((1 << 20) - 4096)),
    ];
    for (tool, arguments) in inputs {
        let body = frame(tool, arguments);
        // Warm once, then measure memory on one request and time on 31.
        let _ = round_trip(&mut tx, addr, tool, &body).await;
        let rss_before = rss_mark();
        let mark = heap_mark();
        let answer = round_trip(&mut tx, addr, tool, &body).await;
        let heap = heap_peak_since(mark);
        let rss = rss_before
            .and_then(|before| status_kib("VmHWM:").map(|hwm| hwm.saturating_sub(before)));
        let mut times = Vec::new();
        for _ in 0..31 {
            let t = Instant::now();
            let _ = round_trip(&mut tx, addr, tool, &body).await;
            times.push(t.elapsed());
        }
        println!(
            "  {:<7} {:>8} B request  median {:>8.3} ms  peak RSS +{:>6} KiB  peak heap {:>9} B  {}",
            tool,
            body.len(),
            median(times).as_secs_f64() * 1e3,
            rss.map_or_else(|| "?".to_owned(), |k| k.to_string()),
            heap,
            answer["error"]["data"]["keyword"]
                .as_str()
                .map_or("served".to_owned(), |k| format!("refused: {k}")),
        );
    }

    let ping = frame("ping", json!({}));
    let alone = good_calls(&mut tx, addr, &ping).await;
    println!(
        "  a good call alone: median {:.3} ms",
        alone.as_secs_f64() * 1e3
    );
    let trees = [
        ("one_of", adversarial::chain(20, adversarial::bad_leaf())),
        ("any_of", adversarial::chain(20, adversarial::typo_leaf())),
    ];
    let pings = [("ping", json!({})), ("ping", json!({}))];
    let pairs = [
        ("unique", adversarial::colliding_pairs((1 << 20) - 4096)),
        ("unique", adversarial::colliding_pairs((1 << 20) - 4096)),
    ];
    for (what, loads) in [
        ("good calls (the baseline: two busy neighbours)", pings),
        ("depth-20 oneOf and anyOf trees", trees),
        ("1 MiB colliding pairs", pairs),
    ] {
        let stop = Arc::new(AtomicBool::new(false));
        let mut loops = Vec::new();
        for (tool, arguments) in loads {
            let stop = stop.clone();
            let body = frame(tool, arguments);
            loops.push(tokio::spawn(async move {
                let mut tx = connect(addr).await;
                let mut n = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    let _ = round_trip(&mut tx, addr, tool, &body).await;
                    n += 1;
                }
                n
            }));
        }
        let beside = good_calls(&mut tx, addr, &ping).await;
        stop.store(true, Ordering::Relaxed);
        let mut costly = 0;
        for l in loops {
            costly += l.await.unwrap_or(0);
        }
        println!(
            "  a good call beside two connections sending {what} in a loop: median {:.3} ms ({costly} of those answered meanwhile)",
            beside.as_secs_f64() * 1e3,
        );
    }
}

async fn good_calls(tx: &mut Sender, addr: SocketAddr, body: &Bytes) -> Duration {
    let mut times = Vec::new();
    for _ in 0..201 {
        let t = Instant::now();
        let v = round_trip(tx, addr, "ping", body).await;
        times.push(t.elapsed());
        assert_eq!(v["result"]["content"][0]["text"], "ok", "{v}");
    }
    median(times)
}

fn bench(c: &mut Criterion) {
    let compiled: Vec<(Case, Schema)> = cases()
        .into_iter()
        .map(|case| {
            let schema = Schema::compile(&case.schema).expect("the bench schema compiles");
            (case, schema)
        })
        .collect();
    startup();
    in_process(&compiled);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    rt.block_on(over_http());
    let mut group = c.benchmark_group("schema_adversarial");
    for (case, schema) in &compiled {
        group.bench_function(case.name, |b| {
            b.iter(|| schema.validate(black_box(&case.instance)))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
