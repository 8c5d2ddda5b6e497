//! Runtime faults found by a review lane, held as tests: requests in flight across a runtime
//! stop, a catalog crash and transport restarts are answered; one transport's shutdown does
//! not stall another; a stopped HTTP transport stops its connections; the deadline counts the
//! queue; 500 concurrent connections. 127.0.0.1 only, bounded loops and timeouts.
//!
//! Ordered by events, not by sleeping: a call in flight is a `gate` call of the test host,
//! known to run when it reports so and held until the test releases it; a stop known to have
//! reached the HTTP connections when an idle witness connection is closed by it; time, where
//! it is the subject, on tokio's paused clock.

use crate::support::runtime_host::{self as host, SAFETY};

use beam_mcp::runtime::{Application, ApplicationConfig, CATALOG, HTTP, STDIO};
use beam_mcp::transport::http::{AllowedOrigins, HttpService, ServeOptions};
use beam_mcp::transport::stdio::StdioOptions;
use serde_json::{json, Value};
use std::net::SocketAddr;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

const LIMIT: Duration = Duration::from_secs(20);

/// Far past any test's end: a connection here is closed by a stop, or by its client, never by
/// a head or idle deadline.
const HOUR: Duration = Duration::from_secs(3600);

fn http_config(config: ApplicationConfig) -> (ApplicationConfig, SocketAddr) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    // The runtime serves its own server through the service; this one only shapes it.
    let service = HttpService::new(host::server(), |_| Ok(()), AllowedOrigins::Any).path("/mcp");
    let options = ServeOptions {
        header_read_timeout: HOUR,
        idle_timeout: HOUR,
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

/// A keep-alive connection served once and left idle. With the head and idle deadlines an
/// hour away, only the listener's stop closes it: its end tells the test that the stop has
/// reached the connections.
async fn witness(addr: SocketAddr) -> TcpStream {
    let mut s = TcpStream::connect(addr).await.unwrap();
    s.write_all(&request(addr, "echo", json!({"text": "w"}), false))
        .await
        .unwrap();
    let served = read_response(&mut s).await.unwrap();
    assert!(served.contains("\"w\""), "{served}");
    s
}

/// Waits for the server to close `s`; fails the test after [`SAFETY`] (a net against a hang,
/// not a timing assertion).
async fn closed_by_server(s: &mut TcpStream) {
    let mut buf = [0u8; 256];
    match tokio::time::timeout(SAFETY, s.read(&mut buf)).await {
        Ok(Ok(0)) | Ok(Err(_)) => {}
        Ok(Ok(n)) => panic!(
            "the idle witness was sent {:?}",
            String::from_utf8_lossy(&buf[..n])
        ),
        Err(_) => panic!("the witness connection is still open after {SAFETY:?}"),
    }
}

/// The stdio connection's actor.
async fn stdio_actor(rt: &beam_mcp::runtime::ApplicationRef) -> ractor::ActorCell {
    rt.transports()
        .await
        .unwrap()
        .which_children()
        .await
        .unwrap()
        .into_iter()
        .find(|c| c.id == STDIO)
        .and_then(|c| c.cell)
        .expect("the stdio connection runs")
}

/// Waits until `actor` is stopping. A poll: a stop reaching an actor has no event but its
/// status; every caller holds a call that the stop waits for, so the status stays `Stopping`
/// until the test releases it.
async fn stopping(actor: &ractor::ActorCell) {
    assert!(
        host::eventually(SAFETY, || async {
            actor.get_status() == ractor::ActorStatus::Stopping
        })
        .await,
        "the actor never began to stop: {:?}",
        actor.get_status()
    );
}

/// Runtime stop with an HTTP request in flight: the request should be answered (as stdio
/// does: "answer what is in flight, then close"), not dropped with the connection. The call is
/// held until the stop has reached the connections, so it is answered during the stop.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn http_request_in_flight_survives_runtime_stop() {
    let (server, mut gate) = host::gated();
    let (config, addr) = http_config(ApplicationConfig::new().workers(2));
    let rt = Application::start(server, config).await.unwrap();
    let mut witness = witness(addr).await;
    let call = tokio::spawn(post(addr, "gate", json!({"tag": "in flight"})));
    let held = gate.started().await;
    let stop = {
        let rt = rt.clone();
        tokio::spawn(async move { rt.stop(LIMIT).await })
    };
    closed_by_server(&mut witness).await;
    held.release();
    let got = tokio::time::timeout(SAFETY, call).await.unwrap().unwrap();
    let stopped = tokio::time::timeout(SAFETY, stop).await.unwrap().unwrap();
    assert!(
        matches!(got, Ok(ref r) if r.contains("released in flight")),
        "in-flight HTTP request lost at runtime stop: {got:?}"
    );
    assert!(stopped.is_ok(), "{stopped:?}");
}

/// A catalog actor crash restarts everything after it (rest_for_one), transports included:
/// an HTTP request in flight must still get an answer or a JSON-RPC error. The call is held
/// until the restart has reached the connections.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn http_request_in_flight_survives_catalog_crash() {
    let (server, mut gate) = host::gated();
    let (config, addr) = http_config(ApplicationConfig::new().workers(2));
    let rt = Application::start(server, config).await.unwrap();
    let mut witness = witness(addr).await;
    let call = tokio::spawn(post(addr, "gate", json!({})));
    let held = gate.started().await;
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
    closed_by_server(&mut witness).await;
    held.release();
    let got = tokio::time::timeout(SAFETY, call).await.unwrap().unwrap();
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
    // A poll: the count of open connections has no event. A connection's task counts itself
    // out as it ends; the idle and head deadlines are an hour away, so only the stop ends it.
    let drained = host::eventually(SAFETY, || async { rt.http_connections() == 0 }).await;
    let open = rt.http_connections();
    s.write_all(&request(addr, "echo", json!({"text":"after stop"}), false))
        .await
        .ok();
    // The connection must end (EOF or reset), unanswered; still open after SAFETY fails.
    let after = tokio::time::timeout(SAFETY, read_response(&mut s)).await;
    let _ = rt.stop(LIMIT).await;
    assert!(drained, "{open} connections outlive the stopped listener");
    assert!(
        matches!(after, Ok(Err(_))),
        "a stopped HTTP transport still serves, or holds its connection open: {after:?}"
    );
}

/// Stopping the stdio transport (it waits for its in-flight work) must not stall the HTTP
/// transport: the stop occupies the transports supervisor, and the accept loop once awaited
/// a `start_child` of it for every connection (it now sends no message on accept at all). The
/// stdio call is held until the HTTP call has been answered: an accept that waited for the
/// stop would wait for ever (the safety net fails the test).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn stopping_stdio_does_not_stall_http_accepts() {
    let (server, mut gate) = host::gated();
    let (connect, clients) = host::connector();
    let (config, addr) = http_config(
        ApplicationConfig::new()
            .workers(2)
            .deadline(HOUR)
            .stdio(connect, StdioOptions::default()),
    );
    let rt = Application::start(server, config).await.unwrap();
    let client = clients.lock().unwrap().remove(0);
    let (mut cr, mut cw) = tokio::io::split(client);
    let mut frame = host::call_frame(1, "gate", json!({"tag": "stdio"}));
    frame.push(b'\n');
    cw.write_all(&frame).await.unwrap();
    let reader = tokio::spawn(async move {
        let mut v = Vec::new();
        let _ = cr.read_to_end(&mut v).await;
        String::from_utf8_lossy(&v).into_owned()
    });
    let held = gate.started().await;
    let stdio = stdio_actor(&rt).await;
    let rt2 = rt.clone();
    let stopper = tokio::spawn(async move { rt2.stop_transport(STDIO).await });
    stopping(&stdio).await;
    let r = tokio::time::timeout(SAFETY, post(addr, "echo", json!({"text": "x"}))).await;
    let still_stopping = stdio.get_status() == ractor::ActorStatus::Stopping;
    held.release();
    let stopped = tokio::time::timeout(SAFETY, stopper)
        .await
        .unwrap()
        .unwrap();
    drop(cw);
    let out = tokio::time::timeout(SAFETY, reader).await.unwrap().unwrap();
    let _ = rt.stop(LIMIT).await;
    assert!(matches!(r, Ok(Ok(ref a)) if a.contains("\"x\"")), "{r:?}");
    assert!(
        still_stopping,
        "the stdio stop ended before its call was released"
    );
    assert!(stopped.is_ok(), "{stopped:?}");
    assert!(
        out.contains("released stdio"),
        "the stdio call was answered: {out}"
    );
}

/// 500 concurrent connections to the runtime listener: all answered (each within the safety
/// net), and every connection task ends afterwards.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn flood_of_500_connections() {
    let (config, addr) = http_config(ApplicationConfig::new().workers(4).queue(2048));
    let rt = Application::start(host::server(), config).await.unwrap();
    let calls: Vec<_> = (0..500)
        .map(|i| {
            tokio::spawn(async move {
                tokio::time::timeout(SAFETY, post(addr, "echo", json!({"text": format!("{i}")})))
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
    // A poll: the count of open connections has no event. Each request asked to close, and a
    // connection's task counts itself out as it ends.
    let drained = host::eventually(SAFETY, || async { rt.http_connections() == 0 }).await;
    let left = rt.http_connections();
    let _ = rt.stop(LIMIT).await;
    assert_eq!(ok, 500, "{errs:?}");
    assert!(drained, "{left} connections left");
}

/// The deadline bounds a dispatch from its arrival, the wait in the queue included: six calls
/// that never end, one worker, a 300 ms deadline; every call is refused at the deadline, none
/// a deadline later for each call before it. On tokio's paused clock: time is the subject, and
/// a virtual clock measures it exactly.
#[tokio::test(start_paused = true)]
async fn deadline_bounds_latency_including_queue() {
    let deadline = Duration::from_millis(300);
    // `_gate` is held, never released: the calls never end by themselves.
    let (server, _gate) = host::gated();
    let rt = Application::start(
        server,
        ApplicationConfig::new().workers(1).deadline(deadline),
    )
    .await
    .unwrap();
    let t0 = tokio::time::Instant::now();
    let calls: Vec<_> = (0..6)
        .map(|_| {
            let rt = rt.clone();
            tokio::spawn(async move {
                let r = rt.dispatch("gate", json!({})).await;
                (r, t0.elapsed())
            })
        })
        .collect();
    let mut worst = Duration::ZERO;
    for c in calls {
        let (r, t) = c.await.unwrap();
        let e = r.expect_err("a call that never ends is refused");
        assert!(e.is_deadline(), "{e}");
        worst = worst.max(t);
    }
    let _ = rt.stop(LIMIT).await;
    assert!(
        worst < deadline * 2,
        "a call was answered after {worst:?} (paused clock) with a {deadline:?} deadline"
    );
}

/// restart_transport(STDIO) with a call in flight longer than a supervisor call's default 5 s
/// timeout: the restart waits for it, the old connection answers it, the new one serves. On
/// tokio's paused clock: the call is held while the clock moves 6 s on, then released.
#[tokio::test(start_paused = true)]
async fn restart_stdio_with_long_call_in_flight() {
    let (server, mut gate) = host::gated();
    let (connect, clients) = host::connector();
    let config = ApplicationConfig::new()
        .workers(2)
        .deadline(Duration::from_secs(8))
        .stdio(connect, StdioOptions::default());
    let rt = Application::start(server, config).await.unwrap();
    let client = clients.lock().unwrap().remove(0);
    let (mut cr, mut cw) = tokio::io::split(client);
    let mut frame = host::call_frame(1, "gate", json!({"tag": "long"}));
    frame.push(b'\n');
    cw.write_all(&frame).await.unwrap();
    let reader = tokio::spawn(async move {
        let mut v = Vec::new();
        let _ = cr.read_to_end(&mut v).await;
        String::from_utf8_lossy(&v).into_owned()
    });
    let held = gate.started().await;
    let stdio = stdio_actor(&rt).await;
    let restart = {
        let rt = rt.clone();
        tokio::spawn(async move { rt.restart_transport(STDIO).await })
    };
    stopping(&stdio).await;
    // Time is the subject: the call stays in flight past the 5 s default, short of the 8 s
    // deadline.
    tokio::time::advance(Duration::from_secs(6)).await;
    held.release();
    let r = tokio::time::timeout(SAFETY, restart)
        .await
        .unwrap()
        .unwrap();
    let out = tokio::time::timeout(SAFETY, reader).await.unwrap().unwrap();
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
        out.contains("released long"),
        "the old connection answered its call: {out}"
    );
    assert!(
        children.iter().any(|c| c.id == STDIO && c.cell.is_some()),
        "stdio is running again"
    );
}
