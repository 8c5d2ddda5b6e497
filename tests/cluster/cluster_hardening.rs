//! The cluster's bounds at their edges (feature `cluster`), each found by a review of the
//! partition work and each failing before its fix: a session `connect` answers Ok for is kept
//! even when an earlier, cancelled `connect` opened it; a connection that never authenticates
//! is closed within the handshake timeout however often it sends a byte; a huge detection
//! bound is clamped, not an overflow; the keeper backs off from a peer that closes at once;
//! `ractor_cluster`'s own listener is on loopback; a local caller's short port timeout is a
//! deadline, not a lost worker.

use crate::host::{self, SAFETY};
use crate::relay::Relay;
use crate::{down, next_event, up};

use beam_mcp::runtime::cluster::{ClusterNode, DownCause, NodeConfig};
use beam_mcp::runtime::{Application, ApplicationConfig};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinSet;

const COOKIE: &str = "cluster-hardening-test-cookie";

/// A session whose `connect` was cancelled before it was ready (its cancel safety: it finishes
/// its handshake on its own) comes up afterwards; the next `connect` to that address answers
/// Ok at once, and from then on the node keeps the session: cut, it comes back by itself (an
/// `Up` again). Before the fix no keeper was started and nothing came back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_left_by_a_cancelled_connect_is_kept_after_connect_answers_ok() {
    let _nodes = crate::NODES.lock().await;
    let runtime = Application::start(host::server(), ApplicationConfig::new())
        .await
        .expect("runtime starts");
    let detect = Duration::from_millis(800);
    let node_a = ClusterNode::start(NodeConfig::new("node_a", COOKIE).detect(detect))
        .await
        .expect("A starts");
    let node_b = ClusterNode::start(
        NodeConfig::new("node_b", COOKIE)
            .detect(detect)
            .reconnect(Duration::from_millis(200)),
    )
    .await
    .expect("B starts");
    let mut b_events = node_b.subscribe();
    // Each connection through the relay takes 400 ms to start passing bytes: the host gives
    // up on the first connect before (shorter than the detection bound and the handshake).
    let relay = Relay::delayed(node_a.addr(), Duration::from_millis(400)).await;

    let first = tokio::time::timeout(Duration::from_millis(150), node_b.connect(relay.addr)).await;
    assert!(first.is_err(), "the first connect is cancelled: {first:?}");
    assert_eq!(
        next_event(&mut b_events, SAFETY, up).await.as_deref(),
        Some("node_a"),
        "the cancelled connect's session comes up on its own"
    );
    node_b
        .connect(relay.addr)
        .await
        .expect("the second connect answers Ok: the session serves");

    relay.cut();
    assert_eq!(
        next_event(&mut b_events, SAFETY, down).await,
        Some(("node_a".to_owned(), DownCause::Closed))
    );
    let back = next_event(&mut b_events, Duration::from_secs(5), up).await;

    drop(relay);
    crate::stop_all(node_b, node_a, runtime).await;
    assert_eq!(
        back.as_deref(),
        Some("node_a"),
        "a session connect answered Ok for is kept: it comes back after a cut"
    );
}

/// The detection bound measures silence only; the handshake timeout bounds the rest: an
/// accepted connection that is not an authenticated, ready session within it is closed, even
/// one that sends a byte more often than the detection bound (32 such clients here, each
/// announcing a 1 MiB frame). Before the fix they were all held for ever, each with a session
/// actor, a link, a descriptor and a frame buffer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unauthenticated_client_dripping_bytes_is_closed_after_the_handshake_timeout() {
    let _nodes = crate::NODES.lock().await;
    let detect = Duration::from_millis(200);
    let handshake = Duration::from_millis(500);
    let node = ClusterNode::start(
        NodeConfig::new("node_a", COOKIE)
            .detect(detect)
            .handshake(handshake),
    )
    .await
    .expect("A starts");
    let closed = Arc::new(AtomicUsize::new(0));
    let mut clients = JoinSet::new();
    for _ in 0..32 {
        let mut stream = TcpStream::connect(node.addr()).await.expect("connects");
        let closed = closed.clone();
        clients.spawn(async move {
            // A frame header announcing 1 MiB (under ractor_cluster's 16 MiB limit), then
            // its body one byte at a time, each well within the detection bound.
            let mut bytes = (1u64 << 20).to_be_bytes().to_vec();
            bytes.extend(std::iter::repeat_n(0x0a_u8, 1 << 20));
            let mut buf = [0u8; 64];
            for byte in bytes {
                if stream.write_all(&[byte]).await.is_err() {
                    closed.fetch_add(1, Ordering::SeqCst);
                    return;
                }
                // Did the node close it?
                if let Ok(read) =
                    tokio::time::timeout(Duration::from_millis(60), stream.read(&mut buf)).await
                {
                    if matches!(read, Ok(0) | Err(_)) {
                        closed.fetch_add(1, Ordering::SeqCst);
                        return;
                    }
                }
            }
        });
    }
    // Each client ends when the node closes it (its 1 MiB would take hours at this pace):
    // waiting for them all is waiting for the closes.
    let all_ended = tokio::time::timeout(SAFETY, async {
        while clients.join_next().await.is_some() {}
    })
    .await;
    let closed = closed.load(Ordering::SeqCst);
    clients.abort_all();
    assert!(all_ended.is_ok(), "{closed} of 32 clients closed");
    node.stop(SAFETY).await;
    assert_eq!(
        closed, 32,
        "every client that did not authenticate within the handshake timeout is closed \
         ({closed} of 32 were)"
    );
}

/// `NodeConfig::detect(Duration::MAX)` (the obvious "never declare") is clamped to a day:
/// `connect` succeeds. Before the fix the socket options' and the watch's arithmetic
/// overflowed, panicking `connect` and the accepting node's accept task.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_huge_detection_bound_does_not_panic() {
    let _nodes = crate::NODES.lock().await;
    let runtime = Application::start(host::server(), ApplicationConfig::new())
        .await
        .expect("runtime starts");
    let node_a = Arc::new(
        ClusterNode::start(NodeConfig::new("node_a", COOKIE).detect(Duration::MAX))
            .await
            .expect("A starts"),
    );
    let node_b = Arc::new(
        ClusterNode::start(NodeConfig::new("node_b", COOKIE).detect(Duration::MAX))
            .await
            .expect("B starts"),
    );
    let (a, b) = (node_a.clone(), node_b.clone());
    let connected = tokio::spawn(async move { b.connect(a.addr()).await }).await;
    let result = match &connected {
        Ok(Ok(())) => Ok(()),
        Ok(Err(e)) => Err(format!("connect failed: {e}")),
        Err(e) if e.is_panic() => Err("connect panicked".to_owned()),
        Err(e) => Err(format!("{e}")),
    };
    if let (Ok(a), Ok(b)) = (Arc::try_unwrap(node_a), Arc::try_unwrap(node_b)) {
        b.stop(SAFETY).await;
        a.stop(SAFETY).await;
    }
    runtime.stop(SAFETY).await.expect("runtime stops");
    result.expect("a node with detect(Duration::MAX) connects");
}

/// The keeper backs off from a peer that accepts and closes at once (a wrong cookie, another
/// service now on the port) as from one that refuses: pauses doubling from 100 ms to the
/// reconnect bound (1 s), so at most about 8 attempts in 4 s. Before the fix it retried every
/// 100 ms for ever (39 attempts).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_keeper_backs_off_from_a_peer_that_closes_at_once() {
    let _nodes = crate::NODES.lock().await;
    let runtime = Application::start(host::server(), ApplicationConfig::new())
        .await
        .expect("runtime starts");
    let (node_a, node_b) = crate::nodes_a_and_b(|name| NodeConfig::new(name, COOKIE)).await;
    let a_addr = node_a.addr();
    node_b.connect(a_addr).await.expect("B joins A");
    node_a.stop(SAFETY).await;
    // Something else now answers at A's address: it accepts and closes at once.
    let listener = loop {
        match TcpListener::bind(a_addr).await {
            Ok(listener) => break listener,
            Err(_) => tokio::time::sleep(Duration::from_millis(10)).await,
        }
    };
    let accepted = Arc::new(AtomicUsize::new(0));
    let counting = accepted.clone();
    let server = tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            counting.fetch_add(1, Ordering::SeqCst);
            drop(stream);
        }
    });
    tokio::time::sleep(Duration::from_secs(4)).await;
    server.abort();
    let attempts = accepted.load(Ordering::SeqCst);
    node_b.stop(SAFETY).await;
    runtime.stop(SAFETY).await.expect("runtime stops");
    assert!(
        attempts <= 8,
        "{attempts} attempts in 4 s at a reconnect bound of 1 s"
    );
}

/// The IPv4 TCP addresses this process listens on (from /proc: its socket descriptors' inodes
/// matched to the kernel's table of listening sockets).
fn own_listeners() -> Vec<SocketAddr> {
    let inodes: std::collections::HashSet<String> = std::fs::read_dir("/proc/self/fd")
        .map(|dir| {
            dir.filter_map(|e| std::fs::read_link(e.ok()?.path()).ok())
                .filter_map(|target| {
                    let t = target.to_string_lossy().into_owned();
                    t.strip_prefix("socket:[")?
                        .strip_suffix(']')
                        .map(str::to_owned)
                })
                .collect()
        })
        .unwrap_or_default();
    let text = std::fs::read_to_string("/proc/self/net/tcp").unwrap_or_default();
    let mut found = Vec::new();
    for line in text.lines().skip(1) {
        let cols: Vec<&str> = line.split_whitespace().collect();
        // local_address (hex, the address in the host's byte order), rem_address, st
        // (0A = LISTEN), ..., inode at index 9
        if cols.len() > 9 && cols[3] == "0A" && inodes.contains(cols[9]) {
            let Some((ip, port)) = cols[1].split_once(':') else {
                continue;
            };
            if let (Ok(ip), Ok(port)) = (u32::from_str_radix(ip, 16), u16::from_str_radix(port, 16))
            {
                let ip = std::net::Ipv4Addr::from(ip.to_le_bytes());
                found.push(SocketAddr::new(ip.into(), port));
            }
        }
    }
    found
}

/// `ractor_cluster`'s node server always opens a listener of its own (a port the crate cannot
/// read and never advertises), and connections there never go through the crate's links: no
/// detection bound, no handshake bound, no keepalive, no events. The crate cannot close it, so
/// it binds it to loopback whatever the node's address: a node listening on every interface
/// exposes that second port to local processes only. (On the review's commit it was bound to
/// the node's address, and a client there silent for ten bounds was still held.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ractor_clusters_own_listener_is_on_loopback_whatever_the_nodes_address() {
    let _nodes = crate::NODES.lock().await;
    let before = own_listeners();
    let any: SocketAddr = "0.0.0.0:0".parse().expect("an address");
    let node = ClusterNode::start(NodeConfig::new("node_a", COOKIE).bind(any))
        .await
        .expect("A starts");
    assert!(node.addr().ip().is_unspecified());
    // ractor_cluster's listener starts asynchronously (bounded poll: a socket has no event).
    let mut other = None;
    for _ in 0..100 {
        other = own_listeners()
            .into_iter()
            .find(|a| !before.contains(a) && a.port() != node.addr().port());
        if other.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    node.stop(SAFETY).await;
    let other = other.expect("ractor_cluster's own listener is found");
    assert!(
        other.ip().is_loopback(),
        "ractor_cluster's listener is on {other}"
    );
}

/// A host actor's reply-port timeout shorter than the pool's deadline ends the call there (a
/// `"deadline"`, counted as one), but it is the caller's choice, not a worker's fault: no
/// worker restart is counted and no "dispatch worker lost" is logged.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_local_callers_port_timeout_is_not_counted_as_a_lost_worker() {
    let _nodes = crate::NODES.lock().await;
    let (server, mut gate) = host::gated();
    let runtime = Application::start(server, ApplicationConfig::new().workers(2))
        .await
        .expect("runtime starts");
    let dispatcher = runtime.dispatcher().expect("the catalog actor runs");
    let (tx, rx) = ractor::concurrency::oneshot();
    dispatcher
        .send_message(beam_mcp::runtime::ApplicationMsg::Dispatch {
            tool: "gate".to_owned(),
            arguments: serde_json::json!({"tag": "local"}),
            extensions: beam_mcp::Extensions::new(),
            reply: ractor::RpcReplyPort::from((tx, Duration::from_millis(100))),
        })
        .expect("sent");
    let held = gate.started().await;
    let answer = tokio::time::timeout(SAFETY, rx).await.expect("answered");
    // The pool counts before it answers: the stats are final once the answer is here.
    let stats = runtime.pool_stats();
    drop(held);
    runtime.stop(SAFETY).await.expect("runtime stops");
    let refused = answer
        .expect("an answer")
        .expect_err("ended at the caller's bound");
    assert!(refused.is_deadline(), "{refused}");
    assert_eq!(stats.deadlines, 1, "{stats:?}");
    assert_eq!(
        stats.worker_restarts, 0,
        "a caller's own bound is not a lost worker: {stats:?}"
    );
}
