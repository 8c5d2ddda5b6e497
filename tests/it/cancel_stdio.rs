//! Cancellation on a stdio connection, in process, ordered by the gated host's events: a
//! request cancelled before its work started never reaches the host; a cancellation names
//! the latest request in flight with its id; one for an unknown, answered or malformed id
//! changes nothing; the core turns only a well-formed `notifications/cancelled` into
//! [`Step::Cancel`]; the connectome's collector records a cancelled dispatch as cancelled,
//! not as an observation of the edge.

use crate::support::gate::{self, Event};
use beam_mcp::connectome::model::EdgeKey;
use beam_mcp::connectome::observed::Collector;
use beam_mcp::protocol::RequestId;
use beam_mcp::transport::stdio::{serve, StdioOptions};
use beam_mcp::{Carrier, Step};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

/// A safety net: what never comes fails the test here instead of hanging it.
const NEVER: std::time::Duration = std::time::Duration::from_secs(60);

fn line(v: &Value) -> Vec<u8> {
    let mut l = serde_json::to_vec(v).unwrap();
    l.push(b'\n');
    l
}

fn call(id: Value, tool: &str, tag: &str) -> Vec<u8> {
    line(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                 "params": {"name": tool, "arguments": {"tag": tag}}}))
}

fn cancel(id: Value) -> Vec<u8> {
    line(
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                 "params": {"requestId": id}}),
    )
}

/// On a current-thread runtime the connection reads both lines before the request's task
/// first runs: the cancellation aborts it there, and the host never sees it.
#[tokio::test(flavor = "current_thread")]
async fn a_request_cancelled_before_its_work_started_never_reaches_the_host() {
    let (server, gates) = gate::host();
    let (client, conn) = tokio::io::duplex(1 << 16);
    let (r, w) = tokio::io::split(conn);
    let serving = tokio::spawn(serve(server, BufReader::new(r), w, StdioOptions::default()));
    let (cr, mut cw) = tokio::io::split(client);
    let mut batch = call(json!(1), "gate", "never");
    batch.extend(cancel(json!(1)));
    batch.extend(call(json!(2), "echo", "after"));
    cw.write_all(&batch).await.unwrap();
    cw.shutdown().await.unwrap();
    let mut lines = BufReader::new(cr).lines();
    let mut answers = Vec::new();
    // A safety net, not a timing assertion: were the request not cancelled, its gate would
    // hold the connection open for ever.
    let ended = tokio::time::timeout(NEVER, async {
        while let Some(l) = lines.next_line().await.unwrap() {
            answers.push(serde_json::from_str::<Value>(&l).unwrap());
        }
    })
    .await;
    assert!(ended.is_ok(), "the connection did not end: {answers:?}");
    serving.await.unwrap().unwrap();
    assert_eq!(answers.len(), 1, "{answers:?}");
    assert_eq!(answers[0]["id"], 2);
    assert_eq!(gates.starts(), 0, "the cancelled request reached the host");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancellation_names_one_request_and_ignores_what_names_none() {
    let collector = Collector::new();
    collector.attach();
    let (server, mut gates) = gate::host_with(|c| c.collector(collector.clone()));
    let (client, conn) = tokio::io::duplex(1 << 16);
    let (r, w) = tokio::io::split(conn);
    let serving = tokio::spawn(serve(server, BufReader::new(r), w, StdioOptions::default()));
    let (cr, mut cw) = tokio::io::split(client);
    let mut lines = BufReader::new(cr).lines();
    // Two requests in flight with one id: a cancellation reaches the latest.
    cw.write_all(&call(json!("dup"), "gate", "first"))
        .await
        .unwrap();
    gates.saw(Event::Started("first".into())).await;
    cw.write_all(&call(json!("dup"), "gate", "second"))
        .await
        .unwrap();
    gates.saw(Event::Started("second".into())).await;
    // Nothing in flight has these ids, or they are no ids at all.
    for id in [
        json!(99),
        json!("nope"),
        json!(1.5),
        json!(null),
        json!([1]),
    ] {
        cw.write_all(&cancel(id)).await.unwrap();
    }
    cw.write_all(&cancel(json!("dup"))).await.unwrap();
    gates.saw(Event::TokenFired("second".into())).await;
    gates.saw(Event::Dropped("second".into())).await;
    assert!(!gates.has_seen(&Event::Dropped("first".into())));
    gates.release("first");
    let answered: Value = serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
    assert_eq!(answered["id"], "dup");
    assert_eq!(answered["result"]["content"][0]["text"], "first");
    // Cancelling what was answered changes nothing.
    cw.write_all(&cancel(json!("dup"))).await.unwrap();
    cw.write_all(&call(json!(3), "echo", "last")).await.unwrap();
    let last: Value = serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
    assert_eq!(last["id"], 3);
    cw.shutdown().await.unwrap();
    let rest = tokio::time::timeout(NEVER, lines.next_line()).await;
    assert!(
        rest.expect("the connection did not end").unwrap().is_none(),
        "a line for the cancelled request"
    );
    serving.await.unwrap().unwrap();
    // The connectome: one answered dispatch of `gate` and one of `echo`; the cancelled one
    // apart.
    let graph = collector.snapshot();
    let count = |tool: &str| graph.edge(&EdgeKey::dispatch(tool)).and_then(|a| a.count);
    assert_eq!(count("gate"), Some(1));
    assert_eq!(count("echo"), Some(1));
    assert_eq!(collector.cancelled("gate"), 1);
    assert_eq!(collector.cancelled("echo"), 0);
}

#[test]
fn the_core_turns_only_a_well_formed_cancellation_into_step_cancel() {
    let (server, _gates) = gate::host();
    let step = |requested: Value| {
        let frame = serde_json::to_vec(&json!({"jsonrpc": "2.0",
            "method": "notifications/cancelled", "params": {"requestId": requested}}))
        .unwrap();
        server.handle(&frame, Carrier::Stdio)
    };
    assert!(matches!(step(json!(7)), Step::Cancel(RequestId::Number(n)) if n.as_u64() == Some(7)));
    assert!(matches!(step(json!("a")), Step::Cancel(RequestId::String(s)) if s == "a"));
    for malformed in [json!(1.5), json!(null), json!({}), json!("x".repeat(257))] {
        assert!(
            matches!(step(malformed.clone()), Step::Silent),
            "{malformed}"
        );
    }
    let without = serde_json::to_vec(&json!({"jsonrpc": "2.0",
        "method": "notifications/cancelled"}))
    .unwrap();
    assert!(matches!(
        server.handle(&without, Carrier::Stdio),
        Step::Silent
    ));
}
