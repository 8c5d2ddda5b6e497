//! The cluster seam (feature `cluster`): nodes on `ractor_cluster`, and host dispatch to the
//! runtime of another node.
//!
//! **What crosses a node.** [`ApplicationMsg::Dispatch`](super::ApplicationMsg::Dispatch) (tool name and arguments) and its reply
//! (the [`ToolResult`](super::ToolResult) or the [`DispatchError`](super::DispatchError) with
//! its typed refusal), in the encoding of [`DISPATCH_VARIANT`]. The dispatch's `extensions` do not cross: the tool on
//! the serving node sees none. Everything else (the pool, the catalog, transports,
//! the collector's counters) stays on its node.
//!
//! **Finding a runtime.** With this feature every runtime's catalog actor joins the process
//! group [`DISPATCH_GROUP`] when it starts (and again when it restarts). Groups cross a node
//! only through a [`ClusterNode`]'s sessions: a process that starts none exposes nothing.
//! [`remote_dispatchers`] lists the catalog actors of the other nodes.
//!
//! **A node lost mid-call.** A remote dispatch waits on a reply that the session to the
//! serving node holds. When that session ends (the node stopped, crashed, the connection
//! broke, or the peer was silent for the detection bound, [`NodeConfig::detect`]) the pending
//! reply is dropped, and the caller is answered at once with -32603 and
//! `data.reason = "unavailable"`, as for a local pool that cannot run the work. No remote call
//! is without a deadline ([`REMOTE_DEADLINE`] when its port has none). Never a hang.
//!
//! **Sessions heal.** A node keeps every session it [`connect`](ClusterNode::connect)ed: when
//! one ends, it connects again by itself, within about [`NodeConfig::reconnect`] of the peer
//! being reachable. [`ClusterNode::subscribe`] tells the host each session's coming and going.
//!
//! **Who may join.** Any peer that knows the cookie: `ractor_cluster` authenticates a session
//! with a challenge over the shared cookie, and the connection is unencrypted. A joined node
//! may call every tool of every runtime in [`DISPATCH_GROUP`] with any arguments (validated
//! as any call) and with no caller context. Bind to loopback (the default of
//! [`NodeConfig::new`]) or to a private network; see docs/threat-model.md.

use heartbeat::{Heartbeat, HeartbeatMsg};
use link::{Link, LinkStream};
use peers::{Events, Links, EVENT_BACKLOG};
use ractor::ActorRef;
use ractor_cluster::{NodeServer, NodeServerMessage};
use std::collections::HashMap;
use std::fmt;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::broadcast;
use tokio::task::JoinHandle;

pub use super::message::{DISPATCH_VARIANT, REMOTE_DEADLINE};
pub(crate) use dispatch::join_dispatch_group;
pub use dispatch::{dispatch_to, remote_dispatchers, wait_for_remote_dispatcher};
pub use error::ClusterError;
pub use heartbeat::{BEAT_VARIANT, HEARTBEAT_GROUP};
pub use peers::{DownCause, PeerEvent};

mod dispatch;
mod error;
mod heartbeat;
mod keeper;
mod link;
#[cfg(feature = "connectome")]
pub mod observed;
mod peers;

/// The process group every runtime's catalog actor joins under the `cluster` feature.
pub const DISPATCH_GROUP: &str = "beam_mcp.dispatch";

/// How long [`ClusterNode::connect`] waits for the session to be authenticated and ready, by
/// default.
pub const DEFAULT_HANDSHAKE: Duration = Duration::from_secs(5);

/// How long a peer may send nothing before it is declared down, by default.
pub const DEFAULT_DETECT: Duration = Duration::from_secs(3);

/// The longest a node waits between two attempts to reopen a session it keeps, by default.
pub const DEFAULT_RECONNECT: Duration = Duration::from_secs(1);

/// The longest bound a node takes (a day): past it, clocks and socket options overflow.
const LONGEST: Duration = Duration::from_secs(24 * 60 * 60);

// Under ractor's `cluster` feature the blanket `Message` impl is gone: the runtime's local
// actors say here that their messages never leave the node.
impl ractor::Message for super::pool::PoolMsg {}
impl ractor::Message for super::stdio::StdioMsg {}

/// How a node starts: its name, the cookie its peers share, where it listens.
#[derive(Clone)]
pub struct NodeConfig {
    name: String,
    cookie: String,
    bind: SocketAddr,
    handshake: Duration,
    detect: Duration,
    reconnect: Duration,
}

impl fmt::Debug for NodeConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The cookie is the cluster's only credential: never printed.
        f.debug_struct("NodeConfig")
            .field("name", &self.name)
            .field("bind", &self.bind)
            .field("handshake", &self.handshake)
            .field("detect", &self.detect)
            .field("reconnect", &self.reconnect)
            .finish_non_exhaustive()
    }
}

impl NodeConfig {
    /// A node named `name`, admitting peers that know `cookie`, listening on 127.0.0.1 at a
    /// port the system picks ([`ClusterNode::addr`] says which).
    pub fn new(name: impl Into<String>, cookie: impl Into<String>) -> Self {
        NodeConfig {
            name: name.into(),
            cookie: cookie.into(),
            bind: SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), 0),
            handshake: DEFAULT_HANDSHAKE,
            detect: DEFAULT_DETECT,
            reconnect: DEFAULT_RECONNECT,
        }
    }

    /// Listen on `addr` instead (port 0 for one the system picks).
    #[must_use]
    pub fn bind(mut self, addr: SocketAddr) -> Self {
        self.bind = addr;
        self
    }

    /// How long [`ClusterNode::connect`] waits for a session to be ready, and how long any
    /// connection, accepted or opened, may go without one before it is closed. Kept at a day
    /// at most.
    #[must_use]
    pub fn handshake(mut self, timeout: Duration) -> Self {
        self.handshake = timeout.min(LONGEST);
        self
    }

    /// The failure detection bound ([`DEFAULT_DETECT`], 3 s, by default): a peer from which
    /// no byte arrived for this long is declared down. Its session ends, every call pending
    /// on it is answered -32603 `"unavailable"` at once, its actors leave this node's process
    /// groups ([`remote_dispatchers`] no longer lists it), and subscribers see
    /// [`PeerEvent::Down`] with [`DownCause::Silent`].
    ///
    /// Every node beats to each peer at a quarter of its own bound, so give the nodes of a
    /// cluster the same bound (a node whose bound is more than four times a peer's may be
    /// declared by that peer while it is well). The node's sockets also get TCP keepalive and,
    /// on Linux, `TCP_USER_TIMEOUT` at one and a half times the bound, so the kernel gives up
    /// on a silent connection too. Measured by `tests/cluster/cluster_partition.rs`.
    ///
    /// Kept between 200 ms and a day.
    #[must_use]
    pub fn detect(mut self, bound: Duration) -> Self {
        self.detect = bound.clamp(Duration::from_millis(200), LONGEST);
        self
    }

    /// The longest wait between two attempts to reopen a session this node keeps
    /// ([`DEFAULT_RECONNECT`], 1 s, by default), and the longest one attempt waits for a
    /// connection: after a partition heals, the session is back within about this bound and
    /// the handshake's round trips.
    ///
    /// Kept between 100 ms and a day.
    #[must_use]
    pub fn reconnect(mut self, bound: Duration) -> Self {
        self.reconnect = bound.clamp(keeper::FIRST_RETRY, LONGEST);
        self
    }
}

/// A running cluster node: a `ractor_cluster` [`NodeServer`], the listener that feeds it, the
/// watch over its connections and the sessions it keeps.
///
/// Dropping it leaves the node server running; [`ClusterNode::stop`] ends it (and every
/// session: the peers answer their pending remote dispatches "unavailable").
pub struct ClusterNode {
    name: String,
    addr: SocketAddr,
    shared: Arc<NodeShared>,
    events: broadcast::Sender<PeerEvent>,
    keepers: Mutex<Keepers>,
    heartbeat: ActorRef<HeartbeatMsg>,
    beat_task: JoinHandle<()>,
    server_task: JoinHandle<()>,
    accept_task: JoinHandle<()>,
}

/// The sessions a node keeps: by the address it connected to, the peer's name and the keeper.
type Keepers = HashMap<SocketAddr, (String, JoinHandle<()>)>;

/// What the node's tasks share: the node server, the links, the bounds.
#[derive(Debug)]
struct NodeShared {
    server: ActorRef<NodeServerMessage>,
    links: Arc<Links>,
    handshake: Duration,
    detect: Duration,
    reconnect: Duration,
}

impl NodeShared {
    /// Hands `stream` (a connection to or from `peer`) to the node server through a link the
    /// crate watches.
    fn open(
        &self,
        stream: TcpStream,
        peer: SocketAddr,
        outgoing: bool,
    ) -> Result<Arc<Link>, ClusterError> {
        link::tune(&stream, self.detect);
        let link = self.links.open(peer, outgoing);
        let (read, write) = stream.into_split();
        let opened = NodeServerMessage::ConnectionOpenedExternal {
            stream: Box::new(LinkStream {
                link: link.clone(),
                read,
                write,
            }),
            is_server: !outgoing,
        };
        if self.server.cast(opened).is_err() {
            self.links.forget(&link);
            return Err(ClusterError::NotRunning);
        }
        let (links, watched) = (self.links.clone(), link.clone());
        let (detect, handshake) = (self.detect, self.handshake);
        tokio::spawn(async move {
            match link::watch(watched.clone(), detect, handshake).await {
                Some(link::Failed::Silent) => tracing::warn!(
                    peer = %watched.peer(),
                    node = watched.name().unwrap_or("?"),
                    "a peer node sent nothing for {} ms: declared down",
                    detect.as_millis()
                ),
                Some(link::Failed::NoSession) => tracing::warn!(
                    peer = %watched.peer(),
                    "a connection carried no ready session within {} ms: closed",
                    handshake.as_millis()
                ),
                None => {}
            }
            watched.closed().cancelled().await;
            // The node server reports the session's end just after its reader goes (that
            // report forgets the link); a link that never had a session is forgotten here.
            tokio::time::sleep(detect).await;
            links.forget(&watched);
        });
        Ok(link)
    }

    /// How recently a link must have heard its peer for a call to be sent over it: two beats.
    fn recent(&self) -> Duration {
        heartbeat::interval(self.detect) * 2
    }
}

impl fmt::Debug for ClusterNode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClusterNode")
            .field("name", &self.name)
            .field("addr", &self.addr)
            .finish_non_exhaustive()
    }
}

impl ClusterNode {
    /// Starts a node: binds its listener, then its node server, its heartbeat and the watch
    /// over its connections.
    ///
    /// `ractor_cluster`'s node server also opens a listener of its own, which this crate
    /// cannot read the port of nor close: it is bound to loopback (of the node address's
    /// family) at a system-picked port, admits the same cookie only, and is never advertised;
    /// its connections are not watched by the crate.
    ///
    /// # Errors
    /// [`ClusterError::Bind`] when the address cannot be bound; [`ClusterError::Start`] when
    /// the node server (or the node's heartbeat actor) does not start.
    pub async fn start(config: NodeConfig) -> Result<ClusterNode, ClusterError> {
        let listener =
            TcpListener::bind(config.bind)
                .await
                .map_err(|source| ClusterError::Bind {
                    addr: config.bind,
                    source,
                })?;
        let addr = listener.local_addr().map_err(|source| ClusterError::Bind {
            addr: config.bind,
            source,
        })?;
        let node = NodeServer::new(
            0,
            config.cookie,
            config.name.clone(),
            addr.ip().to_string(),
            None,
            None,
        )
        .with_listen_addr(loopback_like(addr.ip()));
        let (server, join) = ractor::Actor::spawn(None, node, ())
            .await
            .map_err(ClusterError::Start)?;
        let server_task = tokio::spawn(async move {
            let _ = join.await;
        });
        let links = Arc::new(Links::default());
        let (events, _) = broadcast::channel(EVENT_BACKLOG);
        let subscribed = server.cast(NodeServerMessage::SubscribeToEvents {
            id: "beam_mcp.peers".to_owned(),
            subscription: Box::new(Events {
                links: links.clone(),
                sender: events.clone(),
            }),
        });
        if subscribed.is_err() {
            return Err(ClusterError::NotRunning);
        }
        let (heartbeat, _) = ractor::Actor::spawn(None, Heartbeat, ())
            .await
            .map_err(ClusterError::Start)?;
        let beat_task = tokio::spawn(heartbeat::beat(
            server.clone(),
            heartbeat::interval(config.detect),
        ));
        let shared = Arc::new(NodeShared {
            server,
            links,
            handshake: config.handshake,
            detect: config.detect,
            reconnect: config.reconnect,
        });
        let accepting = shared.clone();
        let accept_task = tokio::spawn(async move {
            // Ends when the node server is gone (the cast fails) or the node is stopped (the
            // task is aborted).
            loop {
                let Ok((stream, peer)) = listener.accept().await else {
                    // Out of descriptors, say: back off rather than spin.
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                };
                if let Err(ClusterError::NotRunning) = accepting.open(stream, peer, false) {
                    break;
                }
            }
        });
        Ok(ClusterNode {
            name: config.name,
            addr,
            shared,
            events,
            keepers: Mutex::new(HashMap::new()),
            heartbeat,
            beat_task,
            server_task,
            accept_task,
        })
    }

    /// The node's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The address peers connect to.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The `ractor_cluster` node server, for what this type does not wrap.
    pub fn server(&self) -> &ActorRef<NodeServerMessage> {
        &self.shared.server
    }

    /// The sessions' coming and going from now on: [`PeerEvent::Up`] when a session is ready,
    /// [`PeerEvent::Down`] (silent or closed) when one that was up ends. A subscriber that
    /// falls more than 256 events behind misses the oldest (`RecvError::Lagged`).
    pub fn subscribe(&self) -> broadcast::Receiver<PeerEvent> {
        self.events.subscribe()
    }

    /// Connects to the node at `peer` and waits, within the handshake timeout, until a call
    /// can cross: a session with that node is ready and has heard it within two beats. The
    /// session is the one over the connection this call opened, or — when the node had
    /// connected here too and `ractor_cluster`'s election kept its connection — that one; a
    /// stalled old session does not count. From then on the node keeps a session with the
    /// peer: when it ends, it reconnects by itself (see [`NodeConfig::reconnect`]) until
    /// [`ClusterNode::stop`]. Called again for a kept peer, it waits for the session to be
    /// back.
    ///
    /// # Errors
    /// [`ClusterError::Connect`] when the connection cannot be opened;
    /// [`ClusterError::NotRunning`] when this node is stopped; [`ClusterError::Handshake`] when
    /// no ready session to `peer` appears in time (a wrong cookie among the causes).
    ///
    /// # Cancel safety
    /// Cancelling it leaves the connection to finish (or fail) its handshake on its own,
    /// within the handshake timeout (a connection carrying no ready session by then is
    /// closed); such a session is not kept until a later `connect` to the peer answers Ok.
    pub async fn connect(&self, peer: SocketAddr) -> Result<(), ClusterError> {
        let shared = &self.shared;
        let deadline = tokio::time::Instant::now() + shared.handshake;
        let kept = self.kept(peer);
        if let Some(link) = shared.links.fresh_to(peer, shared.recent()) {
            if kept.is_none() {
                // A session left by an earlier connect that timed out or was cancelled, come
                // up since: it is kept from now on, as any session connect answers Ok for.
                self.keep(peer, link);
            }
            return Ok(());
        }
        if let Some(name) = kept {
            // The keeper is reopening it: wait for a session with the node to carry calls.
            return self.serving(&name, peer, deadline).await;
        }
        let stream = match tokio::time::timeout_at(deadline, TcpStream::connect(peer)).await {
            Ok(Ok(stream)) => stream,
            Ok(Err(source)) => return Err(ClusterError::Connect { peer, source }),
            Err(_elapsed) => return Err(ClusterError::Handshake { peer }),
        };
        let link = shared.open(stream, peer, true)?;
        tokio::select! {
            () = link.ready().cancelled() => {}
            () = link.closed().cancelled() => {}
            () = tokio::time::sleep_until(deadline) => {}
        }
        let (name, kept) = if link.is_fresh(shared.recent()) {
            (link.name().unwrap_or_default().to_owned(), Some(link))
        } else {
            // Closed before it was ready: the peer's own connection may have won the election
            // (the node server names the peer even then, just after the close).
            let named = async {
                loop {
                    if let Some(name) = link.name() {
                        break name.to_owned();
                    }
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
            };
            match tokio::time::timeout_at(deadline, named).await {
                Ok(name) if link.closed().is_cancelled() => {
                    self.serving(&name, peer, deadline).await?;
                    (name, None)
                }
                _ => return Err(ClusterError::Handshake { peer }),
            }
        };
        self.start_keeper(peer, name, kept);
        Ok(())
    }

    /// Keeps the session over `link` (ready) to `peer`.
    fn keep(&self, peer: SocketAddr, link: Arc<Link>) {
        let name = link.name().unwrap_or_default().to_owned();
        self.start_keeper(peer, name, Some(link));
    }

    fn start_keeper(&self, peer: SocketAddr, name: String, kept: Option<Arc<Link>>) {
        let keeper = tokio::spawn(keeper::keep(self.shared.clone(), peer, name.clone(), kept));
        if let Some((_, old)) = self.lock_keepers().insert(peer, (name, keeper)) {
            old.abort();
        }
    }

    /// Waits until a session with the node named `name` carries calls, in either direction.
    async fn serving(
        &self,
        name: &str,
        peer: SocketAddr,
        deadline: tokio::time::Instant,
    ) -> Result<(), ClusterError> {
        let recent = self.shared.recent();
        while tokio::time::Instant::now() < deadline {
            if self.shared.links.fresh_named(name, recent).is_some() {
                return Ok(());
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        Err(ClusterError::Handshake { peer })
    }

    fn lock_keepers(&self) -> std::sync::MutexGuard<'_, Keepers> {
        self.keepers.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The name of the node at `peer`, when a keeper still holds the session to it.
    fn kept(&self, peer: SocketAddr) -> Option<String> {
        self.lock_keepers()
            .get(&peer)
            .filter(|(_, k)| !k.is_finished())
            .map(|(name, _)| name.clone())
    }

    /// Starts this node's observed peer over `collector`, contributing under the node's name
    /// to the federations other nodes build (`observed::federate`). Stop it (or let the
    /// process end) to leave.
    ///
    /// # Errors
    /// [`ClusterError::Start`] when the peer actor does not start.
    #[cfg(feature = "connectome")]
    pub async fn observe(
        &self,
        collector: crate::connectome::observed::Collector,
    ) -> Result<ActorRef<observed::ObservedMsg>, ClusterError> {
        let args = observed::ObservedPeerArgs {
            node: self.name.clone(),
            collector,
        };
        ractor::Actor::spawn(None, observed::ObservedPeer, args)
            .await
            .map(|(peer, _)| peer)
            .map_err(ClusterError::Start)
    }

    /// How many peers this node has a session with.
    ///
    /// # Errors
    /// [`ClusterError::NotRunning`] when the node server does not answer.
    pub async fn peers(&self) -> Result<usize, ClusterError> {
        ractor::call_t!(self.shared.server, NodeServerMessage::GetSessions, 1000)
            .map(|s| s.len())
            .map_err(|_| ClusterError::NotRunning)
    }

    /// Stops the node at once: its listener, its keepers, its heartbeat, its node server and
    /// every session (a kill, as a crashed node: nothing is drained). Peers answer the
    /// dispatches they had pending here "unavailable". Waits up to `timeout` for the node
    /// server to end.
    pub async fn stop(self, timeout: Duration) {
        self.accept_task.abort();
        for (_, (_, keeper)) in self.lock_keepers().drain() {
            keeper.abort();
        }
        self.beat_task.abort();
        self.heartbeat.stop(None);
        self.shared.server.kill();
        let _ = tokio::time::timeout(timeout, self.server_task).await;
    }
}

/// The loopback address of `ip`'s family: where `ractor_cluster`'s own listener goes. Its
/// connections bypass the crate's links (no detection or handshake bound), and the crate cannot
/// close it, so it is kept from every other machine.
fn loopback_like(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V4(_) => IpAddr::V4(Ipv4Addr::LOCALHOST),
        IpAddr::V6(_) => IpAddr::V6(std::net::Ipv6Addr::LOCALHOST),
    }
}
