//! The HTTP listener under the runtime: each connection a task the listener owns (no actor,
//! no supervisor message on accept), host work through the dispatch pool, the listener
//! restartable on the same port with the catalog and the pool untouched, and a killed listener
//! taking its connections with it. Real sockets on 127.0.0.1, HTTP/1.1 and h2c.

use crate::support::http as rig;
use crate::support::runtime_host as host;

use beam_mcp::runtime::{Application, ApplicationConfig, HTTP};
use beam_mcp::transport::http::{AllowedOrigins, HttpService, ServeOptions};
use rig::{rpc, Client, BOTH};
use serde_json::{json, Value};
use std::net::SocketAddr;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

const LIMIT: Duration = Duration::from_secs(10);

async fn start() -> (beam_mcp::runtime::ApplicationRef, SocketAddr) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    // The runtime serves its own snapshot through the service; the host's catalog here is a
    // placeholder that only shapes the service (authorize, origins, path).
    let service = HttpService::new(host::server(), |_| Ok(()), AllowedOrigins::Any).path("/mcp");
    let options = ServeOptions {
        header_read_timeout: Duration::from_secs(5),
        idle_timeout: Duration::from_millis(300),
        ..Default::default()
    };
    let config = ApplicationConfig::new()
        .workers(2)
        .http(listener, service, options);
    (
        Application::start(host::server(), config).await.unwrap(),
        addr,
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn calls_run_in_the_pool_and_each_connection_is_counted_while_it_lives() {
    let (rt, addr) = start().await;
    for proto in BOTH {
        let before = rt.pool_stats().completed;
        let r = Client::new(proto, addr)
            .post(&rpc(
                "tools/call",
                json!({"name":"echo","arguments":{"text":"hi"}}),
            ))
            .await;
        assert_eq!(r.status, 200, "{proto:?}");
        assert_eq!(r.json()["result"]["content"][0]["text"], "hi");
        assert_eq!(
            rt.pool_stats().completed,
            before + 1,
            "{proto:?}: the call ran in the pool"
        );
    }
    // A slow call holds its connection: while it runs, the listener counts it open; once the
    // connection has ended, its task is gone.
    let slow = tokio::spawn(async move {
        Client::new(rig::Proto::H1, addr)
            .post(&rpc(
                "tools/call",
                json!({"name":"slow","arguments":{"ms":800}}),
            ))
            .await
    });
    assert!(host::eventually(LIMIT, || async { rt.http_connections() >= 1 }).await);
    assert_eq!(slow.await.unwrap().status, 200);
    assert!(host::eventually(LIMIT, || async { rt.http_connections() == 0 }).await);
    rt.stop(LIMIT).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_restarted_listener_serves_the_same_port_and_the_catalog_and_pool_survive() {
    let (rt, addr) = start().await;
    let transports = rt.transports().await.unwrap();
    let before = transports
        .which_children()
        .await
        .unwrap()
        .into_iter()
        .find(|c| c.id == HTTP)
        .unwrap()
        .cell
        .unwrap()
        .get_id();
    let catalog_before = rt.server();
    let restarts_before = rt.pool_stats().worker_restarts;
    rt.restart_transport(HTTP).await.unwrap();
    let after = transports
        .which_children()
        .await
        .unwrap()
        .into_iter()
        .find(|c| c.id == HTTP)
        .unwrap()
        .cell
        .unwrap()
        .get_id();
    assert_ne!(before, after, "a new listener actor");
    echoes_over_both(addr, "again").await;
    assert!(rt.server().advertised_tool("echo").is_some());
    assert_eq!(catalog_before.info(), rt.server().info());
    assert_eq!(rt.pool_stats().worker_restarts, restarts_before);
    rt.stop(LIMIT).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_panicking_tool_over_http_is_a_tool_error_and_its_pool_worker_is_replaced() {
    let (rt, addr) = start().await;
    let r = Client::new(rig::Proto::H2, addr)
        .post(&rpc("tools/call", json!({"name":"boom"})))
        .await;
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["result"]["isError"], true);
    assert!(host::eventually(LIMIT, || async { rt.pool_stats().worker_restarts >= 1 }).await);
    let r = Client::new(rig::Proto::H1, addr)
        .post(&rpc(
            "tools/call",
            json!({"name":"echo","arguments":{"text":"still"}}),
        ))
        .await;
    assert_eq!(r.json()["result"]["content"][0]["text"], "still");
    rt.stop(LIMIT).await.unwrap();
}

/// An HTTP/1.1 POST of `body` as raw bytes, with the headers a well-behaved client sends.
/// `echo` answers `text` over HTTP/1.1 and over h2c.
async fn echoes_over_both(addr: SocketAddr, text: &str) {
    for proto in BOTH {
        let r = Client::new(proto, addr)
            .post(&rpc(
                "tools/call",
                json!({"name": "echo", "arguments": {"text": text}}),
            ))
            .await;
        assert_eq!(r.json()["result"]["content"][0]["text"], text, "{proto:?}");
    }
}

fn raw_post(addr: SocketAddr, body: &Value) -> Vec<u8> {
    let bytes = serde_json::to_vec(body).unwrap();
    let mut head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\n",
        bytes.len()
    );
    for (k, v) in rig::mcp_headers(body) {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    let mut req = head.into_bytes();
    req.extend(bytes);
    req
}

/// The HTTP listener actor under the transports supervisor.
async fn listener(transports: &beam_mcp_supervisors::SupervisorRef) -> ractor::ActorCell {
    transports
        .which_children()
        .await
        .unwrap()
        .into_iter()
        .find(|c| c.id == HTTP)
        .and_then(|c| c.cell)
        .expect("the listener runs")
}

/// The listener killed (not stopped) with connections open, each with a call in flight: its
/// connection tasks go with it at once — none is left running, none waits for its call — and
/// the transports supervisor restarts it on the same port, serving again.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_killed_listener_takes_its_connections_with_it_and_is_restarted_on_the_same_port() {
    let (rt, addr) = start().await;
    let transports = rt.transports().await.unwrap();
    let killed = listener(&transports).await;
    let slow = rpc(
        "tools/call",
        json!({"name":"slow","arguments":{"ms": 4000}}),
    );
    let mut open = Vec::new();
    for _ in 0..3 {
        let mut s = TcpStream::connect(addr).await.unwrap();
        s.write_all(&raw_post(addr, &slow)).await.unwrap();
        open.push(s);
    }
    assert!(host::eventually(LIMIT, || async { rt.http_connections() == 3 }).await);
    // The calls are running in the pool, so each connection has something in flight.
    tokio::time::sleep(Duration::from_millis(100)).await;

    let t0 = Instant::now();
    killed.kill();
    assert!(
        host::eventually(Duration::from_secs(2), || async {
            rt.http_connections() == 0
        })
        .await,
        "{} connection tasks outlive the killed listener",
        rt.http_connections()
    );
    for mut s in open {
        let mut got = Vec::new();
        let ended = tokio::time::timeout(Duration::from_secs(2), s.read_to_end(&mut got)).await;
        assert!(
            ended.is_ok(),
            "a connection of the killed listener stays open"
        );
        assert!(
            got.is_empty(),
            "answered after the kill: {}",
            String::from_utf8_lossy(&got)
        );
    }
    assert!(
        t0.elapsed() < Duration::from_secs(3),
        "the connections waited for their calls: {:?}",
        t0.elapsed()
    );

    assert!(
        host::eventually(LIMIT, || async {
            transports.restart_count(HTTP).await.unwrap() == Some(1)
        })
        .await
    );
    assert_ne!(listener(&transports).await.get_id(), killed.get_id());
    echoes_over_both(addr, "back").await;
    assert!(host::eventually(LIMIT, || async { rt.http_connections() == 0 }).await);
    rt.stop(LIMIT).await.unwrap();
}
