//! Restarting the stdio transport while tools/call is in flight, over it and from the host:
//! every request is answered or refused with an error, none is lost silently.

use crate::support::runtime_host as host;

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

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn requests_across_a_transport_restart_are_answered_or_refused() {
    tokio::time::timeout(LIMIT, async {
        let (connect, clients) = host::connector();
        let options = StdioOptions {
            max_in_flight: 4,
            ..StdioOptions::default()
        };
        let config = ApplicationConfig::new().workers(2).stdio(connect, options);
        let rt = Application::start(host::server(), config).await.unwrap();
        let old = take_client(&clients);
        let (old_read, mut old_write) = tokio::io::split(old);

        // Twelve slow calls: four accepted (the in-flight bound), the rest wait in the pipe.
        let mut burst = Vec::new();
        for id in 1..=12u64 {
            burst.extend(host::call_frame(id, "slow", json!({"ms": 100})));
            burst.push(b'\n');
        }
        old_write.write_all(&burst).await.unwrap();
        let replies = tokio::spawn(read_all(old_read));

        // Host dispatches run through the pool the whole time.
        let host_calls: Vec<_> = (0..20)
            .map(|i| {
                let rt = rt.clone();
                tokio::spawn(async move {
                    tokio::time::sleep(Duration::from_millis(i * 10)).await;
                    rt.dispatch("echo", json!({"text": format!("h{i}")})).await
                })
            })
            .collect();

        tokio::time::sleep(Duration::from_millis(30)).await;
        rt.restart_transport(STDIO).await.unwrap();

        let replies = replies.await.unwrap();
        let answered: Vec<u64> = replies
            .iter()
            .filter(|(_, v)| v["result"]["content"][0]["text"] == "slept 100")
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
        assert!(!answered.is_empty() && !refused.is_empty(), "{replies:?}");

        for (i, call) in host_calls.into_iter().enumerate() {
            let reply = call.await.unwrap().expect("host dispatch answered");
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
        drop(take_client(&clients));
        let transports = rt.transports().await.unwrap();
        // EOF is a normal end: the transient connection is not restarted.
        assert!(
            host::eventually(LIMIT, || async {
                transports.which_children().await.unwrap()[0].cell.is_none()
            })
            .await
        );
        assert_eq!(transports.restart_count(STDIO).await.unwrap(), Some(0));
        assert!(clients.lock().unwrap().is_empty());
        rt.start_transport(STDIO).await.unwrap();
        assert_eq!(clients.lock().unwrap().len(), 1);
        rt.stop(LIMIT).await.unwrap();
    })
    .await
    .expect("bounded");
}
