//! Review of the silent-partition change (branch `review31`): reproductions of what broke.
//! Each test states what it shows; on the reviewed commit (83c1a46) each FAILS, showing the
//! defect. Run one: `cargo test --features cluster --test cluster cluster_review::<name>`.

use crate::host::{self, SAFETY};

use beam_mcp::runtime::cluster::{ClusterNode, DownCause, NodeConfig, PeerEvent};
use beam_mcp::runtime::{Application, ApplicationConfig};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::broadcast;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

const COOKIE: &str = "cluster-review-test-cookie";

/// A loopback relay to `target` that holds each new connection's bytes for `delay` before
/// passing them (a slow handshake), and can cut (close) every connection it carries.
struct SlowRelay {
    addr: SocketAddr,
    cut: Arc<Mutex<CancellationToken>>,
    tasks: Arc<Mutex<JoinSet<()>>>,
}

impl SlowRelay {
    async fn start(target: SocketAddr, delay: Duration) -> SlowRelay {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("relay binds");
        let addr = listener.local_addr().expect("relay address");
        let cut = Arc::new(Mutex::new(CancellationToken::new()));
        let tasks = Arc::new(Mutex::new(JoinSet::new()));
        let (c, t) = (cut.clone(), tasks.clone());
        tasks.lock().unwrap().spawn(async move {
            while let Ok((mut inbound, _)) = listener.accept().await {
                let generation = c.lock().unwrap().clone();
                t.lock().unwrap().spawn(async move {
                    let Ok(mut outbound) = TcpStream::connect(target).await else {
                        return;
                    };
                    tokio::time::sleep(delay).await;
                    tokio::select! {
                        () = generation.cancelled() => {}
                        _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound) => {}
                    }
                });
            }
        });
        SlowRelay { addr, cut, tasks }
    }

    /// Closes every connection carried now; later ones pass bytes (after the delay).
    fn cut(&self) {
        let mut current = self.cut.lock().unwrap();
        current.cancel();
        *current = CancellationToken::new();
    }
}

impl Drop for SlowRelay {
    fn drop(&mut self) {
        self.tasks.lock().unwrap().abort_all();
    }
}

/// The next event on `events` matching `pick`, or `None` after `limit`.
async fn next<T>(
    events: &mut broadcast::Receiver<PeerEvent>,
    limit: Duration,
    mut pick: impl FnMut(PeerEvent) -> Option<T>,
) -> Option<T> {
    let deadline = tokio::time::Instant::now() + limit;
    loop {
        match tokio::time::timeout_at(deadline, events.recv()).await {
            Ok(Ok(event)) => {
                if let Some(t) = pick(event) {
                    return Some(t);
                }
            }
            _ => return None,
        }
    }
}

fn up(event: PeerEvent) -> Option<String> {
    match event {
        PeerEvent::Up { name, .. } => Some(name),
        _ => None,
    }
}

fn down(event: PeerEvent) -> Option<(String, DownCause)> {
    match event {
        PeerEvent::Down { name, cause, .. } => Some((name, cause)),
        _ => None,
    }
}

/// FINDING: a session whose `connect` was cancelled before it was ready (its documented
/// cancel safety: "leaves the connection to finish its handshake on its own") comes up
/// afterwards on its own; the next `connect` to the same address then answers Ok at once
/// (`fresh_to`) and starts no keeper, so that session is never kept: when it ends, nothing
/// reconnects, contrary to "From then on the node keeps a session with the peer". (On
/// 83c1a46 a `connect` that failed with its handshake timeout left such a session too.)
///
/// Expected: after `connect` answers Ok, a cut session comes back by itself (an `Up` again).
/// Observed on 83c1a46: no `Up` ever comes back.
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
    let relay = SlowRelay::start(node_a.addr(), Duration::from_millis(400)).await;

    let first = tokio::time::timeout(Duration::from_millis(150), node_b.connect(relay.addr)).await;
    assert!(first.is_err(), "the first connect is cancelled: {first:?}");
    assert_eq!(
        next(&mut b_events, SAFETY, up).await.as_deref(),
        Some("node_a"),
        "the cancelled connect's session comes up on its own"
    );
    node_b
        .connect(relay.addr)
        .await
        .expect("the second connect answers Ok: the session serves");

    relay.cut();
    assert_eq!(
        next(&mut b_events, SAFETY, down).await,
        Some(("node_a".to_owned(), DownCause::Closed))
    );
    let back = next(&mut b_events, Duration::from_secs(5), up).await;

    drop(relay);
    node_b.stop(SAFETY).await;
    node_a.stop(SAFETY).await;
    runtime.stop(SAFETY).await.expect("runtime stops");
    assert_eq!(
        back.as_deref(),
        Some("node_a"),
        "a session connect answered Ok for is kept: it comes back after a cut"
    );
}

/// FINDING: the detection bound only measures silence, and nothing bounds the handshake of an
/// accepted connection: a client that never authenticates but sends a byte more often than
/// the bound holds its connection (a `NodeSession` actor, a link, a descriptor, and up to a
/// 16 MiB frame buffer) forever, however short the node's handshake timeout. Any number of
/// such clients is admitted.
///
/// Expected: an accepted connection that is not an authenticated, ready session within the
/// handshake timeout is closed. Observed on 83c1a46: all 32 dripping clients are still
/// connected after 8 handshake timeouts (20 detection bounds).
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
    tokio::time::sleep(handshake * 8).await;
    let closed = closed.load(Ordering::SeqCst);
    clients.abort_all();
    node.stop(SAFETY).await;
    assert_eq!(
        closed, 32,
        "every client that did not authenticate within the handshake timeout is closed \
         ({closed} of 32 were)"
    );
}

/// FINDING: `NodeConfig::detect` accepts any bound, but a very large one (`Duration::MAX`,
/// the obvious "never declare") overflows: `link::tune` adds `detect + detect / 2`, and
/// `link::watch` adds the bound to an `Instant`, both of which panic; `connect` panics in the
/// caller, and on the accepting node the accept task panics, after which the node accepts
/// nothing (silently).
///
/// Expected: the bound is clamped (or the arithmetic saturates): `connect` succeeds. Observed
/// on 83c1a46: `connect` panics ("overflow when adding durations").
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

/// FINDING: the keeper retries a peer that accepts and closes at once every ~100 ms forever:
/// its backoff doubles only after a *refused* connect, never after a session that closed
/// before it was ready (a wrong cookie, another service now on the port, an election lost),
/// although docs/cluster.md says such a peer "is not hammered" and the reconnect bound is
/// "the longest wait between two attempts".
///
/// Expected: after a few failed attempts the keeper waits about the reconnect bound (1 s)
/// between attempts (100, 200, 400, 800 ms, then 1 s): at most ~8 attempts in 4 s. Observed on
/// 83c1a46: 39.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_keeper_backs_off_from_a_peer_that_closes_at_once() {
    let _nodes = crate::NODES.lock().await;
    let runtime = Application::start(host::server(), ApplicationConfig::new())
        .await
        .expect("runtime starts");
    let node_a = ClusterNode::start(NodeConfig::new("node_a", COOKIE))
        .await
        .expect("A starts");
    let node_b = ClusterNode::start(NodeConfig::new("node_b", COOKIE))
        .await
        .expect("B starts");
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

/// The TCP ports this process listens on (from /proc: its socket descriptors' inodes matched
/// to the kernel's table of listening sockets).
fn own_listening_ports() -> Vec<u16> {
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
    let mut ports = Vec::new();
    for table in ["/proc/self/net/tcp", "/proc/self/net/tcp6"] {
        let Ok(text) = std::fs::read_to_string(table) else {
            continue;
        };
        for line in text.lines().skip(1) {
            let cols: Vec<&str> = line.split_whitespace().collect();
            // local_address, rem_address, st (0A = LISTEN), ..., inode at index 9
            if cols.len() > 9 && cols[3] == "0A" && inodes.contains(cols[9]) {
                if let Some((_, port)) = cols[1].rsplit_once(':') {
                    if let Ok(port) = u16::from_str_radix(port, 16) {
                        ports.push(port);
                    }
                }
            }
        }
    }
    ports
}

/// FINDING: `ractor_cluster`'s own listener (bound next to the node's, at a port the crate
/// cannot read and "never advertises") takes connections that never go through the crate's
/// link: no detection bound, no keepalive, no `TCP_USER_TIMEOUT`, no events. A client there
/// that sends nothing at all is held forever (on the node's own port it is closed after the
/// bound); a peer that knows the cookie gets a session that is never declared silent. The
/// port is one `ss -ltn` (or a scan of the bind address) away.
///
/// Expected: every port the node listens on applies the bound. Observed on 83c1a46: the
/// silent client on the node's own port is closed; the one on the other listener is not,
/// after 10 bounds.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_silent_client_on_ractor_clusters_own_listener_is_closed_too() {
    let _nodes = crate::NODES.lock().await;
    let detect = Duration::from_millis(200);
    let before = own_listening_ports();
    let node = ClusterNode::start(NodeConfig::new("node_a", COOKIE).detect(detect))
        .await
        .expect("A starts");
    // ractor_cluster's listener starts asynchronously.
    let mut hidden = None;
    for _ in 0..100 {
        hidden = own_listening_ports()
            .into_iter()
            .find(|p| !before.contains(p) && *p != node.addr().port());
        if hidden.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let hidden = hidden.expect("ractor_cluster's own listener is found");
    let hidden = SocketAddr::new(node.addr().ip(), hidden);

    let mut own = TcpStream::connect(node.addr()).await.expect("connects");
    let mut other = TcpStream::connect(hidden).await.expect("connects");
    let mut buf = [0u8; 16];
    let own_closed = tokio::time::timeout(detect * 10, own.read(&mut buf)).await;
    let other_closed = tokio::time::timeout(Duration::from_millis(10), other.read(&mut buf)).await;
    node.stop(SAFETY).await;
    assert!(
        matches!(own_closed, Ok(Ok(0) | Err(_))),
        "the node's own port closes a silent client: {own_closed:?}"
    );
    assert!(
        matches!(other_closed, Ok(Ok(0) | Err(_))),
        "ractor_cluster's listener at {hidden} still holds a client silent for 10 bounds"
    );
}

/// FINDING (local behaviour change): the pool now takes a host actor's reply-port timeout as
/// the call's deadline, and ends the call there through the *deadline* path: a caller's own
/// short bound is counted as a lost worker (`PoolStats::worker_restarts`, documented as "after
/// a panic, a deadline or a pool restart") and logged `WARN dispatch worker lost` — per call,
/// for any local host actor using `call_t!`-style timeouts, and for any remote caller (a peer
/// can send every call with `timeout_ms` 1). Before the change such a caller's work ran to
/// completion and nothing was counted as lost. A caller's bound is not a worker fault.
///
/// Expected: a call ended at its caller's bound is not a worker restart. Observed on
/// 83c1a46: `worker_restarts` 1.
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
    tokio::time::sleep(Duration::from_millis(100)).await;
    let stats = runtime.pool_stats();
    drop(held);
    runtime.stop(SAFETY).await.expect("runtime stops");
    eprintln!("answer: {answer:?}; {stats:?}");
    assert_eq!(
        stats.worker_restarts, 0,
        "a caller's own bound is not a lost worker: {stats:?}"
    );
}
