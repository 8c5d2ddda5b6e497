//! Runtime faults found by a review lane, held as tests: requests in flight across a runtime
//! stop, a catalog crash and transport restarts are answered; one transport's shutdown does
//! not stall another; a stopped HTTP transport stops its connections; the deadline counts the
//! queue; 500 concurrent connections. 127.0.0.1 only, bounded loops and timeouts.

use crate::support::runtime_host as host;

use beam_mcp::runtime::{Application, ApplicationConfig, CATALOG, HTTP, STDIO};
use beam_mcp::transport::http::{AllowedOrigins, HttpService, ServeOptions};
use beam_mcp::transport::stdio::StdioOptions;
use serde_json::{json, Value};
use std::net::SocketAddr;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

const LIMIT: Duration = Duration::from_secs(20);

fn http_config(config: ApplicationConfig) -> (ApplicationConfig, SocketAddr) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let service = HttpService::new(host::server(), |_| Ok(()), AllowedOrigins::Any).path("/mcp");
    let options = ServeOptions {
        header_read_timeout: Duration::from_secs(5),
        idle_timeout: Duration::from_secs(5),
        ..Default::default()
    };
    (config.http(listener, service, options), addr)
}

fn request(addr: SocketAddr, tool: &str, args: Value, close: bool) -> Vec<u8> {
    let body = json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{
        "name": tool, "arguments": args,
        "_meta": {"io.modelcontextprotocol/protocolVersion":"2026-07-28",
                  "io.modelcontextprotocol/clientCapabilities":{}}}});
    let body = serde_json::to_vec(&body).unwrap();
    let mut req = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: {tool}\r\n\
         Content-Length: {}\r\n{}\r\n",
        body.len(),
        if close { "Connection: close\r\n" } else { "" }
    )
    .into_bytes();
    req.extend(body);
    req
}

/// Reads one HTTP/1.1 response (Content-Length framed). `Err` text on EOF/reset before it.
async fn read_response(s: &mut TcpStream) -> Result<String, String> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&buf[..end]).to_lowercase();
            let len: usize = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .map(|v| v.trim().parse().unwrap())
                .unwrap_or(0);
            if buf.len() >= end + 4 + len {
                return Ok(String::from_utf8_lossy(&buf[..end + 4 + len]).into_owned());
            }
        }
        match s.read(&mut chunk).await {
            Ok(0) => return Err(format!("EOF after {} bytes", buf.len())),
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
            Err(e) => return Err(format!("read error: {e}")),
        }
    }
}

async fn post(addr: SocketAddr, tool: &str, args: Value) -> Result<String, String> {
    let mut s = TcpStream::connect(addr).await.map_err(|e| e.to_string())?;
    s.write_all(&request(addr, tool, args, true))
        .await
        .map_err(|e| e.to_string())?;
    read_response(&mut s).await
}

/// Runtime stop with an HTTP request in flight: the request should be answered (as stdio
/// does: "answer what is in flight, then close"), not dropped with the connection.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn http_request_in_flight_survives_runtime_stop() {
    let (config, addr) = http_config(ApplicationConfig::new().workers(2));
    let rt = Application::start(host::server(), config).await.unwrap();
    let call = tokio::spawn(post(addr, "slow", json!({"ms": 1000})));
    assert!(
        host::eventually(LIMIT, || async {
            rt.pool_stats().completed == 0 && rt.http_connections() == 1
        })
        .await
    );
    tokio::time::sleep(Duration::from_millis(200)).await;
    rt.stop(LIMIT).await.unwrap();
    let got = tokio::time::timeout(LIMIT, call).await.unwrap().unwrap();
    assert!(
        got.is_ok(),
        "in-flight HTTP request lost at runtime stop: {got:?}"
    );
}

/// A catalog actor crash restarts everything after it (rest_for_one), transports included:
/// an HTTP request in flight must still get an answer or a JSON-RPC error.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn http_request_in_flight_survives_catalog_crash() {
    let (config, addr) = http_config(ApplicationConfig::new().workers(2));
    let rt = Application::start(host::server(), config).await.unwrap();
    let call = tokio::spawn(post(addr, "slow", json!({"ms": 1000})));
    assert!(host::eventually(LIMIT, || async { rt.http_connections() == 1 }).await);
    tokio::time::sleep(Duration::from_millis(200)).await;
    let catalog = rt
        .root()
        .which_children()
        .await
        .unwrap()
        .into_iter()
        .find(|c| c.id == CATALOG)
        .unwrap()
        .cell
        .unwrap();
    catalog.kill();
    let got = tokio::time::timeout(LIMIT, call).await.unwrap().unwrap();
    let _ = rt.stop(LIMIT).await;
    assert!(
        got.is_ok(),
        "in-flight HTTP request lost at catalog crash: {got:?}"
    );
}

/// stop_transport(HTTP) stops the HTTP transport and its keep-alive connections with it (they
/// once outlived the listener as its siblings under `transports`).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn stop_transport_http_stops_its_connections() {
    let (config, addr) = http_config(ApplicationConfig::new().workers(2));
    let rt = Application::start(host::server(), config).await.unwrap();
    let mut s = TcpStream::connect(addr).await.unwrap();
    s.write_all(&request(addr, "echo", json!({"text":"a"}), false))
        .await
        .unwrap();
    read_response(&mut s).await.unwrap();
    rt.stop_transport(HTTP).await.unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    let open = rt.http_connections();
    s.write_all(&request(addr, "echo", json!({"text":"after stop"}), false))
        .await
        .ok();
    let after = tokio::time::timeout(Duration::from_secs(3), read_response(&mut s)).await;
    let _ = rt.stop(LIMIT).await;
    assert_eq!(open, 0, "connections outlive the stopped listener");
    assert!(
        !matches!(after, Ok(Ok(ref r)) if r.contains("after stop")),
        "a stopped HTTP transport still serves: {after:?}"
    );
}

/// Stopping the stdio transport (it waits for its in-flight work) must not stall the HTTP
/// transport: the stop occupies the transports supervisor, and the accept loop once awaited
/// a `start_child` of it for every connection (it now sends no message on accept at all).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn stopping_stdio_does_not_stall_http_accepts() {
    let (connect, clients) = host::connector();
    let (config, addr) = http_config(
        ApplicationConfig::new()
            .workers(2)
            .deadline(Duration::from_secs(10))
            .stdio(connect, StdioOptions::default()),
    );
    let rt = Application::start(host::server(), config).await.unwrap();
    let client = clients.lock().unwrap().remove(0);
    let (mut cr, mut cw) = tokio::io::split(client);
    let mut frame = host::call_frame(1, "slow", json!({"ms": 4000}));
    frame.push(b'\n');
    cw.write_all(&frame).await.unwrap();
    let reader = tokio::spawn(async move {
        let mut v = Vec::new();
        let _ = cr.read_to_end(&mut v).await;
        v
    });
    tokio::time::sleep(Duration::from_millis(200)).await;
    let rt2 = rt.clone();
    let stopper = tokio::spawn(async move { rt2.stop_transport(STDIO).await });
    tokio::time::sleep(Duration::from_millis(200)).await;
    let t0 = Instant::now();
    let r = tokio::time::timeout(LIMIT, post(addr, "echo", json!({"text": "x"}))).await;
    let took = t0.elapsed();
    let _ = stopper.await;
    drop(cw);
    let _ = reader.await;
    let _ = rt.stop(LIMIT).await;
    assert!(matches!(r, Ok(Ok(_))), "{r:?}");
    assert!(
        took < Duration::from_secs(1),
        "HTTP echo took {took:?} while stdio was stopping"
    );
}

/// 500 concurrent connections to the runtime listener: all answered in bounded time, and
/// every connection task ends afterwards.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn flood_of_500_connections() {
    let (config, addr) = http_config(ApplicationConfig::new().workers(4).queue(2048));
    let rt = Application::start(host::server(), config).await.unwrap();
    let t0 = Instant::now();
    let calls: Vec<_> = (0..500)
        .map(|i| {
            tokio::spawn(async move {
                tokio::time::timeout(LIMIT, post(addr, "echo", json!({"text": format!("{i}")})))
                    .await
            })
        })
        .collect();
    let mut ok = 0;
    let mut errs = Vec::new();
    for c in calls {
        match c.await.unwrap() {
            Ok(Ok(r)) if r.starts_with("HTTP/1.1 200") => ok += 1,
            other => errs.push(format!("{other:?}")),
        }
    }
    let took = t0.elapsed();
    assert!(took < LIMIT, "{took:?}");
    let drained = host::eventually(LIMIT, || async { rt.http_connections() == 0 }).await;
    let left = rt.http_connections();
    let _ = rt.stop(LIMIT).await;
    assert_eq!(ok, 500, "{errs:?}");
    assert!(drained, "{left} connections left");
}

/// The deadline is documented as bounding a dispatch; it is measured from the moment a
/// worker picks the job up, so time in the queue is unbounded by it.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn deadline_bounds_latency_including_queue() {
    let deadline = Duration::from_millis(300);
    let rt = Application::start(
        host::server(),
        ApplicationConfig::new().workers(1).deadline(deadline),
    )
    .await
    .unwrap();
    let t0 = Instant::now();
    let calls: Vec<_> = (0..6)
        .map(|_| {
            let rt = rt.clone();
            tokio::spawn(async move {
                let r = rt.dispatch("slow", json!({"ms": 250})).await;
                (r.is_ok(), t0.elapsed())
            })
        })
        .collect();
    let mut worst = Duration::ZERO;
    for c in calls {
        let (_ok, t) = c.await.unwrap();
        worst = worst.max(t);
    }
    let _ = rt.stop(LIMIT).await;
    assert!(
        worst < deadline * 2,
        "a call was answered after {worst:?} with a {deadline:?} deadline"
    );
}

/// restart_transport(STDIO) with a call in flight longer than a supervisor call's default 5 s
/// timeout: the restart waits for it, the old connection answers it, the new one serves.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn restart_stdio_with_long_call_in_flight() {
    let (connect, clients) = host::connector();
    let config = ApplicationConfig::new()
        .workers(2)
        .deadline(Duration::from_secs(8))
        .stdio(connect, StdioOptions::default());
    let rt = Application::start(host::server(), config).await.unwrap();
    let client = clients.lock().unwrap().remove(0);
    let (mut cr, mut cw) = tokio::io::split(client);
    let mut frame = host::call_frame(1, "slow", json!({"ms": 5500}));
    frame.push(b'\n');
    cw.write_all(&frame).await.unwrap();
    let reader = tokio::spawn(async move {
        let mut v = Vec::new();
        let _ = cr.read_to_end(&mut v).await;
        String::from_utf8_lossy(&v).into_owned()
    });
    tokio::time::sleep(Duration::from_millis(200)).await;
    let r = rt.restart_transport(STDIO).await;
    let out = tokio::time::timeout(LIMIT, reader).await.unwrap().unwrap();
    let children = rt
        .transports()
        .await
        .unwrap()
        .which_children()
        .await
        .unwrap();
    let _ = rt.stop(LIMIT).await;
    assert!(r.is_ok(), "{r:?}");
    assert!(
        out.contains("slept 5500"),
        "the old connection answered its call: {out}"
    );
    assert!(
        children.iter().any(|c| c.id == STDIO && c.cell.is_some()),
        "stdio is running again"
    );
}
