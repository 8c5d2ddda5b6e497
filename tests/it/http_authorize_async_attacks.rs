//! `HttpService::authorize_async` under attack through a real listener: many concurrent
//! streams on one h2c connection and many HTTP/1.1 connections, each with its own principal (no
//! principal reaches another request); a client that goes away while the hook runs; a hook
//! that panics on many streams at once.

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

const LIMIT: Duration = Duration::from_secs(10);

#[derive(Debug)]
struct Principal(u64);

/// Counts hook futures alive.
struct Alive(Arc<AtomicUsize>);
impl Drop for Alive {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
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

/// A hook that reads `x-who`, waits a little (longer for some), and names the principal.
fn service(ran: Arc<AtomicUsize>, alive: Arc<AtomicUsize>, wait_ms: u64) -> HttpService {
    HttpService::new(server(ran), |_| Ok(()), AllowedOrigins::Any)
        .path("/mcp")
        .read_timeout(Duration::from_secs(3))
        .authorize_async(move |head| {
            let who = head
                .headers
                .get("x-who")
                .and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
            alive.fetch_add(1, Ordering::SeqCst);
            let guard = Alive(alive.clone());
            async move {
                let _guard = guard;
                let who = who.ok_or_else(|| Forbidden::new("no x-who"))?;
                if who == 999 {
                    panic!("secret: hook panicked");
                }
                tokio::time::sleep(Duration::from_millis(wait_ms + (who * 7) % 13)).await;
                Ok(Extensions::new().with(Principal(who)))
            }
        })
}

fn request(addr: SocketAddr, h2: bool, who: u64) -> http::Request<Full<Bytes>> {
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
    b.header("content-type", "application/json")
        .header("x-who", who.to_string())
        .body(Full::new(Bytes::from(serde_json::to_vec(&body).unwrap())))
        .unwrap()
}

/// Waits, bounded, until `alive` is `want`; says whether it got there within `within`.
async fn settles(alive: &AtomicUsize, want: usize, within: Duration) -> bool {
    let until = tokio::time::Instant::now() + within;
    while tokio::time::Instant::now() < until {
        if alive.load(Ordering::SeqCst) == want {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    alive.load(Ordering::SeqCst) == want
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
    let alive = Arc::new(AtomicUsize::new(0));
    let addr = spawn(service(ran.clone(), alive.clone(), 5)).await;
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
    assert_eq!(alive.load(Ordering::SeqCst), 0, "every hook future ended");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_http1_connections_each_read_only_their_own_principal() {
    let ran = Arc::new(AtomicUsize::new(0));
    let addr = spawn(service(ran.clone(), Arc::default(), 5)).await;
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
    let addr = spawn(service(ran.clone(), Arc::default(), 0)).await;
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
        let alive = Arc::new(AtomicUsize::new(0));
        // Every hook waits 2.5 s (the read deadline is 3 s); the client leaves well before.
        let addr = spawn(service(ran.clone(), alive.clone(), 2500)).await;
        let io = TokioIo::new(TcpStream::connect(addr).await.unwrap());
        let conn_task;
        let fut: std::pin::Pin<Box<dyn std::future::Future<Output = _> + Send>> = if h2 {
            let (mut tx, conn) = hyper::client::conn::http2::handshake(TokioExecutor::new(), io)
                .await
                .unwrap();
            conn_task = tokio::spawn(async move {
                let _ = conn.await;
            });
            Box::pin(async move { tx.send_request(request(addr, true, 1)).await })
        } else {
            let (mut tx, conn) = hyper::client::conn::http1::handshake(io).await.unwrap();
            conn_task = tokio::spawn(async move {
                let _ = conn.await;
            });
            Box::pin(async move { tx.send_request(request(addr, false, 1)).await })
        };
        let started = tokio::time::Instant::now();
        let pending = tokio::spawn(fut);
        assert!(
            settles(&alive, 1, Duration::from_secs(2)).await,
            "h2={h2}: the hook runs"
        );
        // The client is gone: its request and its connection are dropped.
        pending.abort();
        conn_task.abort();
        let _ = conn_task.await;
        assert!(
            settles(&alive, 0, Duration::from_secs(1)).await,
            "h2={h2}: the hook future still runs after its client left"
        );
        assert!(
            started.elapsed() < Duration::from_millis(2400),
            "h2={h2}: too slow to tell"
        );
        tokio::time::sleep(Duration::from_millis(1000)).await;
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
    let alive = Arc::new(AtomicUsize::new(0));
    let addr = spawn(service(ran.clone(), alive.clone(), 2500)).await;
    let io = TokioIo::new(TcpStream::connect(addr).await.unwrap());
    let (tx, conn) = hyper::client::conn::http2::handshake(TokioExecutor::new(), io)
        .await
        .unwrap();
    tokio::spawn(conn);
    let started = tokio::time::Instant::now();
    let mut streams = Vec::new();
    for who in 0..20u64 {
        let mut tx = tx.clone();
        streams.push(tokio::spawn(async move {
            tx.send_request(request(addr, true, who)).await
        }));
    }
    assert!(
        settles(&alive, 20, Duration::from_secs(2)).await,
        "every hook is running"
    );
    for s in &streams {
        s.abort(); // drops the response future: RST_STREAM(CANCEL)
    }
    assert!(
        settles(&alive, 0, Duration::from_secs(1)).await,
        "every reset stream's hook ended"
    );
    assert!(
        started.elapsed() < Duration::from_millis(2400),
        "too slow to tell"
    );
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
    let alive = Arc::new(AtomicUsize::new(0));
    let service =
        service(ran.clone(), alive.clone(), 30_000).read_timeout(Duration::from_millis(300));
    let addr = spawn(service).await;
    let io = TokioIo::new(TcpStream::connect(addr).await.unwrap());
    let (tx, conn) = hyper::client::conn::http2::handshake(TokioExecutor::new(), io)
        .await
        .unwrap();
    tokio::spawn(conn);
    let started = tokio::time::Instant::now();
    let mut tasks = Vec::new();
    for who in 0..100u64 {
        let mut tx = tx.clone();
        tasks.push(tokio::spawn(async move {
            let resp = tx.send_request(request(addr, true, who)).await.unwrap();
            read(resp).await
        }));
    }
    for t in tasks {
        let (status, v) = tokio::time::timeout(LIMIT, t).await.unwrap().unwrap();
        assert_eq!(status, 503, "{v}");
        assert_eq!(v["error"]["code"], -32603, "{v}");
        assert!(v["error"].get("data").is_none(), "{v}");
    }
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(
        settles(&alive, 0, Duration::from_secs(1)).await,
        "every hung hook dropped"
    );
    assert_eq!(ran.load(Ordering::SeqCst), 0);
}
