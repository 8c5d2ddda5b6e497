//! Restarting the stdio transport while tools/call is in flight, over it and from the host:
//! every request is answered or refused with an error, none is lost silently.
//!
//! Ordered by events: the calls in flight are `gate` calls of the test host, held until the
//! restart's stop has reached the connection; an ended connection is waited for as its actor's
//! exit.

use crate::support::runtime_host::{self as host, SAFETY};

use beam_mcp::runtime::{Application, ApplicationConfig, STDIO};
use beam_mcp::transport::stdio::StdioOptions;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream};

const LIMIT: Duration = Duration::from_secs(10);

fn take_client(clients: &Mutex<Vec<DuplexStream>>) -> DuplexStream {
    clients.lock().unwrap().remove(0)
}

/// Reads replies until EOF: id → the reply.
async fn read_all(reader: impl tokio::io::AsyncRead + Unpin) -> BTreeMap<u64, Value> {
    let mut lines = BufReader::new(reader).lines();
    let mut out = BTreeMap::new();
    while let Some(line) = lines.next_line().await.unwrap() {
        let v: Value = serde_json::from_str(&line).unwrap();
        out.insert(v["id"].as_u64().unwrap(), v);
    }
    out
}

/// On the current thread: a stop's signal is sent in the same poll of the actor's task that
/// marks it `Stopping`, so a test task that sees `Stopping` knows the signal is sent.
#[tokio::test]
async fn requests_across_a_transport_restart_are_answered_or_refused() {
    tokio::time::timeout(SAFETY, async {
        let (server, mut gate) = host::gated();
        let (connect, clients) = host::connector();
        let options = StdioOptions {
            max_in_flight: 4,
            ..StdioOptions::default()
        };
        // Four workers for the held calls, two for the host's dispatches.
        let config = ApplicationConfig::new().workers(6).stdio(connect, options);
        let rt = Application::start(server, config).await.unwrap();
        let old = take_client(&clients);
        let (old_read, mut old_write) = tokio::io::split(old);
        let conn = rt
            .transports()
            .await
            .unwrap()
            .which_children()
            .await
            .unwrap()[0]
            .cell
            .clone()
            .unwrap();

        // Twelve held calls: four accepted (the in-flight bound), the rest wait in the pipe.
        let mut burst = Vec::new();
        for id in 1..=12u64 {
            burst.extend(host::call_frame(
                id,
                "gate",
                json!({"tag": format!("s{id}")}),
            ));
            burst.push(b'\n');
        }
        old_write.write_all(&burst).await.unwrap();
        let replies = tokio::spawn(read_all(old_read));
        let held = gate.started_n(4).await;
        let mut tags: Vec<&str> = held.iter().map(|s| s.tag.as_str()).collect();
        tags.sort();
        assert_eq!(tags, ["s1", "s2", "s3", "s4"]);

        // Host dispatches run through the pool before the restart, while its stop waits for
        // the held calls, and after it.
        let dispatch = |i: u64| {
            let rt = rt.clone();
            async move { rt.dispatch("echo", json!({"text": format!("h{i}")})).await }
        };
        let mut host_calls = Vec::new();
        for i in 0..5 {
            host_calls.push((i, dispatch(i).await));
        }
        let restart = {
            let rt = rt.clone();
            tokio::spawn(async move { rt.restart_transport(STDIO).await })
        };
        // A poll: the stop reaching the connection has no event but its actor's status; the
        // stop waits for the held calls, so it stays `Stopping` until they are released.
        assert!(
            host::eventually(SAFETY, || async {
                conn.get_status() == ractor::ActorStatus::Stopping
            })
            .await
        );
        for i in 5..10 {
            host_calls.push((i, dispatch(i).await));
        }
        drop(held);
        gate.release_all();
        restart.await.unwrap().unwrap();
        for i in 10..15 {
            host_calls.push((i, dispatch(i).await));
        }

        let replies = replies.await.unwrap();
        let answered: Vec<u64> = replies
            .iter()
            .filter(|(id, v)| v["result"]["content"][0]["text"] == format!("released s{id}"))
            .map(|(id, _)| *id)
            .collect();
        let refused: Vec<u64> = replies
            .iter()
            .filter(|(_, v)| {
                v["error"]["code"] == -32603 && v["error"]["data"]["reason"] == "shutting down"
            })
            .map(|(id, _)| *id)
            .collect();
        assert_eq!(
            answered.len() + refused.len(),
            12,
            "every request answered or refused: {replies:?}"
        );
        for id in 1..=4 {
            assert!(
                answered.contains(&id),
                "held call {id} answered: {replies:?}"
            );
        }
        assert!(!refused.is_empty(), "{replies:?}");

        for (i, reply) in host_calls {
            let reply = reply.expect("host dispatch answered");
            assert_eq!(reply.texts(), [format!("h{i}")]);
        }

        // The restarted connection serves.
        let new = take_client(&clients);
        let (new_read, mut new_write) = tokio::io::split(new);
        let mut frame = host::call_frame(99, "echo", json!({"text": "new connection"}));
        frame.push(b'\n');
        new_write.write_all(&frame).await.unwrap();
        let line = BufReader::new(new_read)
            .lines()
            .next_line()
            .await
            .unwrap()
            .unwrap();
        let reply: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(reply["id"], 99);
        assert_eq!(reply["result"]["content"][0]["text"], "new connection");
        rt.stop(LIMIT).await.unwrap();
    })
    .await
    .expect("bounded");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_ended_connection_stays_down_until_started_again() {
    tokio::time::timeout(LIMIT, async {
        let (connect, clients) = host::connector();
        let config = ApplicationConfig::new().stdio(connect, StdioOptions::default());
        let rt = Application::start(host::server(), config).await.unwrap();
        let transports = rt.transports().await.unwrap();
        let conn = transports.which_children().await.unwrap()[0]
            .cell
            .clone()
            .unwrap();
        drop(take_client(&clients));
        // EOF is a normal end: the transient connection is not restarted.
        host::exited(&conn).await;
        assert!(transports.which_children().await.unwrap()[0].cell.is_none());
        assert_eq!(transports.restart_count(STDIO).await.unwrap(), Some(0));
        assert!(clients.lock().unwrap().is_empty());
        rt.start_transport(STDIO).await.unwrap();
        assert_eq!(clients.lock().unwrap().len(), 1);
        rt.stop(LIMIT).await.unwrap();
    })
    .await
    .expect("bounded");
}
