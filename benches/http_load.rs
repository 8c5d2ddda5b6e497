//! Load driver for the stateless Streamable HTTP transport, over real loopback sockets.
//!
//! `cargo bench --bench http_load` measures, against one in-process listener on 127.0.0.1:
//! - `tools/call` requests/s and p50/p99 latency at concurrency 1, 16 and 64, each caller on
//!   its own HTTP/1.1 keep-alive connection;
//! - resident memory per in-flight cap-sized request, over HTTP/1.1 and over h2c separately:
//!   200 requests each declare a 1 MiB body and send all but its last byte, so the server holds
//!   200 bodies at the cap at once: on HTTP/1.1 one connection per request, on h2c 200 streams
//!   of one connection (`MAX_CONCURRENT_STREAMS`). Each protocol is measured in a fresh process
//!   of its own (this binary, run again with `--memory http1` or `--memory h2c`), so that memory
//!   the allocator kept from the throughput runs or from the other protocol is not reused and
//!   the figure is what the held requests add to a server that has served nothing: resident
//!   memory (`VmRSS`) once it stops growing, minus what it was before, over 200. The client in
//!   that process sends one shared 64 KiB chunk over and over and holds no copy of a body.
//!
//! Every loop is bounded by time and count, and the process exits by itself.

use beam_mcp::transport::http::{serve, AllowedOrigins, HttpService};
use beam_mcp::{Catalog, Server, ServerConfig, ToolOutput, ToolSpec};
use bytes::Bytes;
use http::Request;
use http_body_util::channel::Channel;
use http_body_util::{BodyExt, Full};
use hyper_util::rt::{TokioExecutor, TokioIo};
use serde_json::json;
use std::convert::Infallible;
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

/// The protocol a memory run holds its requests over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Proto {
    /// One HTTP/1.1 connection per request.
    Http1,
    /// One h2c connection, one stream per request.
    H2c,
}

impl Proto {
    const ALL: [Proto; 2] = [Proto::Http1, Proto::H2c];

    fn arg(self) -> &'static str {
        match self {
            Proto::Http1 => "http1",
            Proto::H2c => "h2c",
        }
    }

    fn describe(self) -> &'static str {
        match self {
            Proto::Http1 => "HTTP/1.1, one connection per request",
            Proto::H2c => "h2c, one connection, one stream per request",
        }
    }
}

/// `INFLIGHT` HTTP/1.1 connections, each having declared a cap-sized body and sent all of it
/// but its last byte.
async fn hold_http1(addr: SocketAddr, chunk: &Bytes) -> Vec<TcpStream> {
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
    held
}

/// `INFLIGHT` streams of one h2c connection, each having declared a cap-sized body and sent
/// all of it but its last byte (slices of one shared chunk: the client copies nothing). The
/// tasks returned keep the connection and its streams open; the first `INFLIGHT` of them
/// await the streams' answers.
async fn hold_h2c(addr: SocketAddr, chunk: &Bytes) -> Vec<tokio::task::JoinHandle<()>> {
    let stream = TcpStream::connect(addr).await.expect("connect");
    let (mut send, conn) =
        hyper::client::conn::http2::handshake(TokioExecutor::new(), TokioIo::new(stream))
            .await
            .expect("h2c handshake");
    let mut answers = Vec::with_capacity(INFLIGHT);
    let mut feeders = Vec::with_capacity(INFLIGHT + 1);
    feeders.push(tokio::spawn(async move {
        let _ = conn.await;
    }));
    let mut fed = Vec::with_capacity(INFLIGHT);
    for _ in 0..INFLIGHT {
        let (mut body, channel) = Channel::<Bytes, Infallible>::new(1);
        let req = Request::post(format!("http://{addr}/mcp"))
            .version(http::Version::HTTP_2)
            .header("content-type", "application/json")
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", "tools/call")
            .header("content-length", CAP)
            .body(channel)
            .expect("valid request");
        send.ready().await.expect("a stream slot");
        // Dispatched at once; its answer (a 408 at the read deadline) is awaited by its own
        // task, which keeps the stream open, and never arrives before the measurement.
        let answer = send.send_request(req);
        answers.push(tokio::spawn(async move {
            let _ = answer.await;
        }));
        let chunk = chunk.clone();
        let (done, fed_all) = tokio::sync::oneshot::channel();
        fed.push(fed_all);
        feeders.push(tokio::spawn(async move {
            let mut sent = 0;
            while sent < CAP - 1 {
                let n = chunk.len().min(CAP - 1 - sent);
                body.send_data(chunk.slice(..n)).await.expect("stream open");
                sent += n;
            }
            let _ = done.send(());
            // The body's sender is kept: its stream never ends.
            std::future::pending::<()>().await;
        }));
    }
    for f in fed {
        f.await.expect("feeder");
    }
    answers.extend(feeders);
    answers
}

/// Resident memory once it has stopped growing: sampled every 100 ms until it grew by less
/// than 0.5 % over the last second, or 30 s passed.
async fn settled_rss_kib() -> (u64, Duration) {
    let started = Instant::now();
    let mut samples = vec![rss_kib()];
    loop {
        tokio::time::sleep(Duration::from_millis(100)).await;
        samples.push(rss_kib());
        let n = samples.len();
        let (then, now) = (samples[n.saturating_sub(11)], samples[n - 1]);
        let still = n > 10 && now.saturating_sub(then) * 200 < now;
        if still || started.elapsed() > Duration::from_secs(30) {
            return (now, started.elapsed());
        }
    }
}

/// One memory run, in a fresh process: a listener of its own, `INFLIGHT` cap-sized requests
/// held over `proto`, and what they added to resident memory.
async fn memory_per_inflight(proto: Proto) {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    // A deadline past the measurement: the held requests must still be held when it is taken.
    tokio::spawn(serve(
        listener,
        service().read_timeout(Duration::from_secs(120)),
    ));
    let chunk = Bytes::from(vec![b' '; 64 * 1024]);
    let before = rss_kib();
    // A request answered before the measurement (refused, say) would hold nothing: each is
    // checked to be unanswered once the figure is taken.
    let (after, waited) = match proto {
        Proto::Http1 => {
            let held = hold_http1(addr, &chunk).await;
            let settled = settled_rss_kib().await;
            for s in &held {
                let unanswered = matches!(
                    s.try_read(&mut [0u8; 1]),
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock
                );
                assert!(unanswered, "a held HTTP/1.1 request was answered or closed");
            }
            settled
        }
        Proto::H2c => {
            let held = hold_h2c(addr, &chunk).await;
            let settled = settled_rss_kib().await;
            let answered = held[..INFLIGHT].iter().filter(|a| a.is_finished()).count();
            assert_eq!(answered, 0, "held h2c requests were answered");
            settled
        }
    };
    let per = (after.saturating_sub(before)) as f64 / INFLIGHT as f64 / 1024.0;
    println!(
        "resident memory per in-flight cap-sized request, {}: {per:.2} MiB ({INFLIGHT} in flight, RSS {before} -> {after} KiB, settled {:.1} s after the last byte was handed over)",
        proto.describe(),
        waited.as_secs_f64()
    );
}

/// Runs this binary again for each protocol's memory run, one fresh process each.
fn memory_runs() {
    println!();
    let exe = std::env::current_exe().expect("own path");
    for proto in Proto::ALL {
        let status = std::process::Command::new(&exe)
            .args(["--bench", "--memory", proto.arg()])
            .status()
            .expect("run the memory measurement");
        assert!(status.success(), "{proto:?} memory run: {status}");
    }
}

fn main() {
    // `cargo test --benches` runs benches with `--bench`-less args; only measure under cargo bench.
    let args: Vec<String> = std::env::args().collect();
    if !args.iter().any(|a| a == "--bench") {
        println!("http_load: run with `cargo bench --bench http_load`");
        return;
    }
    let memory = args.iter().position(|a| a == "--memory").map(|i| {
        match args.get(i + 1).map(String::as_str) {
            Some("http1") => Proto::Http1,
            Some("h2c") => Proto::H2c,
            other => panic!("--memory takes http1 or h2c, not {other:?}"),
        }
    });
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    if let Some(proto) = memory {
        rt.block_on(memory_per_inflight(proto));
        return;
    }
    rt.block_on(async {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("addr");
        tokio::spawn(serve(listener, service()));
        throughput(addr).await;
    });
    drop(rt);
    memory_runs();
}
