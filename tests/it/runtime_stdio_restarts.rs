//! The stdio transport of the supervised runtime, restarted many times while a real subprocess
//! (the weather example, `--runtime-restarts`) is fed over its stdin: every line written is
//! answered exactly once, served or refused with -32603 `{"reason": "shutting down"}`, and a
//! line half written when a restart happens is served whole after it.

use crate::support::child;

use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::process::Stdio;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::Command;
use tokio::sync::watch;

/// Restarts of the stdio connection during the run.
const RESTARTS: u32 = 16;
/// At most this many lines are written between two restarts.
const CAP_PER_ROUND: u64 = 1500;
/// Lines written after the last restart.
const TAIL: u64 = 100;
const LIMIT: Duration = Duration::from_secs(120);
const SERVED: &str = r#"{"celsius":12,"conditions":"light rain","place":"Oslo"}"#;

fn frame(id: u64) -> Vec<u8> {
    let mut line = serde_json::to_vec(&json!({
        "jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": "get_weather", "arguments": {"place": "Oslo"}}
    }))
    .unwrap();
    line.push(b'\n');
    line
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_line_is_answered_exactly_once_across_many_restarts() {
    tokio::time::timeout(LIMIT, async {
        let restarts = RESTARTS.to_string();
        let mut child = Command::new(child::example_path("weather"))
            .args(["--runtime-restarts", &restarts, "--restart-every-ms", "20"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("spawn the weather example (cargo test builds examples)");
        let mut stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let stderr = child.stderr.take().unwrap();

        // Every reply line, until the child closes stdout.
        let replies = tokio::spawn(async move {
            let mut lines = BufReader::new(stdout).lines();
            let mut out = Vec::new();
            while let Some(line) = lines.next_line().await.unwrap() {
                out.push(serde_json::from_str::<Value>(&line).unwrap());
            }
            out
        });
        // The child's restart notices, counted.
        let (seen_tx, mut seen) = watch::channel(0u32);
        let notices = Arc::new(AtomicU32::new(0));
        let counter = notices.clone();
        tokio::spawn(async move {
            let mut lines = BufReader::new(stderr).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                if line.contains("stdio transport restarted") {
                    let n = counter.fetch_add(1, Ordering::SeqCst) + 1;
                    let _ = seen_tx.send(n);
                }
            }
        });

        let mut next_id = 1u64;
        let mut split_lines = Vec::new();
        for round in 1..=RESTARTS {
            if round % 2 == 1 {
                // Half a line, then the restart, then the rest of it.
                let line = frame(next_id);
                split_lines.push(next_id);
                next_id += 1;
                let (head, tail) = line.split_at(line.len() / 2);
                stdin.write_all(head).await.unwrap();
                stdin.flush().await.unwrap();
                seen.wait_for(|n| *n >= round)
                    .await
                    .expect("the child restarts");
                stdin.write_all(tail).await.unwrap();
            } else {
                // Whole lines without a pause until the restart has happened.
                let mut written = 0;
                while notices.load(Ordering::SeqCst) < round && written < CAP_PER_ROUND {
                    stdin.write_all(&frame(next_id)).await.unwrap();
                    next_id += 1;
                    written += 1;
                }
                seen.wait_for(|n| *n >= round)
                    .await
                    .expect("the child restarts");
            }
        }
        for _ in 0..TAIL {
            stdin.write_all(&frame(next_id)).await.unwrap();
            next_id += 1;
        }
        stdin.flush().await.unwrap();
        drop(stdin);

        let replies = replies.await.unwrap();
        let status = child.wait().await.unwrap();
        assert!(status.success(), "the child exits cleanly: {status}");
        assert_eq!(notices.load(Ordering::SeqCst), RESTARTS);

        let mut by_id: BTreeMap<u64, Vec<&Value>> = BTreeMap::new();
        let mut no_id = Vec::new();
        for r in &replies {
            match r["id"].as_u64() {
                Some(id) => by_id.entry(id).or_default().push(r),
                None => no_id.push(r),
            }
        }
        let missing: Vec<u64> = (1..next_id).filter(|id| !by_id.contains_key(id)).collect();
        assert!(
            missing.is_empty() && no_id.is_empty(),
            "{} of {} lines unanswered (first: {:?}); replies without an id (a line that lost \
             its head): {no_id:?}",
            missing.len(),
            next_id - 1,
            &missing[..missing.len().min(20)]
        );
        let twice: Vec<u64> = by_id
            .iter()
            .filter(|(_, rs)| rs.len() > 1)
            .map(|(id, _)| *id)
            .collect();
        assert!(twice.is_empty(), "answered twice: {twice:?}");
        assert_eq!(
            by_id.len() as u64,
            next_id - 1,
            "no reply to an id never sent"
        );

        let served = |v: &Value| v["result"]["content"][0]["text"] == SERVED;
        let refused = |v: &Value| {
            v["error"]["code"] == -32603 && v["error"]["data"]["reason"] == "shutting down"
        };
        let other: Vec<&Value> = replies
            .iter()
            .filter(|v| !served(v) && !refused(v))
            .collect();
        assert!(other.is_empty(), "served or refused only: {other:?}");
        let refusals = replies.iter().filter(|v| refused(v)).count();
        println!(
            "{} lines, {} served, {refusals} refused, over {RESTARTS} restarts",
            next_id - 1,
            replies.len() - refusals
        );
        // A line half written when its connection stopped was read whole by a later one: its
        // reply carries its id (a line that lost its head would be a parse error, id null). It
        // may still be refused, when the backlog before it reaches the next restart.
        assert!(split_lines.iter().all(|id| by_id.contains_key(id)));
        // What follows the last restart is served.
        for id in next_id - TAIL..next_id {
            assert!(served(by_id[&id][0]), "tail line {id}: {:?}", by_id[&id]);
        }
    })
    .await
    .expect("bounded");
}
