//! Body bounds through a real listener: the 1 MiB cap, chunked refusal, and one read deadline
//! that a drip of tiny writes or frames cannot stretch: the 408 comes while the drip is still
//! far from the end of the body (a stretched deadline would wait for all of it, and then there
//! would be no 408). The drip's pauses are the attack, the subject of those tests; no upper
//! bound on elapsed time is asserted.

use crate::support::http as rig;

use bytes::Bytes;
use http_body_util::channel::Channel;
use http_body_util::Full;
use rig::{rpc, spawn, Client, Proto, Resp, BOTH, MODERN};
use serde_json::json;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

const CAP: usize = 1024 * 1024;
const READ_TIMEOUT: Duration = Duration::from_millis(500);

async fn bounded() -> SocketAddr {
    spawn(rig::service().read_timeout(READ_TIMEOUT)).await
}

fn head(addr: SocketAddr, extra: &str) -> String {
    format!(
        "POST /mcp HTTP/1.1\r\nhost: {addr}\r\nmcp-protocol-version: {MODERN}\r\n\
         mcp-method: tools/list\r\ncontent-type: application/json\r\n{extra}\r\n"
    )
}

/// The drip's pause between two bytes or frames.
const DRIP: Duration = Duration::from_millis(50);

/// What a whole response came with: the response, how long after the head it came (a lower
/// bound is all that is asserted of it), and how many drip bytes had been sent by then.
struct Dripped {
    resp: String,
    elapsed: Duration,
    sent: usize,
}

/// Writes `head`, then `drip` one byte every [`DRIP`], and reads the whole response.
async fn raw_h1(addr: SocketAddr, head: String, drip: usize) -> Dripped {
    let stream = TcpStream::connect(addr).await.unwrap();
    let (mut rd, mut wr) = stream.into_split();
    let start = Instant::now();
    wr.write_all(head.as_bytes()).await.unwrap();
    let sent = Arc::new(AtomicUsize::new(0));
    let counted = sent.clone();
    let writer = tokio::spawn(async move {
        for _ in 0..drip {
            // The drip's slowness is the attack: the subject of the test.
            tokio::time::sleep(DRIP).await;
            if wr.write_all(b" ").await.is_err() {
                break;
            }
            counted.fetch_add(1, Ordering::SeqCst);
        }
        wr
    });
    let mut out = Vec::new();
    let _ = tokio::time::timeout(SAFETY, rd.read_to_end(&mut out))
        .await
        .expect("the server answers and closes");
    let elapsed = start.elapsed();
    let sent = sent.load(Ordering::SeqCst);
    writer.abort();
    Dripped {
        resp: String::from_utf8_lossy(&out).into_owned(),
        elapsed,
        sent,
    }
}

/// A safety net against a hang, not a timing assertion.
const SAFETY: Duration = Duration::from_secs(60);

fn status_line(resp: &str) -> &str {
    resp.lines().next().unwrap_or_default()
}

fn h1_closes(resp: &str) -> bool {
    resp.to_ascii_lowercase()
        .contains("\r\nconnection: close\r\n")
}

fn h1_body(resp: &str) -> serde_json::Value {
    let body = resp.split("\r\n\r\n").nth(1).unwrap_or_default();
    serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {resp}"))
}

/// An h2 request whose body is fed by hand, frame by frame.
async fn h2_streaming(
    addr: SocketAddr,
    declared: Option<usize>,
) -> (
    http_body_util::channel::Sender<Bytes>,
    tokio::task::JoinHandle<Resp>,
) {
    let (tx, body) = Channel::<Bytes>::new(1);
    let c = Client::new(Proto::H2, addr);
    let mut b = c
        .builder("POST", "/mcp", None)
        .header("mcp-protocol-version", MODERN)
        .header("mcp-method", "tools/list");
    if let Some(n) = declared {
        b = b.header("content-length", n);
    }
    let req = b.body(body).unwrap();
    (tx, tokio::spawn(async move { c.send(req).await }))
}

#[tokio::test]
async fn a_declared_32_mib_body_is_413_before_reading() {
    let addr = bounded().await;
    let resp = raw_h1(addr, head(addr, "content-length: 33554432\r\n"), 0)
        .await
        .resp;
    assert!(status_line(&resp).contains(" 413 "), "{resp}");
    assert!(
        h1_closes(&resp),
        "HTTP/1.1 refusal before the body closes: {resp}"
    );
    assert!(h1_body(&resp)["error"]["code"].is_i64());

    let (_tx, resp) = h2_streaming(addr, Some(32 * 1024 * 1024)).await;
    let r = tokio::time::timeout(SAFETY, resp).await.unwrap().unwrap();
    assert_eq!(r.status.as_u16(), 413);
    assert!(r.headers.get("connection").is_none(), "never on HTTP/2");
    assert!(r.json()["error"]["code"].is_i64());
}

#[tokio::test]
async fn an_undeclared_h2_body_over_the_cap_is_413() {
    let addr = bounded().await;
    let (mut tx, resp) = h2_streaming(addr, None).await;
    let feeder = tokio::spawn(async move {
        let mut sent = 0usize;
        // Exactly the cap, then one byte more: the byte that crosses the cap is refused.
        while sent < CAP {
            let n = (CAP - sent).min(16 * 1024);
            if tx.send_data(Bytes::from(vec![b' '; n])).await.is_err() {
                return sent;
            }
            sent += n;
        }
        let _ = tx.send_data(Bytes::from_static(b" ")).await;
        sent + 1
    });
    let r = tokio::time::timeout(SAFETY, resp).await.unwrap().unwrap();
    assert_eq!(r.status.as_u16(), 413);
    assert!(r.headers.get("connection").is_none());
    assert_eq!(r.json()["error"]["data"]["limit"], CAP);
    assert_eq!(feeder.await.unwrap(), CAP + 1);
}

#[tokio::test]
async fn a_body_of_exactly_the_cap_is_served() {
    let addr = bounded().await;
    let mut body = serde_json::to_vec(&rpc("tools/list", json!({}))).unwrap();
    body.resize(CAP, b' ');
    for proto in BOTH {
        let c = Client::new(proto, addr);
        let req = c
            .builder("POST", "/mcp", None)
            .header("mcp-protocol-version", MODERN)
            .header("mcp-method", "tools/list")
            .body(Full::new(Bytes::from(body.clone())))
            .unwrap();
        let r = c.send(req).await;
        assert_eq!(r.status.as_u16(), 200, "{proto:?}");
    }
    let resp = raw_h1(
        addr,
        head(addr, &format!("content-length: {}\r\n", CAP + 1)),
        0,
    )
    .await
    .resp;
    assert!(status_line(&resp).contains(" 413 "), "{resp}");
}

#[tokio::test]
async fn chunked_http1_is_411_before_reading() {
    let addr = bounded().await;
    let resp = raw_h1(addr, head(addr, "transfer-encoding: chunked\r\n"), 0)
        .await
        .resp;
    assert!(status_line(&resp).contains(" 411 "), "{resp}");
    assert!(h1_closes(&resp));
    assert!(h1_body(&resp)["error"]["code"].is_i64());
}

#[tokio::test]
async fn an_http1_drip_is_408_within_the_deadline() {
    let addr = bounded().await;
    // 200 bytes at one per 50 ms: the whole body would take 10 s, twenty read deadlines.
    let d = raw_h1(addr, head(addr, "content-length: 200\r\n"), 200).await;
    let resp = &d.resp;
    assert!(status_line(resp).contains(" 408 "), "{resp}");
    assert!(h1_closes(resp));
    assert!(h1_body(resp)["error"]["code"].is_i64());
    eprintln!("408 after {:?}, {} drip bytes", d.elapsed, d.sent);
    assert!(d.elapsed >= READ_TIMEOUT, "{:?}", d.elapsed);
    assert!(d.sent < 200, "the 408 waited for the whole drip");
}

#[tokio::test]
async fn an_h2_drip_of_one_byte_frames_is_408_within_the_deadline() {
    let addr = bounded().await;
    let start = Instant::now();
    let (mut tx, resp) = h2_streaming(addr, Some(200)).await;
    let sent = Arc::new(AtomicUsize::new(0));
    let counted = sent.clone();
    // 200 one-byte frames at one per 50 ms: the whole body would take 10 s.
    tokio::spawn(async move {
        for _ in 0..200 {
            // The drip's slowness is the attack: the subject of the test.
            tokio::time::sleep(DRIP).await;
            if tx.send_data(Bytes::from_static(b" ")).await.is_err() {
                break;
            }
            counted.fetch_add(1, Ordering::SeqCst);
        }
    });
    let r = tokio::time::timeout(SAFETY, resp).await.unwrap().unwrap();
    let elapsed = start.elapsed();
    let sent = sent.load(Ordering::SeqCst);
    assert_eq!(r.status.as_u16(), 408);
    assert!(r.headers.get("connection").is_none());
    assert!(r.json()["error"]["code"].is_i64());
    eprintln!("408 after {elapsed:?}, {sent} drip frames");
    assert!(elapsed >= READ_TIMEOUT, "{elapsed:?}");
    assert!(sent < 200, "the 408 waited for the whole drip");
}
