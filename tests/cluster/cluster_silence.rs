//! A silent peer, in this process (feature `cluster`): node B reaches node A through a relay on
//! loopback that can go quiet without closing anything — it stops passing bytes both ways and
//! holds both connections open, as a partition does to the applications (the kernels still
//! acknowledge, so only the crate's own check can tell). With calls pending on A (a `gate`
//! call held, through `dispatch_to` and through a bare reply port without a timeout), the
//! relay goes quiet; every caller is answered "unavailable" while the tools are still held,
//! both nodes report the other down as silent, A's dispatcher leaves B's group, and a new
//! call is refused. Then the relay passes bytes again and B's session comes back by itself:
//! B reports A up, and a call crosses, with no host action.
//!
//! Ordered by events (the gate's starts, the nodes' peer events, the group's changes); the
//! bounds are the test's safety net, not timing assertions (`cluster_partition.rs` measures).

use crate::host::{self, SAFETY};
use crate::relay::Relay;
use crate::{down, next_event, up, GroupWatch};

use beam_mcp::runtime::cluster::{
    dispatch_to, remote_dispatchers, wait_for_remote_dispatcher, ClusterNode, DownCause,
    NodeConfig, DISPATCH_GROUP,
};
use beam_mcp::runtime::{Application, ApplicationConfig, ApplicationMsg, DispatchResult};
use beam_mcp::Extensions;
use serde_json::json;
use std::time::Duration;
use tokio::io::AsyncReadExt;
use tokio::net::TcpStream;

const COOKIE: &str = "cluster-silence-test-cookie";
const DETECT: Duration = Duration::from_millis(800);
const RECONNECT: Duration = Duration::from_millis(200);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_silent_peer_is_declared_down_its_callers_answered_and_the_session_heals_by_itself() {
    // ractor's process groups are process-wide: no other test's nodes while these run.
    let _nodes = crate::NODES.lock().await;
    let (server, mut gate) = host::gated();
    let runtime = Application::start(server, ApplicationConfig::new().workers(4))
        .await
        .expect("runtime starts");
    let (node_a, node_b) = crate::nodes_a_and_b(|name| {
        NodeConfig::new(name, COOKIE)
            .detect(DETECT)
            .reconnect(RECONNECT)
    })
    .await;
    let mut a_events = node_a.subscribe();
    let mut b_events = node_b.subscribe();
    let relay = Relay::start(node_a.addr()).await;

    node_b
        .connect(relay.addr)
        .await
        .expect("B joins A through the relay");
    assert_eq!(
        next_event(&mut b_events, SAFETY, up).await.as_deref(),
        Some("node_a")
    );
    assert_eq!(
        next_event(&mut a_events, SAFETY, up).await.as_deref(),
        Some("node_b")
    );
    let remote = wait_for_remote_dispatcher(SAFETY)
        .await
        .expect("A's catalog actor appears in B's group");
    let ok = dispatch_to(&remote, "echo", json!({"text": "before"}), SAFETY).await;
    assert_eq!(ok.expect("a call crosses").texts(), ["before"]);

    // Calls pending on A: three through `dispatch_to` (bounded far beyond the test), one on a
    // bare reply port with no bound at all.
    let pending: Vec<_> = (0..3)
        .map(|i| {
            let remote = remote.clone();
            tokio::spawn(async move {
                dispatch_to(&remote, "gate", json!({"tag": format!("t{i}")}), SAFETY).await
            })
        })
        .collect();
    let (tx, bare) = tokio::sync::oneshot::channel::<DispatchResult>();
    let (port_tx, port_rx) = ractor::concurrency::oneshot();
    remote
        .send_message(ApplicationMsg::Dispatch {
            tool: "gate".to_owned(),
            arguments: json!({"tag": "bare"}),
            extensions: Extensions::new(),
            reply: ractor::RpcReplyPort::from(port_tx),
        })
        .expect("sent");
    tokio::spawn(async move {
        if let Ok(answer) = port_rx.await {
            let _ = tx.send(answer);
        }
    });
    let held = gate.started_n(4).await;

    let mut group = GroupWatch::start(DISPATCH_GROUP).await;
    relay.quiet();

    for task in pending {
        let answer = tokio::time::timeout(SAFETY, task)
            .await
            .expect("answered")
            .expect("the caller task ends");
        let refused = answer.expect_err("a silent peer refuses");
        assert!(refused.is_unavailable(), "{refused}");
    }
    let bare = tokio::time::timeout(SAFETY, bare)
        .await
        .expect("the bare port is answered")
        .expect("an answer, not a dropped port");
    assert!(bare.expect_err("refused").is_unavailable());
    assert_eq!(
        next_event(&mut b_events, SAFETY, down).await,
        Some(("node_a".to_owned(), DownCause::Silent))
    );
    assert_eq!(
        next_event(&mut a_events, SAFETY, down).await,
        Some(("node_b".to_owned(), DownCause::Silent))
    );
    assert!(
        group
            .until(SAFETY, || remote_dispatchers().is_empty())
            .await,
        "A's catalog actor leaves B's group"
    );
    let late = dispatch_to(&remote, "echo", json!({"text": "late"}), SAFETY).await;
    assert!(late.expect_err("nothing serves it").is_unavailable());
    // Only now are the tools let go: every answer above came while they were held.
    drop(held);

    // The relay passes bytes again: B's keeper reconnects by itself.
    assert_eq!(
        next_event(&mut b_events, SAFETY, up).await.as_deref(),
        Some("node_a")
    );
    let healed = wait_for_remote_dispatcher(SAFETY)
        .await
        .expect("A's catalog actor is back in B's group");
    group.stop();
    let ok = dispatch_to(&healed, "echo", json!({"text": "after"}), SAFETY).await;
    assert_eq!(ok.expect("a call crosses again").texts(), ["after"]);
    node_b
        .connect(relay.addr)
        .await
        .expect("connect to a kept, healed peer answers at once");
    assert!(
        gate.try_started().is_none(),
        "nothing from before the cut ran again"
    );

    drop(relay);
    crate::stop_all(node_b, node_a, runtime).await;
}

/// A remote caller's bound is the call's deadline on both nodes: 25 callers with a short
/// bound on a tool that never answers are each refused "deadline" (never the "unavailable"
/// of a second timer racing the first), and the serving pool ended each call at that bound
/// itself (its deadline count), not at its own 30 s.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_remote_callers_bound_is_the_calls_deadline_on_both_nodes() {
    let _nodes = crate::NODES.lock().await;
    let (server, mut gate) = host::gated();
    // The pool's own deadline is beyond the test's safety net: only the callers' bound can
    // end these calls within it.
    let config = ApplicationConfig::new().workers(32).deadline(SAFETY * 2);
    let runtime = Application::start(server, config)
        .await
        .expect("runtime starts");
    let (node_a, node_b) = crate::nodes_a_and_b(|name| NodeConfig::new(name, COOKIE)).await;
    node_b.connect(node_a.addr()).await.expect("B joins A");
    let remote = wait_for_remote_dispatcher(SAFETY)
        .await
        .expect("A's catalog actor appears in B's group");

    let bound = Duration::from_millis(300);
    let callers: Vec<_> = (0..25)
        .map(|i| {
            let remote = remote.clone();
            tokio::spawn(async move {
                dispatch_to(&remote, "gate", json!({"tag": format!("b{i}")}), bound).await
            })
        })
        .collect();
    // Every call runs on A, held, while its caller's bound passes.
    let held = gate.started_n(25).await;
    for caller in callers {
        let refused = caller
            .await
            .expect("the caller ends")
            .expect_err("nothing answers in time");
        assert!(refused.is_deadline(), "{refused}");
    }
    // The serving pool counts each call it ended at its deadline; bounded by SAFETY, not
    // timed: the counter moves when each watch fires.
    let counted = tokio::time::timeout(SAFETY, async {
        while runtime.pool_stats().deadlines < 25 {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await;
    assert!(counted.is_ok(), "{:?}", runtime.pool_stats());
    drop(held);

    crate::stop_all(node_b, node_a, runtime).await;
}

/// Two nodes that each connect to the other (as a cluster whose nodes all list their peers
/// does): `ractor_cluster`'s election keeps one session and closes the other connection, and
/// both `connect`s still answer Ok, because a session with the peer serves; calls cross.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_nodes_connecting_to_each_other_both_succeed_on_the_session_kept() {
    let _nodes = crate::NODES.lock().await;
    let runtime = Application::start(host::server(), ApplicationConfig::new())
        .await
        .expect("runtime starts");
    let (node_a, node_b) = crate::nodes_a_and_b(|name| NodeConfig::new(name, COOKIE)).await;
    node_a.connect(node_b.addr()).await.expect("A joins B");
    node_b.connect(node_a.addr()).await.expect("B joins A");
    node_a
        .connect(node_b.addr())
        .await
        .expect("A again: the kept session serves");
    let remote = wait_for_remote_dispatcher(SAFETY)
        .await
        .expect("a remote dispatcher");
    let ok = dispatch_to(&remote, "echo", json!({"text": "both"}), SAFETY).await;
    assert_eq!(ok.expect("a call crosses").texts(), ["both"]);
    assert_eq!(node_a.peers().await.expect("A runs"), 1);
    assert_eq!(node_b.peers().await.expect("B runs"), 1);

    crate::stop_all(node_b, node_a, runtime).await;
}

/// A connection to a node that never speaks (a scanner, a half-open client, a peer that hangs
/// before its handshake) is a silent peer like any: closed once the detection bound passes,
/// not held for ever; the node serves on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connection_that_never_speaks_is_closed_after_the_bound() {
    let _nodes = crate::NODES.lock().await;
    let node = ClusterNode::start(NodeConfig::new("node_a", COOKIE).detect(DETECT))
        .await
        .expect("A starts");
    let mut mute = TcpStream::connect(node.addr()).await.expect("connects");
    let mut byte = [0u8; 1];
    let ended = tokio::time::timeout(SAFETY, mute.read(&mut byte))
        .await
        .expect("the node ends the connection");
    assert!(
        matches!(ended, Ok(0) | Err(_)),
        "closed or reset, not a byte: {ended:?}"
    );
    assert_eq!(node.peers().await.expect("A runs"), 0);
    node.stop(SAFETY).await;
}
