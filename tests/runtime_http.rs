//! The HTTP listener under the runtime: each connection a temporary child actor of the
//! transports supervisor, host work through the dispatch pool, the listener restartable on
//! the same port with the catalog and the pool untouched. Real sockets on 127.0.0.1, HTTP/1.1
//! and h2c.

#[path = "support/runtime_host.rs"]
mod host;
#[path = "support/http.rs"]
mod rig;

use beam_mcp::runtime::{Runtime, RuntimeConfig, HTTP};
use beam_mcp::transport::http::{AllowedOrigins, HttpService, ServeOptions};
use rig::{rpc, Client, BOTH};
use serde_json::json;
use std::net::SocketAddr;
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(10);

async fn start() -> (beam_mcp::runtime::RuntimeHandle, SocketAddr) {
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
    let config = RuntimeConfig::new()
        .workers(2)
        .http(listener, service, options);
    (Runtime::start(host::server(), config).await.unwrap(), addr)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn calls_run_in_the_pool_and_each_connection_is_a_temporary_child() {
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
    // A slow call holds its connection: while it runs, its actor is a child of the HTTP
    // transport's supervisor; once the connection has ended, the child is gone.
    let slow = tokio::spawn(async move {
        Client::new(rig::Proto::H1, addr)
            .post(&rpc(
                "tools/call",
                json!({"name":"slow","arguments":{"ms":800}}),
            ))
            .await
    });
    assert!(
        host::eventually(LIMIT, || async {
            host::connection_children(&rt).await >= 1
        })
        .await
    );
    assert_eq!(slow.await.unwrap().status, 200);
    assert!(
        host::eventually(LIMIT, || async {
            host::connection_children(&rt).await == 0
        })
        .await
    );
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
    let catalog_before = rt.catalog();
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
    for proto in BOTH {
        let r = Client::new(proto, addr)
            .post(&rpc(
                "tools/call",
                json!({"name":"echo","arguments":{"text":"again"}}),
            ))
            .await;
        assert_eq!(
            r.json()["result"]["content"][0]["text"],
            "again",
            "{proto:?}"
        );
    }
    assert!(rt.catalog().advertised_tool("echo").is_some());
    assert_eq!(catalog_before.info(), rt.catalog().info());
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
