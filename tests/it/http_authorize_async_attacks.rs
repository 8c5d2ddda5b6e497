//! `HttpService::authorize_async` under attack through a real listener: many concurrent
//! streams on one h2c connection and many HTTP/1.1 connections, each with its own principal (no
//! principal reaches another request); a client that goes away while the hook runs; a hook
//! that panics on many streams at once.
//!
//! No sleeps: the hooks interleave by yielding a different number of times each; a hook that
//! must outlast its client never ends by itself (`x-hang`), so only the mechanism under test
//! can end it; the test learns how many hook futures are alive from a `watch` channel.

use crate::support::http as rig;

use beam_mcp::transport::http::{AllowedOrigins, Forbidden, HttpService};
use beam_mcp::{
    Catalog, Extensions, Server, ServerConfig, ToolCall, ToolError, ToolOutput, ToolSpec,
};
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper_util::rt::{TokioExecutor, TokioIo};
use rig::{mcp_headers, rpc, spawn};
use serde_json::{json, Value};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpStream;
use tokio::sync::watch;

/// A safety net against a hang, not a timing assertion: every wait it bounds ends at once, or
/// at a deadline the test set, far shorter.
const LIMIT: Duration = Duration::from_secs(60);

/// Longer than any test: a read deadline that cannot be what ends a hook.
const HOUR: Duration = Duration::from_secs(3600);

#[derive(Debug)]
struct Principal(u64);

/// How many hook futures are alive; the test waits on its changes.
type AliveCount = Arc<watch::Sender<usize>>;

fn alive_count() -> AliveCount {
    Arc::new(watch::channel(0).0)
}

/// Counts one hook future alive until it is dropped (ended, or abandoned).
struct Alive(AliveCount);
impl Alive {
    fn enter(count: &AliveCount) -> Alive {
        count.send_modify(|n| *n += 1);
        Alive(count.clone())
    }
}
impl Drop for Alive {
    fn drop(&mut self) {
        self.0.send_modify(|n| *n -= 1);
    }
}

fn server(ran: Arc<AtomicUsize>) -> Server {
    let catalog = Catalog::new().tool(ToolSpec::new("whoami", "who"));
    let config = ServerConfig::new(catalog).dispatch(move |call: ToolCall| {
        let ran = ran.clone();
        async move {
            ran.fetch_add(1, Ordering::SeqCst);
            match call.extensions().get::<Principal>() {
                Some(p) => Ok(ToolOutput::text(format!("p{}", p.0))),
                None => Err(ToolError::new("nobody")),
            }
        }
    });
    Server::new(config).unwrap()
}

/// A hook that reads `x-who` and names the principal. It first yields to the scheduler a
/// number of times that differs from one principal to the next, so that concurrent hooks end
/// out of order; with `x-hang` it never ends by itself.
fn service(ran: Arc<AtomicUsize>, alive: AliveCount) -> HttpService {
    HttpService::new(server(ran), |_| Ok(()), AllowedOrigins::Any)
        .path("/mcp")
        .read_timeout(Duration::from_secs(3))
        .authorize_async(move |head| {
            let who = head
                .headers
                .get("x-who")
                .and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
            let hang = head.headers.contains_key("x-hang");
            let guard = Alive::enter(&alive);
            async move {
                let _guard = guard;
                let who = who.ok_or_else(|| Forbidden::new("no x-who"))?;
                if who == 999 {
                    panic!("secret: hook panicked");
                }
                if hang {
                    std::future::pending::<()>().await;
                }
                for _ in 0..(who * 7) % 13 {
                    tokio::task::yield_now().await;
                }
                Ok(Extensions::new().with(Principal(who)))
            }
        })
}

fn request(addr: SocketAddr, h2: bool, who: u64) -> http::Request<Full<Bytes>> {
    request_with(addr, h2, who, false)
}

/// A request whose hook never ends by itself.
fn hanging(addr: SocketAddr, h2: bool, who: u64) -> http::Request<Full<Bytes>> {
    request_with(addr, h2, who, true)
}

fn request_with(addr: SocketAddr, h2: bool, who: u64, hang: bool) -> http::Request<Full<Bytes>> {
    let body = rpc("tools/call", json!({"name": "whoami", "arguments": {}}));
    let mut b = http::Request::builder().method("POST");
    b = if h2 {
        b.version(http::Version::HTTP_2)
            .uri(format!("http://{addr}/mcp"))
    } else {
        b.uri("/mcp").header("host", addr.to_string())
    };
    for (k, v) in mcp_headers(&body) {
        b = b.header(k, v);
    }
    if hang {
        b = b.header("x-hang", "1");
    }
    b.header("content-type", "application/json")
        .header("x-who", who.to_string())
        .body(Full::new(Bytes::from(serde_json::to_vec(&body).unwrap())))
        .unwrap()
}

/// Waits until `want` hook futures are alive; false if that does not come within [`LIMIT`].
async fn settles(alive: &AliveCount, want: usize) -> bool {
    let mut seen = alive.subscribe();
    let reached = tokio::time::timeout(LIMIT, seen.wait_for(|n| *n == want))
        .await
        .is_ok();
    reached
}

async fn read(resp: http::Response<hyper::body::Incoming>) -> (u16, Value) {
    let status = resp.status().as_u16();
    let body = resp.into_body().collect().await.unwrap().to_bytes();
    let v = serde_json::from_slice(&body)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&body)));
    (status, v)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_h2_streams_each_read_only_their_own_principal() {
    let ran = Arc::new(AtomicUsize::new(0));
    let alive = alive_count();
    let addr = spawn(service(ran.clone(), alive.clone())).await;
    let io = TokioIo::new(TcpStream::connect(addr).await.unwrap());
    let (tx, conn) = hyper::client::conn::http2::handshake(TokioExecutor::new(), io)
        .await
        .unwrap();
    tokio::spawn(conn);
    let mut tasks = Vec::new();
    for who in 0..150u64 {
        let mut tx = tx.clone();
        tasks.push(tokio::spawn(async move {
            let resp = tx.send_request(request(addr, true, who)).await.unwrap();
            (who, read(resp).await)
        }));
    }
    for t in tasks {
        let (who, (status, v)) = tokio::time::timeout(LIMIT, t).await.unwrap().unwrap();
        assert_eq!(status, 200, "{v}");
        assert_eq!(v["result"]["content"][0]["text"], format!("p{who}"), "{v}");
    }
    assert_eq!(ran.load(Ordering::SeqCst), 150);
    assert_eq!(*alive.borrow(), 0, "every hook future ended");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_http1_connections_each_read_only_their_own_principal() {
    let ran = Arc::new(AtomicUsize::new(0));
    let addr = spawn(service(ran.clone(), alive_count())).await;
    let mut tasks = Vec::new();
    for who in 0..40u64 {
        tasks.push(tokio::spawn(async move {
            let io = TokioIo::new(TcpStream::connect(addr).await.unwrap());
            let (mut tx, conn) = hyper::client::conn::http1::handshake(io).await.unwrap();
            tokio::spawn(conn);
            // Two requests on the same keep-alive connection, different principals.
            let mut got = Vec::new();
            for w in [who, who + 1000] {
                let resp = tx.send_request(request(addr, false, w)).await.unwrap();
                got.push((w, read(resp).await));
            }
            got
        }));
    }
    for t in tasks {
        for (who, (status, v)) in tokio::time::timeout(LIMIT, t).await.unwrap().unwrap() {
            assert_eq!(status, 200, "{v}");
            assert_eq!(v["result"]["content"][0]["text"], format!("p{who}"), "{v}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_panicking_hook_on_many_h2_streams_is_500_each_and_the_connection_lives() {
    let ran = Arc::new(AtomicUsize::new(0));
    let addr = spawn(service(ran.clone(), alive_count())).await;
    let io = TokioIo::new(TcpStream::connect(addr).await.unwrap());
    let (tx, conn) = hyper::client::conn::http2::handshake(TokioExecutor::new(), io)
        .await
        .unwrap();
    tokio::spawn(conn);
    let mut tasks = Vec::new();
    for i in 0..60u64 {
        let mut tx = tx.clone();
        let who = if i % 2 == 0 { 999 } else { i };
        tasks.push(tokio::spawn(async move {
            let resp = tx.send_request(request(addr, true, who)).await.unwrap();
            (who, read(resp).await)
        }));
    }
    for t in tasks {
        let (who, (status, v)) = tokio::time::timeout(LIMIT, t).await.unwrap().unwrap();
        if who == 999 {
            assert_eq!(status, 500, "{v}");
            assert!(!v.to_string().contains("secret"), "{v}");
        } else {
            assert_eq!(v["result"]["content"][0]["text"], format!("p{who}"), "{v}");
        }
    }
    assert_eq!(ran.load(Ordering::SeqCst), 30);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_goes_away_during_the_hook_leaves_nothing_running() {
    for h2 in [true, false] {
        let ran = Arc::new(AtomicUsize::new(0));
        let alive = alive_count();
        // The hook never ends by itself, and the read deadline is an hour away: only the
        // client's leaving can end it.
        let addr = spawn(service(ran.clone(), alive.clone()).read_timeout(HOUR)).await;
        let io = TokioIo::new(TcpStream::connect(addr).await.unwrap());
        let conn_task;
        let fut: std::pin::Pin<Box<dyn std::future::Future<Output = _> + Send>> = if h2 {
            let (mut tx, conn) = hyper::client::conn::http2::handshake(TokioExecutor::new(), io)
                .await
                .unwrap();
            conn_task = tokio::spawn(async move {
                let _ = conn.await;
            });
            Box::pin(async move { tx.send_request(hanging(addr, true, 1)).await })
        } else {
            let (mut tx, conn) = hyper::client::conn::http1::handshake(io).await.unwrap();
            conn_task = tokio::spawn(async move {
                let _ = conn.await;
            });
            Box::pin(async move { tx.send_request(hanging(addr, false, 1)).await })
        };
        let pending = tokio::spawn(fut);
        assert!(settles(&alive, 1).await, "h2={h2}: the hook runs");
        // The client is gone: its request and its connection are dropped.
        pending.abort();
        conn_task.abort();
        let _ = conn_task.await;
        assert!(
            settles(&alive, 0).await,
            "h2={h2}: the hook future still runs after its client left"
        );
        // The hook future is dropped, not finished: no tool can run after it.
        assert_eq!(
            ran.load(Ordering::SeqCst),
            0,
            "h2={h2}: a tool ran for a client that had gone away before it was admitted"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_h2_stream_reset_during_the_hook_ends_it_and_the_connection_serves_on() {
    let ran = Arc::new(AtomicUsize::new(0));
    let alive = alive_count();
    // The hooks never end by themselves, and the read deadline is an hour away: only the
    // resets can end them.
    let addr = spawn(service(ran.clone(), alive.clone()).read_timeout(HOUR)).await;
    let io = TokioIo::new(TcpStream::connect(addr).await.unwrap());
    let (tx, conn) = hyper::client::conn::http2::handshake(TokioExecutor::new(), io)
        .await
        .unwrap();
    tokio::spawn(conn);
    let mut streams = Vec::new();
    for who in 0..20u64 {
        let mut tx = tx.clone();
        streams.push(tokio::spawn(async move {
            tx.send_request(hanging(addr, true, who)).await
        }));
    }
    assert!(settles(&alive, 20).await, "every hook is running");
    for s in &streams {
        s.abort(); // drops the response future: RST_STREAM(CANCEL)
    }
    assert!(settles(&alive, 0).await, "every reset stream's hook ended");
    // The connection still serves.
    let mut tx2 = tx.clone();
    let resp = tokio::time::timeout(LIMIT, tx2.send_request(request(addr, true, 5)))
        .await
        .unwrap()
        .unwrap();
    let (status, v) = read(resp).await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["result"]["content"][0]["text"], "p5");
    assert_eq!(
        ran.load(Ordering::SeqCst),
        1,
        "no tool ran for a reset stream"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hung_hooks_on_many_h2_streams_are_each_503_once_at_the_read_deadline() {
    let ran = Arc::new(AtomicUsize::new(0));
    let alive = alive_count();
    // The hooks never end by themselves: only the read deadline answers them.
    let service = service(ran.clone(), alive.clone()).read_timeout(Duration::from_millis(300));
    let addr = spawn(service).await;
    let io = TokioIo::new(TcpStream::connect(addr).await.unwrap());
    let (tx, conn) = hyper::client::conn::http2::handshake(TokioExecutor::new(), io)
        .await
        .unwrap();
    tokio::spawn(conn);
    let mut tasks = Vec::new();
    for who in 0..100u64 {
        let mut tx = tx.clone();
        tasks.push(tokio::spawn(async move {
            let resp = tx.send_request(hanging(addr, true, who)).await.unwrap();
            read(resp).await
        }));
    }
    for t in tasks {
        let (status, v) = tokio::time::timeout(LIMIT, t).await.unwrap().unwrap();
        assert_eq!(status, 503, "{v}");
        assert_eq!(v["error"]["code"], -32603, "{v}");
        assert!(v["error"].get("data").is_none(), "{v}");
    }
    assert!(settles(&alive, 0).await, "every hung hook dropped");
    assert_eq!(ran.load(Ordering::SeqCst), 0);
}
