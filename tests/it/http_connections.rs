//! Connection-level bounds and the review fixes of the envelope rules, through a real
//! listener on 127.0.0.1.
//!
//! A bound is shown by making it the only one that can act: the others are set an hour away,
//! and the test waits (with a safety net that fails it) for the connection to close. Only lower
//! bounds on elapsed time are asserted; upper bounds are for the benches.

use crate::support::http as rig;

use bytes::Bytes;
use http_body_util::Full;
use rig::{call, rpc, service, set, Client, BOTH, MODERN};
use serde_json::json;
use std::net::SocketAddr;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

const SHORT: Duration = Duration::from_millis(400);

/// Longer than any test: a bound set to it never acts.
const HOUR: Duration = Duration::from_secs(3600);

/// A safety net against a hang, not a timing assertion.
const SAFETY: Duration = Duration::from_secs(60);

async fn spawn_short() -> SocketAddr {
    spawn_with(SHORT, SHORT).await
}

/// The rig's service with these head and idle deadlines.
async fn spawn_with(head: Duration, idle: Duration) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let options = beam_mcp::transport::http::ServeOptions {
        header_read_timeout: head,
        idle_timeout: idle,
        ..Default::default()
    };
    tokio::spawn(beam_mcp::transport::http::serve_with(
        listener,
        service(),
        options,
    ));
    addr
}

/// Reads until the peer closes; returns how long that took and what was read. Fails the test
/// if the connection is still open after `limit`.
async fn until_closed(s: &mut TcpStream, limit: Duration) -> (Duration, Vec<u8>) {
    let started = Instant::now();
    let mut out = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        match tokio::time::timeout(limit.saturating_sub(started.elapsed()), s.read(&mut buf)).await
        {
            Ok(Ok(0)) | Ok(Err(_)) => return (started.elapsed(), out),
            Ok(Ok(n)) => out.extend_from_slice(&buf[..n]),
            Err(_) => panic!("connection still open after {limit:?}"),
        }
    }
}

#[tokio::test]
async fn a_connection_that_never_speaks_is_closed_at_the_header_deadline() {
    // The idle timeout an hour away: only the head deadline can close it.
    let addr = spawn_with(SHORT, HOUR).await;
    let mut s = TcpStream::connect(addr).await.unwrap();
    let (took, read) = until_closed(&mut s, SAFETY).await;
    assert!(read.is_empty());
    assert!(took >= SHORT, "{took:?}");
}

#[tokio::test]
async fn idle_keep_alive_and_idle_h2_connections_are_closed() {
    let addr = spawn_short().await;
    // HTTP/1.1: one request served, then the connection idles.
    let mut s = TcpStream::connect(addr).await.unwrap();
    let body = serde_json::to_vec(&call(json!({"place": "Oslo"}))).unwrap();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nhost: {addr}\r\ncontent-type: application/json\r\nmcp-protocol-version: {MODERN}\r\nmcp-method: tools/call\r\nmcp-name: get_weather\r\nmcp-param-place: Oslo\r\ncontent-length: {}\r\n\r\n",
        body.len()
    );
    s.write_all(head.as_bytes()).await.unwrap();
    s.write_all(&body).await.unwrap();
    let (took, read) = until_closed(&mut s, SAFETY).await;
    assert!(
        read.starts_with(b"HTTP/1.1 200"),
        "{}",
        String::from_utf8_lossy(&read)
    );
    assert!(took >= SHORT, "{took:?}");
    // HTTP/2: the preface and an empty SETTINGS, then nothing.
    let mut s = TcpStream::connect(addr).await.unwrap();
    s.write_all(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
        .await
        .unwrap();
    s.write_all(&[0, 0, 0, 4, 0, 0, 0, 0, 0]).await.unwrap();
    let (_, read) = until_closed(&mut s, SAFETY).await;
    // The server said goodbye: a GOAWAY frame (type 7) is among what it sent.
    let mut at = 0;
    let mut goaway = false;
    while at + 9 <= read.len() {
        let len = u32::from_be_bytes([0, read[at], read[at + 1], read[at + 2]]) as usize;
        goaway |= read[at + 3] == 7;
        at += 9 + len;
    }
    assert!(goaway, "no GOAWAY in {read:?}");
}

#[tokio::test]
async fn a_request_in_flight_keeps_its_connection_past_the_idle_timeout() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let catalog = beam_mcp::Catalog::new().tool(beam_mcp::ToolSpec::new("slow", "sleeps"));
    let server = beam_mcp::Server::new(beam_mcp::ServerConfig::new(catalog).dispatch(|_c| async {
        // The subject: a call in flight three times as long as the idle timeout.
        tokio::time::sleep(SHORT * 3).await;
        Ok(beam_mcp::ToolOutput::text("done"))
    }))
    .unwrap();
    let svc = beam_mcp::transport::http::HttpService::new(
        server,
        |_| Ok(()),
        beam_mcp::transport::http::AllowedOrigins::Any,
    )
    .path("/mcp");
    let options = beam_mcp::transport::http::ServeOptions {
        header_read_timeout: SHORT,
        idle_timeout: SHORT,
        ..Default::default()
    };
    tokio::spawn(beam_mcp::transport::http::serve_with(
        listener, svc, options,
    ));
    for proto in BOTH {
        let r = Client::new(proto, addr)
            .post(&rpc("tools/call", json!({"name": "slow"})))
            .await;
        assert_eq!(r.status, 200, "{proto:?}");
        assert_eq!(r.json()["result"]["content"][0]["text"], "done");
    }
}

#[tokio::test]
async fn encoded_method_and_version_headers_are_refused() {
    let addr = rig::spawn(service()).await;
    for proto in BOTH {
        let c = Client::new(proto, addr);
        let body = call(json!({"place": "Oslo"}));
        let r = c
            .post_with(&body, |h| {
                set(h, "Mcp-Method", "=?base64?dG9vbHMvY2FsbA==?=");
                set(h, "Mcp-Param-Place", "Oslo");
            })
            .await;
        assert_eq!((r.status.as_u16(), r.code()), (400, -32020), "{proto:?}");
        let r = c
            .post_with(&body, |h| {
                set(h, "MCP-Protocol-Version", "=?base64?MjAyNi0wNy0yOA==?=");
                set(h, "Mcp-Param-Place", "Oslo");
            })
            .await;
        assert_eq!(r.status, 400, "{proto:?}");
    }
}

#[tokio::test]
async fn envelope_faults_are_400_on_every_method_and_a_meta_version_unlike_its_header_is_32020() {
    let addr = rig::spawn(service()).await;
    for proto in BOTH {
        let c = Client::new(proto, addr);
        let bare = json!({"jsonrpc":"2.0","id":7,"method":"server/discover"});
        let r = c.post(&bare).await;
        assert_eq!(
            (r.status.as_u16(), r.code()),
            (400, -32602),
            "{proto:?} discover without _meta"
        );
        assert_eq!(r.json()["id"], 7);
        let mut top = rpc("server/discover", json!({}));
        top["_meta"] = json!({});
        let r = c.post(&top).await;
        assert_eq!(
            (r.status.as_u16(), r.code()),
            (400, -32602),
            "{proto:?} top-level _meta"
        );
        let mut other = rpc("tools/list", json!({}));
        other["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!("2025-11-25");
        let r = c.post(&other).await;
        assert_eq!(
            (r.status.as_u16(), r.code()),
            (400, -32020),
            "{proto:?} _meta disagrees with header"
        );
        for method in ["shutdown", "exit"] {
            let r = c.post(&rpc(method, json!({}))).await;
            assert_eq!(
                (r.status.as_u16(), r.code()),
                (404, -32601),
                "{proto:?} {method}"
            );
        }
    }
}

#[tokio::test]
async fn a_repeated_key_anywhere_in_the_body_is_refused() {
    let addr = rig::spawn(service()).await;
    for proto in BOTH {
        let c = Client::new(proto, addr);
        let raw = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"nope","name":"get_weather","arguments":{{"place":"Oslo"}},"_meta":{}}}}}"#,
            rig::meta()
        );
        let mut b = c.builder("POST", "/mcp", None);
        for (k, v) in [
            ("content-type", "application/json"),
            ("mcp-protocol-version", MODERN),
            ("mcp-method", "tools/call"),
            ("mcp-name", "get_weather"),
            ("mcp-param-place", "Oslo"),
        ] {
            b = b.header(k, v);
        }
        let r = c.send(b.body(Full::new(Bytes::from(raw))).unwrap()).await;
        assert_eq!((r.status.as_u16(), r.code()), (400, -32600), "{proto:?}");
    }
}

#[tokio::test]
async fn idle_timeouts_are_as_documented() {
    // An HTTP/1.1 keep-alive connection waiting for its next head is closed by hyper's head
    // deadline; an HTTP/2 connection by the idle timeout (GOAWAY), its socket within the close
    // grace after. Each shown with the other bound an hour away, so only it can close.
    let short = Duration::from_millis(300);
    let body = serde_json::to_vec(&rpc("tools/list", json!({}))).unwrap();

    let addr = spawn_with(short, HOUR).await;
    let mut s = TcpStream::connect(addr).await.unwrap();
    let request = format!(
        "POST /mcp HTTP/1.1\r\nhost: {addr}\r\ncontent-type: application/json\r\nmcp-protocol-version: {MODERN}\r\nmcp-method: tools/list\r\ncontent-length: {}\r\n\r\n",
        body.len()
    );
    s.write_all(request.as_bytes()).await.unwrap();
    s.write_all(&body).await.unwrap();
    let (took, read) = until_closed(&mut s, SAFETY).await;
    assert!(read.starts_with(b"HTTP/1.1 200"));
    eprintln!("HTTP/1.1 keep-alive closed after {took:?}");
    assert!(took >= short, "{took:?}");

    // HTTP/2: one request, then nothing.
    let addr = spawn_with(HOUR, short).await;
    let c = Client::new(rig::Proto::H2, addr);
    let io = hyper_util::rt::TokioIo::new(TcpStream::connect(addr).await.unwrap());
    let (mut tx, conn) =
        hyper::client::conn::http2::handshake(hyper_util::rt::TokioExecutor::new(), io)
            .await
            .unwrap();
    let started = Instant::now();
    let driver = tokio::spawn(conn);
    let req = c
        .builder("POST", "/mcp", None)
        .header("mcp-protocol-version", MODERN)
        .header("mcp-method", "tools/list")
        .body(Full::new(Bytes::from(body)))
        .unwrap();
    let resp = tx.send_request(req).await.unwrap();
    assert_eq!(resp.status().as_u16(), 200);
    let _ = tokio::time::timeout(SAFETY, driver)
        .await
        .expect("the h2 connection is closed");
    let took = started.elapsed();
    eprintln!("idle h2 connection closed after {took:?}");
    assert!(took >= short, "{took:?}");
}
