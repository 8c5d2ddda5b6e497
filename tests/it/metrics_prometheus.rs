//! The crate's metrics, scraped for real: the `weather` example serves HTTP under the runtime
//! (and, once, without it: `--no-runtime`) and exposes `beam_mcp::metrics` through a
//! Prometheus exporter (`--metrics`); a few calls of every kind, then one scrape of `/metrics`.
//! 127.0.0.1 only.

use crate::support::child;
use crate::support::http as rig;

use rig::{Client, Proto};
use serde_json::json;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

async fn scrape(addr: &str) -> Option<String> {
    let mut s = TcpStream::connect(addr).await.ok()?;
    let req = format!("GET /metrics HTTP/1.1\r\nhost: {addr}\r\nconnection: close\r\n\r\n");
    s.write_all(req.as_bytes()).await.ok()?;
    let mut out = String::new();
    s.read_to_string(&mut out).await.ok()?;
    out.contains(" 200 ").then_some(out)
}

fn meta() -> serde_json::Value {
    json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
           "io.modelcontextprotocol/clientCapabilities": {}})
}

/// One example at a time: ports are picked free and released before the child binds them, so
/// two children started at once could swap them.
static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// The example serving HTTP with `extra` flags and its metrics, once both ports answer: the
/// child, an HTTP client, and the scrape address.
async fn weather(extra: &[&str]) -> (tokio::process::Child, Client, String) {
    let (http, prom) = (child::free_port(), child::free_port());
    let http_addr = format!("127.0.0.1:{http}");
    let prom_addr = format!("127.0.0.1:{prom}");
    let server = tokio::process::Command::new(child::example_path("weather"))
        .args(["--http", &http_addr, "--metrics", &prom_addr])
        .args(extra)
        .kill_on_drop(true)
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let addr: std::net::SocketAddr = http_addr.parse().unwrap();
    let mut up = false;
    // A poll, bounded (200 tries, 10 s): the child says nothing when it listens, and a port
    // that accepts is the only sign of it that crosses the process boundary.
    for _ in 0..200 {
        if TcpStream::connect(addr).await.is_ok() && scrape(&prom_addr).await.is_some() {
            up = true;
            break;
        }
        // The poll's interval: see above.
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(up, "the example listens on both ports");
    (server, Client::new(Proto::H1, addr), prom_addr)
}

/// The value of the first line starting with `prefix`.
fn line(text: &str, prefix: &str) -> f64 {
    text.lines()
        .find(|l| l.starts_with(prefix))
        .and_then(|l| l.rsplit(' ').next())
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no `{prefix}` in:\n{text}"))
}

#[tokio::test]
async fn a_prometheus_scrape_shows_requests_refusals_tools_and_the_pool() {
    let _one = ONE_AT_A_TIME.lock().await;
    let (mut server, c, prom_addr) = weather(&[]).await;
    let good = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "get_weather", "arguments": {"place": "Oslo"}, "_meta": meta()}});
    for _ in 0..3 {
        assert_eq!(c.post(&good).await.status.as_u16(), 200);
    }
    let bad = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "get_weather", "arguments": {"place": 5}, "_meta": meta()}});
    assert_eq!(c.post(&bad).await.code(), -32602);
    let nowhere = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
        "name": "get_weather", "arguments": {"place": "Atlantis"}, "_meta": meta()}});
    assert_eq!(c.post(&nowhere).await.json()["result"]["isError"], true);
    let legacy = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "scrape", "version": "1"}}});
    assert_eq!(c.post_plain(&legacy, &[]).await.status.as_u16(), 200);
    let r = c
        .post_plain(
            &json!({"jsonrpc": "2.0", "id": 4, "method": "nope/other"}),
            &[],
        )
        .await;
    assert_eq!(r.code(), -32601);

    let text = scrape(&prom_addr).await.expect("a scrape answers 200");
    let has = |needle: &str| {
        assert!(
            text.lines()
                .any(|l| l.starts_with(needle.split(' ').next().unwrap())
                    && l.contains(needle.split(' ').nth(1).unwrap_or(""))),
            "no `{needle}` in:\n{text}"
        )
    };
    let line = |prefix: &str| line(&text, prefix);
    assert_eq!(
        line(r#"mcp_requests_total{method="tools/call",revision="2026-07-28",transport="http"}"#),
        5.0
    );
    assert_eq!(
        line(r#"mcp_requests_total{method="initialize",revision="2025-11-25",transport="http"}"#),
        1.0
    );
    // A caller's method name never becomes a label.
    assert!(!text.contains("nope/other"));
    assert_eq!(
        line(r#"mcp_requests_total{method="other",revision="2025-11-25",transport="http"}"#),
        1.0
    );
    assert_eq!(
        line(r#"mcp_refusals_total{reason="invalid_params",status="200",transport="http"}"#),
        1.0
    );
    assert_eq!(
        line(r#"mcp_refusals_total{reason="method_not_found",status="404",transport="http"}"#),
        1.0
    );
    assert_eq!(
        line(r#"mcp_tool_calls_total{tool="get_weather",outcome="ok"}"#),
        3.0
    );
    assert_eq!(
        line(r#"mcp_tool_calls_total{tool="get_weather",outcome="tool_error"}"#),
        1.0
    );
    assert_eq!(
        line(r#"mcp_tool_call_duration_seconds_count{tool="get_weather"}"#),
        4.0
    );
    has("mcp_pool_in_flight 0");
    has("mcp_pool_queue_depth 0");
    has("mcp_http_connections_open");
    server.kill().await.unwrap();
}

/// `--no-runtime`: the same endpoint on the bare transport. Calls are answered and counted as
/// under the runtime, and no pool exists to report (under the runtime its gauges are always
/// exported, as the test above shows).
#[tokio::test]
async fn without_the_runtime_calls_are_served_and_no_pool_reports() {
    let _one = ONE_AT_A_TIME.lock().await;
    let (mut server, c, prom_addr) = weather(&["--no-runtime"]).await;
    let call = |id: u64, place: serde_json::Value| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
            "name": "get_weather", "arguments": {"place": place}, "_meta": meta()}})
    };
    for id in 1..=2 {
        let r = c.post(&call(id, json!("Oslo"))).await;
        assert_eq!(r.status.as_u16(), 200);
        assert_eq!(r.json()["result"]["structuredContent"]["place"], "Oslo");
    }
    assert_eq!(c.post(&call(3, json!(5))).await.code(), -32602);
    let text = scrape(&prom_addr).await.expect("a scrape answers 200");
    assert_eq!(
        line(
            &text,
            r#"mcp_requests_total{method="tools/call",revision="2026-07-28",transport="http"}"#
        ),
        3.0
    );
    assert_eq!(
        line(
            &text,
            r#"mcp_tool_calls_total{tool="get_weather",outcome="ok"}"#
        ),
        2.0
    );
    assert!(
        !text.contains("mcp_pool_"),
        "a pool reported without the runtime:\n{text}"
    );
    server.kill().await.unwrap();
}

/// The example answers liveness and readiness beside its endpoint and its metrics, under the
/// runtime and on the bare transport.
#[tokio::test]
async fn the_weather_example_serves_its_health_beside_its_metrics() {
    let _one = ONE_AT_A_TIME.lock().await;
    for extra in [&[][..], &["--no-runtime"][..]] {
        let (mut server, c, _) = weather(extra).await;
        for (path, body) in [
            ("/livez", json!({"status": "live"})),
            ("/readyz", json!({"status": "ready"})),
        ] {
            let req = c
                .builder("GET", path, None)
                .body(http_body_util::Full::new(bytes::Bytes::new()))
                .unwrap();
            let r = c.send(req).await;
            assert_eq!(r.status.as_u16(), 200, "{extra:?} {path}");
            assert_eq!(r.json(), body);
        }
        server.kill().await.unwrap();
    }
}
