//! A bounded soak of stdio through the `weather` example as a real subprocess: good calls,
//! invalid arguments, unknown tools, malformed lines and lines over the 1 MiB bound, written
//! in windows of 64 in flight for `SOAK_SECS` seconds (default 10). Every request is answered
//! exactly once, and the child's resident memory and descriptors end near where they began.

use crate::support::child;

use child::ChildClient;
use serde_json::{json, Value};
use std::collections::HashSet;
use std::time::{Duration, Instant};

fn soak_for() -> Duration {
    let secs = std::env::var("SOAK_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(10);
    Duration::from_secs(secs)
}

fn rss_kib(pid: u32) -> u64 {
    let statm = std::fs::read_to_string(format!("/proc/{pid}/statm")).unwrap();
    let pages: u64 = statm.split_whitespace().nth(1).unwrap().parse().unwrap();
    pages * 4
}

fn fds(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd"))
        .unwrap()
        .count()
}

fn meta() -> Value {
    json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
           "io.modelcontextprotocol/clientCapabilities": {}})
}

/// Request `n`: one of five kinds, and what its answer must say.
fn request(n: u64) -> (Value, fn(&Value) -> bool) {
    match n % 5 {
        0 | 1 => (
            json!({"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": {
                "name": "get_weather", "arguments": {"place": "Oslo"}, "_meta": meta()}}),
            |v| v["result"]["structuredContent"]["place"] == "Oslo",
        ),
        2 => (
            json!({"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": {
                "name": "get_weather", "arguments": {"place": 5}, "_meta": meta()}}),
            |v| v["error"]["code"] == -32602,
        ),
        3 => (
            json!({"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": {
                "name": "get_weather", "arguments": {"place": "Oslo"}}}),
            // 2025-11-25: answered like the modern one, no `_meta` in the result.
            |v| v["result"]["content"][0]["text"].is_string(),
        ),
        _ => (
            json!({"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": {
                "name": "nope", "arguments": {}, "_meta": meta()}}),
            |v| v["error"]["code"] == -32602,
        ),
    }
}

#[tokio::test]
async fn a_mixed_stdio_soak_answers_everything_once() {
    let mut c = ChildClient::spawn("weather", &[]);
    let pid = c.child.id().unwrap();
    // Warm up, then take the baseline.
    for n in 0..200 {
        let (r, ok) = request(n);
        assert!(ok(&c.request(r).await));
    }
    let (rss0, fds0) = (rss_kib(pid), fds(pid));
    let until = Instant::now() + soak_for();
    let mut next = 1_000u64;
    let (mut answered, mut refused_lines) = (0u64, 0u64);
    while Instant::now() < until {
        // A window of 64 requests, a malformed line and an over-long one among them.
        let mut want = HashSet::new();
        let mut batch = Vec::new();
        for _ in 0..64 {
            let (r, _) = request(next);
            batch.extend(serde_json::to_vec(&r).unwrap());
            batch.push(b'\n');
            want.insert(next);
            next += 1;
        }
        batch.extend_from_slice(b"{not json\n");
        if next % 640 < 64 {
            batch.extend(std::iter::repeat_n(b' ', 1024 * 1024 + 1));
            batch.push(b'\n');
        }
        c.send_raw(&batch).await;
        while !want.is_empty() {
            let v = c.next_line().await.expect("stdout stays open");
            match v["id"].as_u64() {
                Some(id) => {
                    assert!(want.remove(&id), "answered twice or never asked: {v}");
                    let (_, ok) = request(id);
                    assert!(ok(&v), "wrong answer for {id}: {v}");
                    answered += 1;
                }
                None => {
                    // Refusals of lines that could not be read carry no id.
                    assert!(
                        v["error"]["code"] == -32700 || v["error"]["code"] == -32600,
                        "{v}"
                    );
                    refused_lines += 1;
                }
            }
        }
    }
    // The last window's unreadable lines may still be on their way; one more exchange flushes.
    let (r, ok) = request(next);
    let v = c.request(r).await;
    assert!(ok(&v));
    let (rss1, fds1) = (rss_kib(pid), fds(pid));
    eprintln!(
        "stdio soak {:?}: {answered} answered, {refused_lines} unreadable lines refused; \
         child RSS {rss0} -> {rss1} KiB, fds {fds0} -> {fds1}",
        soak_for()
    );
    assert!(answered > 0 && refused_lines > 0);
    assert!(fds1 <= fds0, "descriptors: {fds0} -> {fds1}");
    assert!(rss1 <= rss0 + 32 * 1024, "resident: {rss0} -> {rss1} KiB");
    c.close_stdin();
    assert!(c.wait_exit().await.success());
}
