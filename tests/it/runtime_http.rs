//! The HTTP listener under the runtime: each connection a task the listener owns (no actor,
//! no supervisor message on accept), host work through the dispatch pool, the listener
//! restartable on the same port with the catalog and the pool untouched, and a killed listener
//! taking its connections with it. Real sockets on 127.0.0.1, HTTP/1.1 and h2c.
//!
//! A call in flight is a `gate` call of the test host: the test knows it runs when it reports
//! so, and holds it until released, so "ended without waiting for its call" needs no clock.

use crate::support::http as rig;
use crate::support::runtime_host::{self as host, SAFETY};

use beam_mcp::runtime::{Application, ApplicationConfig, HTTP};
use beam_mcp::transport::http::{AllowedOrigins, HttpService, ServeOptions};
use rig::{rpc, Client, BOTH};
use serde_json::{json, Value};
use std::net::SocketAddr;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

const LIMIT: Duration = Duration::from_secs(10);

async fn start() -> (beam_mcp::runtime::ApplicationRef, SocketAddr) {
    start_with(host::server()).await
}

/// The runtime serving `server` over HTTP; four workers, room for a few held calls.
async fn start_with(server: beam_mcp::Server) -> (beam_mcp::runtime::ApplicationRef, SocketAddr) {
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
        .workers(4)
        .http(listener, service, options);
    (Application::start(server, config).await.unwrap(), addr)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn calls_run_in_the_pool_and_each_connection_is_counted_while_it_lives() {
    let (server, mut gate) = host::gated();
    let (rt, addr) = start_with(server).await;
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
    // A call in flight holds its connection: while it runs, the listener counts it open; once
    // the connection has ended, its task is gone.
    let held = tokio::spawn(async move {
        Client::new(rig::Proto::H1, addr)
            .post(&rpc("tools/call", json!({"name":"gate","arguments":{}})))
            .await
    });
    let running = gate.started().await;
    assert!(
        rt.http_connections() >= 1,
        "the connection of a call in flight"
    );
    running.release();
    let r = tokio::time::timeout(SAFETY, held).await.unwrap().unwrap();
    assert_eq!(r.status, 200);
    // A poll: the count of open connections has no event; a connection's task counts itself
    // out as it ends.
    assert!(host::eventually(SAFETY, || async { rt.http_connections() == 0 }).await);
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
    // A poll: the pool's counters have no event.
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
    let (server, mut gate) = host::gated();
    let (rt, addr) = start_with(server).await;
    let transports = rt.transports().await.unwrap();
    let killed = listener(&transports).await;
    let held = rpc("tools/call", json!({"name":"gate","arguments":{}}));
    let mut open = Vec::new();
    for _ in 0..3 {
        let mut s = TcpStream::connect(addr).await.unwrap();
        s.write_all(&raw_post(addr, &held)).await.unwrap();
        open.push(s);
    }
    // The calls are running in the pool, so each connection has something in flight; they
    // are held until the end of the test, so a connection that waited for its call would
    // never end.
    let running = gate.started_n(3).await;
    assert_eq!(rt.http_connections(), 3);

    killed.kill();
    // A poll: the count of open connection tasks has no event.
    assert!(
        host::eventually(SAFETY, || async { rt.http_connections() == 0 }).await,
        "{} connection tasks outlive the killed listener",
        rt.http_connections()
    );
    for mut s in open {
        let mut got = Vec::new();
        let ended = tokio::time::timeout(SAFETY, s.read_to_end(&mut got)).await;
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
    // Still held: the connections ended without their calls.
    assert!(gate.try_started().is_none(), "no other gated call started");
    drop(running);

    host::exited(&killed).await;
    assert_eq!(transports.restart_count(HTTP).await.unwrap(), Some(1));
    assert_ne!(listener(&transports).await.get_id(), killed.get_id());
    echoes_over_both(addr, "back").await;
    // A poll: the count of open connections has no event.
    assert!(host::eventually(LIMIT, || async { rt.http_connections() == 0 }).await);
    rt.stop(LIMIT).await.unwrap();
}
