//! A bounded soak of the supervised HTTP transport: good calls, refusals, panicking tools,
//! drip clients, idle connections and HTTP/2 resets, mixed, for `SOAK_SECS` seconds (default
//! 10; CI runs the default, `SOAK_SECS=600 cargo test --test soak_http` runs longer). After it:
//! every good call answered, resident memory and descriptors back near their start, no
//! connection task left. 127.0.0.1 only; every loop is bounded by the soak's deadline.
//!
//! A binary of its own, not a module of `tests/it`: it reads this process's resident memory and
//! open descriptors (`/proc/self`), which tests running beside it in one process would move, and
//! it installs a process-wide panic hook.
//!
//! Time is this test's subject: the soak runs for its duration, and the drip client's pauses
//! are its attack. Nothing else waits on a clock: a stream is reset once its `gate` call is
//! known to run, and the end of the connections, which has no event, is polled.

#[allow(dead_code)] // shared with `tests/it`; this binary uses part of it
#[path = "it/support/runtime_host.rs"]
mod host;

use beam_mcp::runtime::{Application, ApplicationConfig};
use beam_mcp::transport::http::{AllowedOrigins, HttpService, ServeOptions};
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper_util::rt::{TokioExecutor, TokioIo};
use serde_json::{json, Value};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

fn soak_for() -> Duration {
    let secs = std::env::var("SOAK_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(10);
    Duration::from_secs(secs)
}

fn rss_kib() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap();
    let pages: u64 = statm.split_whitespace().nth(1).unwrap().parse().unwrap();
    pages * 4
}

fn open_fds() -> usize {
    std::fs::read_dir("/proc/self/fd").unwrap().count()
}

fn call(tool: &str, args: Value) -> Vec<u8> {
    serde_json::to_vec(
        &json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
        "name": tool, "arguments": args,
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                  "io.modelcontextprotocol/clientCapabilities": {}}}}),
    )
    .unwrap()
}

fn request(addr: SocketAddr, tool: &str, body: Vec<u8>, h2: bool) -> http::Request<Full<Bytes>> {
    let b = if h2 {
        http::Request::post(format!("http://{addr}/mcp")).version(http::Version::HTTP_2)
    } else {
        http::Request::post("/mcp").header("host", addr.to_string())
    };
    b.header("content-type", "application/json")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", tool)
        .body(Full::new(Bytes::from(body)))
        .unwrap()
}

#[derive(Default)]
struct Tally {
    good: AtomicU64,
    refused: AtomicU64,
    panicked: AtomicU64,
    dripped: AtomicU64,
    idle: AtomicU64,
    reset: AtomicU64,
}

/// Good calls, refusals and panics over one keep-alive connection of either protocol, each
/// answer checked; a wrong answer fails the soak.
async fn caller(addr: SocketAddr, h2: bool, until: Instant, tally: Arc<Tally>, n: u64) {
    while Instant::now() < until {
        let io = TokioIo::new(TcpStream::connect(addr).await.unwrap());
        let send = |req| async {
            if h2 {
                let (mut tx, conn) =
                    hyper::client::conn::http2::handshake(TokioExecutor::new(), io)
                        .await
                        .unwrap();
                tokio::spawn(conn);
                (tx.send_request(req).await, Some(tx), None)
            } else {
                let (mut tx, conn) = hyper::client::conn::http1::handshake(io).await.unwrap();
                tokio::spawn(conn);
                (tx.send_request(req).await, None, Some(tx))
            }
        };
        let text = format!("soak {n}");
        let (first, mut h2tx, mut h1tx) = send(request(
            addr,
            "echo",
            call("echo", json!({"text": text})),
            h2,
        ))
        .await;
        check_echo(first.unwrap(), &text).await;
        tally.good.fetch_add(1, Ordering::Relaxed);
        // The same connection, 20 more exchanges of every kind.
        for i in 0..20u64 {
            let (tool, args) = match i % 4 {
                0 => ("echo", json!({"text": text})),
                1 => ("echo", json!({"text": 5})),
                2 => ("boom", json!({})),
                _ => ("nope", json!({})),
            };
            let req = request(addr, tool, call(tool, args), h2);
            let resp = match (&mut h2tx, &mut h1tx) {
                (Some(tx), _) => tx.send_request(req).await.unwrap(),
                (_, Some(tx)) => {
                    tx.ready().await.unwrap();
                    tx.send_request(req).await.unwrap()
                }
                _ => unreachable!(),
            };
            match i % 4 {
                0 => {
                    check_echo(resp, &text).await;
                    tally.good.fetch_add(1, Ordering::Relaxed);
                }
                2 => {
                    let v = json_of(resp).await;
                    assert_eq!(v["result"]["isError"], true, "{v}");
                    tally.panicked.fetch_add(1, Ordering::Relaxed);
                }
                _ => {
                    let v = json_of(resp).await;
                    assert_eq!(v["error"]["code"], -32602, "{v}");
                    tally.refused.fetch_add(1, Ordering::Relaxed);
                }
            }
        }
    }
}

async fn json_of(resp: http::Response<hyper::body::Incoming>) -> Value {
    let body = resp.into_body().collect().await.unwrap().to_bytes();
    serde_json::from_slice(&body).unwrap()
}

async fn check_echo(resp: http::Response<hyper::body::Incoming>, text: &str) {
    assert_eq!(resp.status().as_u16(), 200);
    let v = json_of(resp).await;
    assert_eq!(v["result"]["content"][0]["text"], text, "{v}");
}

/// A body that comes one byte at a time and never completes: 408 at the read deadline.
async fn dripper(addr: SocketAddr, until: Instant, tally: Arc<Tally>) {
    while Instant::now() < until {
        let mut s = TcpStream::connect(addr).await.unwrap();
        let head = format!(
            "POST /mcp HTTP/1.1\r\nhost: {addr}\r\ncontent-type: application/json\r\n\
             mcp-protocol-version: 2026-07-28\r\nmcp-method: tools/list\r\ncontent-length: 500\r\n\r\n"
        );
        s.write_all(head.as_bytes()).await.unwrap();
        let mut out = Vec::new();
        let mut buf = [0u8; 1024];
        loop {
            tokio::select! {
                n = s.read(&mut buf) => match n {
                    Ok(0) | Err(_) => break,
                    Ok(n) => out.extend_from_slice(&buf[..n]),
                },
                // The drip's slowness is the attack: the subject of this client.
                () = tokio::time::sleep(Duration::from_millis(50)), if out.is_empty() => {
                    if s.write_all(b" ").await.is_err() { break; }
                }
            }
        }
        // The server answers 408 and closes; a drip byte racing the close can make the kernel
        // reset the socket before the answer is read. Either way the connection ended.
        let text = String::from_utf8_lossy(&out);
        assert!(
            text.is_empty() || text.starts_with("HTTP/1.1 408"),
            "{text}"
        );
        tally.dripped.fetch_add(1, Ordering::Relaxed);
    }
}

/// Connections that never send a byte: closed at the first-byte deadline.
async fn idler(addr: SocketAddr, until: Instant, tally: Arc<Tally>) {
    while Instant::now() < until {
        let mut s = TcpStream::connect(addr).await.unwrap();
        let mut buf = [0u8; 16];
        let n = tokio::time::timeout(Duration::from_secs(10), s.read(&mut buf))
            .await
            .expect("an idle connection is closed by the server");
        assert!(matches!(n, Ok(0) | Err(_)), "{n:?}");
        tally.idle.fetch_add(1, Ordering::Relaxed);
    }
}

/// HTTP/2 requests abandoned in flight (the client resets the stream): each a `gate` call,
/// reset once it is known to run, then released (a call already cancelled is not waited for).
async fn resetter(addr: SocketAddr, until: Instant, tally: Arc<Tally>, mut gate: host::Gate) {
    while Instant::now() < until {
        let io = TokioIo::new(TcpStream::connect(addr).await.unwrap());
        let (mut tx, conn) = hyper::client::conn::http2::handshake(TokioExecutor::new(), io)
            .await
            .unwrap();
        let driver = tokio::spawn(conn);
        for _ in 0..10 {
            let req = request(addr, "gate", call("gate", json!({})), true);
            let pending = tx.send_request(req);
            let running = gate.started().await;
            drop(pending); // RST_STREAM(CANCEL)
            running.release();
            tally.reset.fetch_add(1, Ordering::Relaxed);
        }
        drop(tx);
        let _ = tokio::time::timeout(Duration::from_secs(5), driver).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_mixed_soak_leaves_nothing_behind() {
    // Thousands of injected panics: keep their reports out of the log, keep any other.
    let report = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if !info.to_string().contains("injected host panic") {
            report(info);
        }
    }));
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let service = HttpService::new(host::server(), |_| Ok(()), AllowedOrigins::Any)
        .path("/mcp")
        .read_timeout(Duration::from_millis(300));
    let options = ServeOptions {
        header_read_timeout: Duration::from_millis(500),
        idle_timeout: Duration::from_secs(2),
        write_timeout: Duration::from_secs(2),
    };
    let config = ApplicationConfig::new()
        .workers(4)
        .queue(4096)
        .deadline(Duration::from_secs(5))
        .http(listener, service, options);
    let (server, gate) = host::gated();
    let rt = Application::start(server, config).await.unwrap();

    // Warm up once so that what the first connections allocate for good is in the baseline.
    let warm = Arc::new(Tally::default());
    caller(addr, false, Instant::now(), warm.clone(), 0).await;
    caller(addr, true, Instant::now(), warm, 0).await;
    // A poll: the count of open connections has no event.
    assert!(
        host::eventually(Duration::from_secs(10), || async {
            rt.http_connections() == 0
        })
        .await
    );
    let (rss0, fds0) = (rss_kib(), open_fds());

    let until = Instant::now() + soak_for();
    let tally = Arc::new(Tally::default());
    let mut tasks = Vec::new();
    for n in 0..8u64 {
        tasks.push(tokio::spawn(caller(
            addr,
            n % 2 == 0,
            until,
            tally.clone(),
            n,
        )));
    }
    for _ in 0..2 {
        tasks.push(tokio::spawn(dripper(addr, until, tally.clone())));
    }
    for _ in 0..16 {
        tasks.push(tokio::spawn(idler(addr, until, tally.clone())));
    }
    tasks.push(tokio::spawn(resetter(addr, until, tally.clone(), gate)));
    for t in tasks {
        tokio::time::timeout(soak_for() + Duration::from_secs(30), t)
            .await
            .expect("every soak task ends")
            .unwrap();
    }

    // Nothing left: the connection tasks end, the pool is empty, memory and descriptors return.
    // A poll: the count of open connections has no event.
    assert!(
        host::eventually(Duration::from_secs(15), || async {
            rt.http_connections() == 0
        })
        .await,
        "connections left behind"
    );
    let stats = rt.pool_stats();
    let (rss1, fds1) = (rss_kib(), open_fds());
    let t = &*tally;
    eprintln!(
        "soak {:?}: {} good, {} refused, {} panicked, {} dripped, {} idle, {} reset; \
         pool completed {} panics {} restarts {}; RSS {rss0} -> {rss1} KiB, fds {fds0} -> {fds1}",
        soak_for(),
        t.good.load(Ordering::Relaxed),
        t.refused.load(Ordering::Relaxed),
        t.panicked.load(Ordering::Relaxed),
        t.dripped.load(Ordering::Relaxed),
        t.idle.load(Ordering::Relaxed),
        t.reset.load(Ordering::Relaxed),
        stats.completed,
        stats.panics,
        stats.worker_restarts,
    );
    assert!(t.good.load(Ordering::Relaxed) > 0 && t.dripped.load(Ordering::Relaxed) > 0);
    assert!(t.idle.load(Ordering::Relaxed) > 0 && t.reset.load(Ordering::Relaxed) > 0);
    assert!(fds1 <= fds0 + 2, "descriptors: {fds0} -> {fds1}");
    assert!(rss1 <= rss0 + 32 * 1024, "resident: {rss0} -> {rss1} KiB");
    rt.stop(Duration::from_secs(10)).await.unwrap();
}
