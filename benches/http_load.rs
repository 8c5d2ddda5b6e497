//! Load driver for the stateless Streamable HTTP transport, over real loopback sockets.
//!
//! `cargo bench --bench http_load` measures, against one in-process listener on 127.0.0.1:
//! - `tools/call` requests/s and p50/p99 latency at concurrency 1, 16 and 64, each caller on
//!   its own HTTP/1.1 keep-alive connection;
//! - resident memory per in-flight cap-sized request: N connections each declare a 1 MiB body
//!   and send all but its last byte, so the server holds N bodies at the cap at once.
//!
//! Every loop is bounded by time and count, and the process exits by itself.

use beam_mcp::transport::http::{serve, AllowedOrigins, HttpService};
use beam_mcp::{Catalog, Server, ServerConfig, ToolOutput, ToolSpec};
use bytes::Bytes;
use http::Request;
use http_body_util::{BodyExt, Full};
use hyper_util::rt::TokioIo;
use serde_json::json;
use std::net::SocketAddr;
use std::time::{Duration, Instant};
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};

const RUN_FOR: Duration = Duration::from_secs(3);
const MAX_REQUESTS_PER_CALLER: usize = 200_000;
const INFLIGHT: usize = 200;
const CAP: usize = 1024 * 1024;

fn service() -> HttpService {
    let catalog = Catalog::new().tool(ToolSpec::new("get_weather", "Weather.").with_input_schema(
        json!({
            "type":"object","properties":{"place":{"type":"string"}},"required":["place"]
        }),
    ));
    let server = Server::new(
        ServerConfig::new(catalog).dispatch(|_c| async { Ok(ToolOutput::text("12°C")) }),
    )
    .expect("valid catalog");
    // The bench accepts every caller and origin: it measures the transport, not a policy.
    HttpService::new(server, |_| Ok(()), AllowedOrigins::Any).path("/mcp")
}

const BODY: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_weather","arguments":{"place":"Oslo"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;

fn request(addr: SocketAddr) -> Request<Full<Bytes>> {
    Request::post("/mcp")
        .header("host", addr.to_string())
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", "get_weather")
        .body(Full::new(Bytes::from_static(BODY.as_bytes())))
        .expect("valid request")
}

async fn caller(addr: SocketAddr, until: Instant) -> Vec<Duration> {
    let stream = TcpStream::connect(addr).await.expect("connect");
    stream.set_nodelay(true).ok();
    let (mut send, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .expect("handshake");
    tokio::spawn(conn);
    let mut latencies = Vec::new();
    while Instant::now() < until && latencies.len() < MAX_REQUESTS_PER_CALLER {
        let started = Instant::now();
        let resp = send.send_request(request(addr)).await.expect("response");
        assert_eq!(resp.status(), 200);
        let body = resp.into_body().collect().await.expect("body").to_bytes();
        assert!(body.starts_with(b"{\"jsonrpc\""));
        latencies.push(started.elapsed());
    }
    latencies
}

fn rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

async fn throughput(addr: SocketAddr) {
    println!("| concurrency | requests/s | p50 | p99 |");
    println!("|---|---|---|---|");
    for concurrency in [1usize, 16, 64] {
        let started = Instant::now();
        let until = started + RUN_FOR;
        let tasks: Vec<_> = (0..concurrency)
            .map(|_| tokio::spawn(caller(addr, until)))
            .collect();
        let mut all = Vec::new();
        for t in tasks {
            all.extend(t.await.expect("caller"));
        }
        let elapsed = started.elapsed().as_secs_f64();
        all.sort();
        let pct = |p: f64| all[((all.len() as f64 * p) as usize).min(all.len() - 1)];
        println!(
            "| {concurrency} | {:.0} | {:.0} µs | {:.0} µs |",
            all.len() as f64 / elapsed,
            pct(0.50).as_secs_f64() * 1e6,
            pct(0.99).as_secs_f64() * 1e6
        );
    }
}

async fn memory_per_inflight(addr: SocketAddr) {
    let chunk = vec![b' '; 64 * 1024];
    let before = rss_kib();
    let mut held = Vec::with_capacity(INFLIGHT);
    for _ in 0..INFLIGHT {
        let mut s = TcpStream::connect(addr).await.expect("connect");
        let head = format!(
            "POST /mcp HTTP/1.1\r\nhost: {addr}\r\ncontent-type: application/json\r\nmcp-protocol-version: 2026-07-28\r\nmcp-method: tools/call\r\ncontent-length: {CAP}\r\n\r\n"
        );
        s.write_all(head.as_bytes()).await.expect("head");
        let mut sent = 0;
        while sent < CAP - 1 {
            let n = chunk.len().min(CAP - 1 - sent);
            s.write_all(&chunk[..n]).await.expect("body");
            sent += n;
        }
        held.push(s);
    }
    // Let the server drain the sockets into its buffers.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let after = rss_kib();
    let per = (after.saturating_sub(before)) as f64 / INFLIGHT as f64 / 1024.0;
    println!("\nresident memory per in-flight cap-sized request: {per:.2} MiB ({INFLIGHT} in flight, RSS {before} -> {after} KiB)");
    drop(held);
}

fn main() {
    // `cargo test --benches` runs benches with `--bench`-less args; only measure under cargo bench.
    if !std::env::args().any(|a| a == "--bench") {
        println!("http_load: run with `cargo bench --bench http_load`");
        return;
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("addr");
        tokio::spawn(serve(listener, service()));
        throughput(addr).await;
        memory_per_inflight(addr).await;
    });
}
