//! Answers a client will not read, and connections that never finish their preface: bounded in
//! time through a real listener on 127.0.0.1 (the zero-window h2c and partial-preface
//! findings).
//!
//! Each deadline is shown as the only bound that can act (the idle timeout is an hour away,
//! past the 60 s safety net that fails a test instead of letting it hang); only lower bounds on
//! elapsed time are asserted.

use crate::support::http as rig;

use beam_mcp::transport::http::{serve_with, AllowedOrigins, HttpService, ServeOptions};
use beam_mcp::{Catalog, Server, ServerConfig, ToolCall, ToolError, ToolOutput, ToolSpec};
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper_util::rt::{TokioExecutor, TokioIo};
use rig::{rpc, Client, Proto, MODERN};
use serde_json::json;
use std::net::SocketAddr;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

const WRITE: Duration = Duration::from_millis(500);
const HEAD: Duration = Duration::from_millis(500);
/// A safety net against a hang, not a timing assertion.
const SAFETY: Duration = Duration::from_secs(60);

async fn spawn_with(service: HttpService) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let options = ServeOptions {
        header_read_timeout: HEAD,
        idle_timeout: Duration::from_secs(3600),
        write_timeout: WRITE,
    };
    tokio::spawn(serve_with(listener, service, options));
    addr
}

/// A request of about 1 MiB (padding in an unchecked `_meta` member) answered with a result.
fn big_list() -> Vec<u8> {
    let mut body = rpc("tools/list", json!({}));
    body["params"]["_meta"]["pad"] = json!("x".repeat(1000 * 1024));
    serde_json::to_vec(&body).unwrap()
}

#[tokio::test]
async fn a_zero_window_h2_connection_is_dropped_at_the_write_deadline() {
    let addr = spawn_with(rig::service()).await;
    let io = TokioIo::new(TcpStream::connect(addr).await.unwrap());
    // The reader never opens its window: no answer byte can be sent.
    let (mut tx, conn) = hyper::client::conn::http2::Builder::new(TokioExecutor::new())
        .initial_stream_window_size(0)
        .handshake(io)
        .await
        .unwrap();
    let started = Instant::now();
    let driver = tokio::spawn(conn);
    let body = Bytes::from(big_list());
    let mut answers = Vec::new();
    for _ in 0..100 {
        let req = http::Request::post(format!("http://{addr}/mcp"))
            .header("mcp-protocol-version", MODERN)
            .header("mcp-method", "tools/list")
            .header("content-type", "application/json")
            .body(Full::new(body.clone()))
            .unwrap();
        tx.ready().await.unwrap();
        answers.push(tokio::spawn(tx.send_request(req)));
    }
    // The server ends the connection itself once its answers make no progress.
    let ended = tokio::time::timeout(SAFETY, driver).await;
    let took = started.elapsed();
    assert!(ended.is_ok(), "the connection is still open after {took:?}");
    eprintln!("zero-window connection dropped after {took:?}");
    assert!(took >= WRITE, "{took:?}");
    // No answer arrived whole.
    for a in answers {
        if let Ok(Ok(resp)) = a.await {
            assert!(resp.into_body().collect().await.is_err());
        }
    }
}

#[tokio::test]
async fn a_slow_tool_is_not_an_unread_answer() {
    let catalog = Catalog::new().tool(ToolSpec::new(
        "slow",
        "Takes longer than the write deadline.",
    ));
    let server = Server::new(ServerConfig::new(catalog).dispatch(|_: ToolCall| async {
        // The subject: a tool slower than the write deadline, with nothing yet to write.
        tokio::time::sleep(WRITE * 3).await;
        Ok::<_, ToolError>(ToolOutput::text("done"))
    }))
    .unwrap();
    let service = HttpService::new(
        server,
        |_| Ok(()),
        AllowedOrigins::list(["http://localhost"]),
    )
    .path("/mcp");
    let addr = spawn_with(service).await;
    for proto in [Proto::H1, Proto::H2] {
        let r = Client::new(proto, addr)
            .post(&rpc("tools/call", json!({"name": "slow", "arguments": {}})))
            .await;
        assert_eq!(r.status.as_u16(), 200, "{proto:?}");
        assert_eq!(r.json()["result"]["content"][0]["text"], "done");
    }
}

/// Writes `bytes` and reads until the server closes; how long that took. Fails the test if
/// the connection is still open after [`SAFETY`].
async fn closed_after(addr: SocketAddr, bytes: &[u8]) -> Duration {
    let mut s = TcpStream::connect(addr).await.unwrap();
    let started = Instant::now();
    s.write_all(bytes).await.unwrap();
    let mut buf = [0u8; 4096];
    loop {
        match tokio::time::timeout(SAFETY, s.read(&mut buf)).await {
            Ok(Ok(0)) | Ok(Err(_)) => return started.elapsed(),
            Ok(Ok(_)) => {}
            Err(_) => panic!(
                "{:?}: still open after {SAFETY:?}",
                String::from_utf8_lossy(bytes)
            ),
        }
    }
}

#[tokio::test]
async fn a_partial_h2_preface_is_closed_at_the_head_deadline() {
    let addr = spawn_with(rig::service()).await;
    let preface = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
    let mut cases: Vec<&[u8]> = vec![b"P", b"PR", &preface[..16], &preface[..23]];
    // The whole preface and SETTINGS, then no request: the same deadline.
    let mut settings = preface.to_vec();
    settings.extend_from_slice(&[0, 0, 0, 4, 0, 0, 0, 0, 0]);
    cases.push(&settings);
    for bytes in cases {
        let took = closed_after(addr, bytes).await;
        eprintln!(
            "{:?}: closed after {took:?}",
            String::from_utf8_lossy(bytes)
        );
        assert!(took >= HEAD, "{took:?}");
    }
}
