//! Cancellation through the real entry points: `examples/cancellation` as a subprocess, on the
//! bare transport and under the runtime (one worker, one place in the queue, a deadline of an
//! hour, so only a cancellation can end a call and a slot that did not come back shows at
//! once). A caller cancels by each carrier's means — stdio `notifications/cancelled`, an
//! HTTP/1.1 connection closed, an h2 stream reset — and the host says on stderr that its future
//! was dropped (`wait`) or that the thread it handed work to saw the token fire (`crunch`).
//! Then a quick call is answered (the slot is back), nothing was written for the cancelled id,
//! and one Prometheus scrape counts every cancellation by transport. 127.0.0.1 only.
//!
//! Each test prints how long the host took to hear of the cancellation (close or notification
//! sent → its stderr line): a figure for the closing note, not an assertion.

use crate::support::child::{self, example_path, lines};
use crate::support::http::{mcp_headers, rpc};
use bytes::Bytes;
use http::Request;
use http_body_util::{BodyExt, Full};
use hyper_util::rt::{TokioExecutor, TokioIo};
use serde_json::{json, Value};
use std::net::SocketAddr;
use std::process::Stdio;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::mpsc;
use tokio::time::Instant;

/// A safety net, not a timing assertion: a host that never hears of a cancellation fails the
/// test here instead of hanging it.
const NEVER: Duration = Duration::from_secs(60);

/// One example at a time: the metrics port is picked free and released before the child binds
/// it, so two children started at once could swap it.
static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

struct Host {
    _child: Child,
    stdin: Option<ChildStdin>,
    stdout: mpsc::UnboundedReceiver<String>,
    stderr: mpsc::UnboundedReceiver<String>,
    /// Stderr lines read while waiting for another (calls run concurrently: their lines come
    /// in any order).
    aside: Vec<String>,
    metrics: SocketAddr,
}

impl Host {
    fn spawn(args: &[&str]) -> Host {
        let metrics: SocketAddr = format!("127.0.0.1:{}", child::free_port()).parse().unwrap();
        let mut child = Command::new(example_path("cancellation"))
            .args(args)
            .args(["--metrics", &metrics.to_string()])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("spawn examples/cancellation (cargo test builds examples)");
        let stdin = child.stdin.take();
        let stdout = lines(child.stdout.take().unwrap());
        let stderr = lines(child.stderr.take().unwrap());
        Host {
            _child: child,
            stdin,
            stdout,
            stderr,
            aside: Vec::new(),
            metrics,
        }
    }

    async fn http(args: &[&str]) -> (Host, SocketAddr) {
        let mut all = vec!["--http", "127.0.0.1:0", "--print-addr"];
        all.extend_from_slice(args);
        let mut host = Host::spawn(&all);
        let addr = host.stdout_line().await.parse().unwrap();
        (host, addr)
    }

    async fn stdout_line(&mut self) -> String {
        tokio::time::timeout(NEVER, self.stdout.recv())
            .await
            .expect("no stdout line")
            .expect("stdout closed")
    }

    /// Waits for a stderr line containing `needle`; returns when it came.
    async fn heard(&mut self, needle: &str) -> Instant {
        if let Some(at) = self.aside.iter().position(|l| l.contains(needle)) {
            self.aside.remove(at);
            return Instant::now();
        }
        let found = tokio::time::timeout(NEVER, async {
            while let Some(line) = self.stderr.recv().await {
                if line.contains(needle) {
                    return Some(Instant::now());
                }
                self.aside.push(line);
            }
            None
        })
        .await;
        match found {
            Ok(Some(at)) => at,
            Ok(None) => panic!("stderr closed before {needle:?}"),
            Err(_) => panic!("the host never said {needle:?}"),
        }
    }

    async fn send(&mut self, v: &Value) {
        let stdin = self.stdin.as_mut().unwrap();
        let mut line = serde_json::to_vec(v).unwrap();
        line.push(b'\n');
        stdin.write_all(&line).await.unwrap();
        stdin.flush().await.unwrap();
    }

    /// The value of one series in a Prometheus scrape of the host's metrics (0 when absent).
    async fn metric(&self, series: &str) -> f64 {
        let mut s = TcpStream::connect(self.metrics).await.unwrap();
        let req = format!(
            "GET /metrics HTTP/1.1\r\nhost: {}\r\nconnection: close\r\n\r\n",
            self.metrics
        );
        s.write_all(req.as_bytes()).await.unwrap();
        let mut out = String::new();
        s.read_to_string(&mut out).await.unwrap();
        out.lines()
            .find_map(|l| l.strip_prefix(series)?.trim().parse().ok())
            .unwrap_or(0.0)
    }
}

fn call(id: u64, tool: &str, tag: &str) -> Value {
    let mut v = rpc(
        "tools/call",
        json!({"name": tool, "arguments": {"tag": tag}}),
    );
    v["id"] = json!(id);
    v
}

fn cancelled(id: Value) -> Value {
    json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
           "params": {"requestId": id, "reason": "the user pressed stop"}})
}

fn report(what: &str, from: Instant, to: Instant) {
    eprintln!(
        "{what}: host heard the cancellation {:?} after it was sent",
        to - from
    );
}

async fn stdio_cancellation(args: &[&str]) {
    let _one = ONE_AT_A_TIME.lock().await;
    let mut host = Host::spawn(args);
    host.send(&call(1, "wait", "w1")).await;
    host.heard("wait w1: started").await;
    // Ignored: an unknown id, a malformed one, a missing one.
    host.send(&cancelled(json!(99))).await;
    host.send(&cancelled(json!({"not": "an id"}))).await;
    host.send(&json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {}}))
        .await;
    let sent = Instant::now();
    host.send(&cancelled(json!(1))).await;
    let dropped = host.heard("wait w1: dropped").await;
    report(&format!("stdio {args:?} wait"), sent, dropped);
    // Under the runtime this call needs the one worker `wait` held.
    host.send(&call(2, "crunch", "c2")).await;
    host.heard("crunch c2: started").await;
    let sent = Instant::now();
    host.send(&cancelled(json!(2))).await;
    let stopped = host.heard("crunch c2: stopped by cancellation").await;
    report(&format!("stdio {args:?} crunch"), sent, stopped);
    // The slot is back (one worker under the runtime), and the first line written since is
    // the quick call's: nothing was written for 1 or 2, before or after.
    host.send(&call(3, "echo", "after")).await;
    let line: Value = serde_json::from_str(&host.stdout_line().await).unwrap();
    assert_eq!(line["id"], 3, "{line}");
    assert_eq!(line["result"]["content"][0]["text"], "after");
    // A cancellation for an answered id is ignored; the connection goes on.
    host.send(&cancelled(json!(3))).await;
    host.send(&call(4, "echo", "still")).await;
    let line: Value = serde_json::from_str(&host.stdout_line().await).unwrap();
    assert_eq!(line["id"], 4, "{line}");
    assert_eq!(
        host.metric("mcp_cancellations_total{transport=\"stdio\"}")
            .await,
        2.0
    );
    assert_eq!(
        host.metric("mcp_tool_calls_total{tool=\"wait\",outcome=\"cancelled\"}")
            .await,
        1.0
    );
    // EOF: the bare transport returns and the process exits; nothing more was written.
    host.stdin = None;
    if args.is_empty() {
        assert!(
            tokio::time::timeout(NEVER, host.stdout.recv())
                .await
                .expect("the process did not end at EOF")
                .is_none(),
            "a line was written after the last answer"
        );
    }
}

#[tokio::test]
async fn stdio_notifications_cancelled_cancels_the_call_on_the_bare_transport() {
    stdio_cancellation(&[]).await;
}

#[tokio::test]
async fn stdio_notifications_cancelled_cancels_the_call_under_the_runtime() {
    stdio_cancellation(&["--runtime"]).await;
}

fn post(addr: SocketAddr, body: &Value) -> Vec<u8> {
    let bytes = serde_json::to_vec(body).unwrap();
    let mut head = format!(
        "POST /mcp HTTP/1.1\r\nhost: {addr}\r\ncontent-type: application/json\r\n\
         accept: application/json, text/event-stream\r\ncontent-length: {}\r\n",
        bytes.len()
    );
    for (k, v) in mcp_headers(body) {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    let mut out = head.into_bytes();
    out.extend_from_slice(&bytes);
    out
}

/// An HTTP/1.1 request's answer, read whole on a connection of its own.
async fn answered_h1(addr: SocketAddr, body: &Value) -> Value {
    let mut s = TcpStream::connect(addr).await.unwrap();
    let mut req = post(addr, body);
    // Ask the server to close after answering, so the body ends with the stream.
    let at = req.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    req.splice(at + 2..at + 2, b"connection: close\r\n".iter().copied());
    s.write_all(&req).await.unwrap();
    let mut out = Vec::new();
    tokio::time::timeout(NEVER, s.read_to_end(&mut out))
        .await
        .expect("no answer")
        .unwrap();
    let text = String::from_utf8(out).unwrap();
    let (_, body) = text.split_once("\r\n\r\n").unwrap();
    serde_json::from_str(body).unwrap()
}

async fn http1_close_cancels(args: &[&str]) {
    let _one = ONE_AT_A_TIME.lock().await;
    let (mut host, addr) = Host::http(args).await;
    for (tool, tag, said) in [
        ("wait", "h1w", "wait h1w: dropped"),
        ("crunch", "h1c", "crunch h1c: stopped by cancellation"),
    ] {
        let mut s = TcpStream::connect(addr).await.unwrap();
        s.write_all(&post(addr, &call(1, tool, tag))).await.unwrap();
        host.heard(&format!("{tool} {tag}: started")).await;
        let closed = Instant::now();
        drop(s);
        let heard = host.heard(said).await;
        report(&format!("http/1.1 {args:?} {tool}"), closed, heard);
    }
    let v = answered_h1(addr, &call(2, "echo", "after")).await;
    assert_eq!(v["result"]["content"][0]["text"], "after", "{v}");
    assert_eq!(
        host.metric("mcp_cancellations_total{transport=\"http\"}")
            .await,
        2.0
    );
}

#[tokio::test]
async fn an_http1_client_that_closes_cancels_its_call_on_the_bare_transport() {
    http1_close_cancels(&[]).await;
}

#[tokio::test]
async fn an_http1_client_that_closes_cancels_its_call_under_the_runtime() {
    http1_close_cancels(&["--runtime"]).await;
}

async fn h2_reset_cancels(args: &[&str]) {
    let _one = ONE_AT_A_TIME.lock().await;
    let (mut host, addr) = Host::http(args).await;
    let stream = TcpStream::connect(addr).await.unwrap();
    // The reset is a small frame after the request's: Nagle would hold it for the server's
    // delayed ACK.
    stream.set_nodelay(true).unwrap();
    let io = TokioIo::new(stream);
    let (mut tx, conn) = hyper::client::conn::http2::handshake(TokioExecutor::new(), io)
        .await
        .unwrap();
    tokio::spawn(conn);
    let request = |body: &Value| {
        let mut b = Request::post(format!("http://{addr}/mcp"))
            .version(http::Version::HTTP_2)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream");
        for (k, v) in mcp_headers(body) {
            b = b.header(k, v);
        }
        b.body(Full::new(Bytes::from(serde_json::to_vec(body).unwrap())))
            .unwrap()
    };
    for (tool, tag, said) in [
        ("wait", "h2w", "wait h2w: dropped"),
        ("crunch", "h2c", "crunch h2c: stopped by cancellation"),
    ] {
        let pending = tx.send_request(request(&call(1, tool, tag)));
        // The request goes out as the future is first polled; it is held here, unanswered,
        // until the host has started.
        let response = tokio::spawn(pending);
        host.heard(&format!("{tool} {tag}: started")).await;
        let reset = Instant::now();
        // Dropping hyper's response future resets the stream (RST_STREAM, CANCEL).
        response.abort();
        let heard = host.heard(said).await;
        report(&format!("h2 {args:?} {tool}"), reset, heard);
    }
    // The connection lives on, and the slot is back: a quick call on it is answered.
    tx.ready().await.unwrap();
    let resp = tx
        .send_request(request(&call(2, "echo", "after")))
        .await
        .unwrap();
    let body = resp.into_body().collect().await.unwrap().to_bytes();
    let v: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(v["result"]["content"][0]["text"], "after", "{v}");
    assert_eq!(
        host.metric("mcp_cancellations_total{transport=\"http\"}")
            .await,
        2.0
    );
}

#[tokio::test]
async fn an_h2_stream_reset_cancels_its_call_on_the_bare_transport() {
    h2_reset_cancels(&[]).await;
}

#[tokio::test]
async fn an_h2_stream_reset_cancels_its_call_under_the_runtime() {
    h2_reset_cancels(&["--runtime"]).await;
}
