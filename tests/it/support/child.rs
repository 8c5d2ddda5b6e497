//! Drives the weather example as a real subprocess over its stdin and stdout.

use serde_json::Value;
use std::collections::HashMap;
use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

pub(crate) const WAIT: Duration = Duration::from_secs(20);

/// Where cargo put an example binary (tests and examples share a target directory).
pub(crate) fn example_path(name: &str) -> PathBuf {
    let mut dir = std::env::current_exe().unwrap();
    dir.pop();
    if dir.ends_with("deps") {
        dir.pop();
    }
    dir.join("examples").join(name)
}

/// A loopback port free when asked (and released at once: a child told to bind it may, in
/// rare cases, find it taken, so tests that start children hold a lock while they do).
pub(crate) fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Starts `example` with `--http 127.0.0.1:0 --print-addr` (a free loopback port), its stderr
/// piped when `log` is set (else discarded), and reads the address it prints.
pub(crate) async fn spawn_http_example(example: &str, log: bool) -> (Child, std::net::SocketAddr) {
    let mut child = Command::new(example_path(example))
        .args(["--http", "127.0.0.1:0", "--print-addr"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(if log { Stdio::piped() } else { Stdio::null() })
        .kill_on_drop(true)
        .spawn()
        .unwrap_or_else(|e| panic!("spawn {example}: {e}"));
    let stdout = child.stdout.take().unwrap();
    let line = tokio::time::timeout(WAIT, BufReader::new(stdout).lines().next_line())
        .await
        .expect("no address within the wait")
        .unwrap()
        .expect("the host printed no address");
    (child, line.trim().parse().unwrap())
}

pub(crate) struct ChildClient {
    pub(crate) child: Child,
    stdin: Option<ChildStdin>,
    lines: Lines<BufReader<ChildStdout>>,
    stash: HashMap<String, Value>,
    pub(crate) unsolicited: Vec<Value>,
}

impl ChildClient {
    pub(crate) fn spawn(example: &str, args: &[&str]) -> ChildClient {
        let mut child = Command::new(example_path(example))
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .unwrap_or_else(|e| {
                panic!("spawn {example}: {e} (is it built? cargo test builds examples)")
            });
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().unwrap();
        ChildClient {
            child,
            stdin,
            lines: BufReader::new(stdout).lines(),
            stash: HashMap::new(),
            unsolicited: Vec::new(),
        }
    }

    pub(crate) async fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(bytes).await.unwrap();
        stdin.flush().await.unwrap();
    }

    pub(crate) async fn send(&mut self, v: &Value) {
        let mut line = serde_json::to_vec(v).unwrap();
        line.push(b'\n');
        self.send_raw(&line).await;
    }

    /// The next line on stdout, parsed (every line must be one JSON-RPC frame).
    pub(crate) async fn next_line(&mut self) -> Option<Value> {
        let line = tokio::time::timeout(WAIT, self.lines.next_line())
            .await
            .expect("no line within the wait")
            .unwrap()?;
        Some(
            serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {line:?}")),
        )
    }

    /// The response with this id, holding others aside.
    pub(crate) async fn response(&mut self, id: &Value) -> Value {
        let key = id.to_string();
        if let Some(v) = self.stash.remove(&key) {
            return v;
        }
        loop {
            let v = self
                .next_line()
                .await
                .expect("stdout closed before the response");
            match v.get("id") {
                Some(got) if got == id => return v,
                Some(got) => {
                    self.stash.insert(got.to_string(), v);
                }
                None => self.unsolicited.push(v),
            }
        }
    }

    pub(crate) async fn request(&mut self, v: Value) -> Value {
        let id = v["id"].clone();
        self.send(&v).await;
        self.response(&id).await
    }

    pub(crate) fn close_stdin(&mut self) {
        self.stdin = None;
    }

    pub(crate) async fn wait_exit(&mut self) -> std::process::ExitStatus {
        tokio::time::timeout(WAIT, self.child.wait())
            .await
            .expect("child did not exit")
            .unwrap()
    }
}

/// Each line `r` yields, sent down a channel by a task of its own until `r` ends or the
/// receiver goes: a child's stdout or stderr read without blocking the test.
pub(crate) fn lines<R: tokio::io::AsyncRead + Unpin + Send + 'static>(
    r: R,
) -> tokio::sync::mpsc::UnboundedReceiver<String> {
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    tokio::spawn(async move {
        let mut lines = BufReader::new(r).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}
