//! `examples/cluster_pair` as two real OS processes over loopback: node A (runtime, HTTP,
//! cluster node) and node B (a host dispatching through A), both feeding one federated export.
//! Run after `cargo build --features cluster --example cluster_pair` (`.ci/run` does).

use crate::child;

use beam_mcp::connectome::canonical::verify;
use serde_json::{json, Value};
use std::process::Stdio;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::Command;

const LIMIT: Duration = Duration::from_secs(60);

fn export_after(stdout: &str, prefix: &str) -> Value {
    let line = stdout
        .lines()
        .find_map(|l| l.strip_prefix(prefix))
        .unwrap_or_else(|| panic!("no {prefix:?} line in {stdout}"));
    let kind = verify(line.as_bytes()).expect("a sealed export").kind;
    let doc: Value = serde_json::from_str(line).expect("json");
    assert_eq!(doc["kind"], kind);
    doc
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_processes_dispatch_through_node_a_and_federate() {
    let binary = child::example_path("cluster_pair");
    let mut a = Command::new(&binary)
        .args(["a", "127.0.0.1:0", "127.0.0.1:0"])
        .env("BEAM_MCP_SERVE_SECS", "30")
        .env("BEAM_MCP_COOKIE", "cluster-example-test-cookie")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap_or_else(|e| panic!("spawn {}: {e} (build the example first)", binary.display()));
    let stdout = a.stdout.take().expect("piped");
    let mut lines = BufReader::new(stdout).lines();
    let first = tokio::time::timeout(LIMIT, lines.next_line())
        .await
        .expect("node A starts in time")
        .expect("reads")
        .expect("a line");
    // "node_a: cluster on 127.0.0.1:PORT, MCP on http://127.0.0.1:PORT/mcp"
    let cluster = first
        .strip_prefix("node_a: cluster on ")
        .and_then(|rest| rest.split(',').next())
        .unwrap_or_else(|| panic!("unexpected first line {first:?}"))
        .to_owned();

    let b = Command::new(&binary)
        .args(["b", &cluster])
        .env("BEAM_MCP_COOKIE", "cluster-example-test-cookie")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn node B");
    let out = tokio::time::timeout(LIMIT, b.wait_with_output())
        .await
        .expect("node B ends in time")
        .expect("node B runs");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{stdout}");
    assert!(
        stdout.contains("get_weather(Oslo): [\"sunny in Oslo\"]"),
        "{stdout}"
    );
    assert!(stdout.contains("invalid arguments = true"), "{stdout}");

    let observed = export_after(&stdout, "federated observed: ");
    assert_eq!(observed["kind"], "federated_observed");
    assert_eq!(
        observed["body"]["contributors"],
        json!(["node_a", "node_b"])
    );
    // Three calls served on A for B, one on B itself.
    assert_eq!(observed["body"]["graph"]["edges"][0]["count"], 4);
    let effective = export_after(&stdout, "federated effective: ");
    assert_eq!(effective["kind"], "effective");
    assert_eq!(
        effective["body"]["contributors"],
        json!(["node_a", "node_b"])
    );
    assert_eq!(effective["body"]["counts"]["weighted_calls"], 4);
    assert_eq!(effective["body"]["counts"]["unseen_edges"], 1);

    a.kill().await.expect("node A stops");
}
