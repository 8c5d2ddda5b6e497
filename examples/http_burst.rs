//! Resident memory of the `weather` example after bursts of simultaneous h2c connections, and
//! after the same number of connections opened one at a time, over 127.0.0.1.
//!
//! ```text
//! cargo build --release --example weather --example http_burst
//! target/release/examples/http_burst [CONNECTIONS] [ROUNDS]     # defaults 2000, 10
//! ```
//!
//! Starts `weather --http 127.0.0.1:PORT` (the binary beside this one), then per round opens
//! CONNECTIONS connections at once, each an HTTP/2 prior-knowledge handshake and one
//! `tools/list`, holds them until every one has its answer, closes them all, waits for the
//! server to let go of them and reads the server's VmRSS from /proc. Then as many connections
//! one after another. Bounded: every connection and answer has a 10 s deadline, and the server
//! is killed at the end. Set `MALLOC_ARENA_MAX` in the environment to pass it to the server.

use std::net::SocketAddr;
use std::process::{Child, Command, ExitCode, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper_util::rt::{TokioExecutor, TokioIo};
use tokio::net::TcpStream;
use tokio::time::timeout;

const DEADLINE: Duration = Duration::from_secs(10);

fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

fn open_fds(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd")).map_or(0, |d| d.count())
}

/// One connection: h2c handshake, one `tools/list`, held open until `release` fires.
async fn connect(
    addr: SocketAddr,
    release: tokio::sync::watch::Receiver<bool>,
    settled: Arc<AtomicUsize>,
) -> Result<(), String> {
    let answered = up(addr).await;
    settled.fetch_add(1, Ordering::SeqCst);
    let (send, driver) = answered?;
    let mut release = release;
    // Held until every connection of the burst is answered (or has failed).
    let _ = timeout(DEADLINE, release.wait_for(|r| *r)).await;
    drop(send);
    driver.abort();
    Ok(())
}

type Held = (
    hyper::client::conn::http2::SendRequest<Full<Bytes>>,
    tokio::task::JoinHandle<Result<(), hyper::Error>>,
);

async fn up(addr: SocketAddr) -> Result<Held, String> {
    let stream = timeout(DEADLINE, TcpStream::connect(addr))
        .await
        .map_err(|_| "connect timed out".to_owned())?
        .map_err(|e| format!("connect: {e}"))?;
    let (mut send, conn) =
        hyper::client::conn::http2::handshake(TokioExecutor::new(), TokioIo::new(stream))
            .await
            .map_err(|e| format!("handshake: {e:?}"))?;
    let driver = tokio::spawn(conn);
    let body = br#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    let req = http::Request::post(format!("http://{addr}/mcp"))
        .version(http::Version::HTTP_2)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/list")
        .body(Full::new(Bytes::from_static(body)))
        .map_err(|e| e.to_string())?;
    let response = timeout(DEADLINE, send.send_request(req))
        .await
        .map_err(|_| "answer timed out".to_owned())?
        .map_err(|e| format!("request: {e:?}"))?;
    if !response.status().is_success() {
        return Err(format!("status {}", response.status()));
    }
    timeout(DEADLINE, response.into_body().collect())
        .await
        .map_err(|_| "body timed out".to_owned())?
        .map_err(|e| format!("body: {e}"))?;
    Ok((send, driver))
}

/// Waits (bounded) for the server's descriptor count to come back to `baseline`.
async fn settle(pid: u32, baseline: usize) {
    let until = Instant::now() + DEADLINE;
    while open_fds(pid) > baseline + 2 && Instant::now() < until {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
}

fn mib(kib: u64) -> String {
    format!("{:.1}", kib as f64 / 1024.0)
}

fn spawn_weather(addr: SocketAddr) -> Result<Child, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let weather = exe.with_file_name("weather");
    Command::new(&weather)
        .args(["--http", &addr.to_string()])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| {
            format!(
                "{}: {e} (build it: cargo build --release --example weather)",
                weather.display()
            )
        })
}

#[tokio::main]
async fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let connections: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(2000);
    let rounds: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(10);
    let port = match std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()) {
        Ok(a) => a.port(),
        Err(e) => {
            eprintln!("http_burst: {e}");
            return ExitCode::FAILURE;
        }
    };
    let addr = SocketAddr::from(([127, 0, 0, 1], port));
    let mut child = match spawn_weather(addr) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("http_burst: {e}");
            return ExitCode::FAILURE;
        }
    };
    let pid = child.id();
    let code = run(addr, pid, connections, rounds).await;
    let _ = child.kill();
    let _ = child.wait();
    code
}

async fn run(addr: SocketAddr, pid: u32, connections: usize, rounds: usize) -> ExitCode {
    let up = Instant::now() + DEADLINE;
    while TcpStream::connect(addr).await.is_err() {
        if Instant::now() > up {
            eprintln!("http_burst: weather did not listen on {addr}");
            return ExitCode::FAILURE;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    let baseline_fds = open_fds(pid);
    let start = rss_kib(pid).unwrap_or(0);
    println!("weather pid {pid}, {connections} connections per burst, {rounds} rounds");
    println!("start: RSS {} MiB", mib(start));
    let mut failures = 0usize;
    for round in 1..=rounds {
        let (tx, rx) = tokio::sync::watch::channel(false);
        let settled = Arc::new(AtomicUsize::new(0));
        let t = Instant::now();
        let tasks: Vec<_> = (0..connections)
            .map(|_| tokio::spawn(connect(addr, rx.clone(), Arc::clone(&settled))))
            .collect();
        // Every connection answered (or failed) before any is let go.
        let peak_wait = Instant::now() + DEADLINE;
        let mut peak = 0;
        while Instant::now() < peak_wait && settled.load(Ordering::SeqCst) < connections {
            peak = peak.max(rss_kib(pid).unwrap_or(0));
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        peak = peak.max(rss_kib(pid).unwrap_or(0));
        let held = open_fds(pid).saturating_sub(baseline_fds);
        let _ = tx.send(true);
        let mut failed = 0;
        for task in tasks {
            match task.await {
                Ok(Ok(())) => {}
                Ok(Err(e)) => {
                    failed += 1;
                    if failed <= 2 {
                        eprintln!("connection failed: {e}");
                    }
                }
                Err(e) => {
                    failed += 1;
                    eprintln!("connection task: {e}");
                }
            }
        }
        failures += failed;
        settle(pid, baseline_fds).await;
        let after = rss_kib(pid).unwrap_or(0);
        println!(
            "burst {round}: {held} connections held at once, {failed} failed; peak RSS {} MiB, after close {} MiB ({} ms)",
            mib(peak),
            mib(after),
            t.elapsed().as_millis()
        );
    }
    let (tx, rx) = tokio::sync::watch::channel(true);
    let t = Instant::now();
    let settled = Arc::new(AtomicUsize::new(0));
    for _ in 0..connections {
        if let Err(e) = connect(addr, rx.clone(), Arc::clone(&settled)).await {
            failures += 1;
            eprintln!("sequential connection failed: {e}");
        }
    }
    drop(tx);
    settle(pid, baseline_fds).await;
    println!(
        "sequential {connections}: after close {} MiB ({} ms)",
        mib(rss_kib(pid).unwrap_or(0)),
        t.elapsed().as_millis()
    );
    // A burst larger than the listener's accept backlog (tokio's default, 1024) may see some
    // connections reset by the kernel before the server accepts them: counted, not fatal.
    println!("{failures} connections failed in all");
    ExitCode::SUCCESS
}
