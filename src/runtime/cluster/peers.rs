//! A node's links and what it tells the host about its peers: a session ready ([`PeerEvent::Up`])
//! or ended ([`PeerEvent::Down`], silent or closed), read off the node server's own session
//! events and matched to the crate's links by their labels.

use super::link::Link;
use ractor_cluster::node::NodeServerSessionInformation;
use ractor_cluster::NodeEventSubscription;
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::broadcast;

/// What happened to a session with a peer node ([`ClusterNode::subscribe`](super::ClusterNode::subscribe)).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum PeerEvent {
    /// A session is authenticated and ready: calls cross it.
    Up {
        /// The peer's node name (as its [`NodeConfig::new`](super::NodeConfig::new) gave it).
        name: String,
        /// The peer's address on this connection (its listener when this node connected, the
        /// connection's source when the peer did).
        addr: SocketAddr,
    },
    /// A session that was up has ended; every call pending on it has been answered
    /// "unavailable" and the peer's actors have left this node's process groups.
    Down {
        /// The peer's node name.
        name: String,
        /// As in [`PeerEvent::Up`].
        addr: SocketAddr,
        /// Why it ended.
        cause: DownCause,
    },
}

/// Why a session ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum DownCause {
    /// Nothing came from the peer for the detection bound ([`NodeConfig::detect`](super::NodeConfig::detect)):
    /// a partition, a paused machine, a peer too busy to beat. The crate declared it down.
    Silent,
    /// The connection closed or failed: the peer stopped or crashed, or the network reset it.
    Closed,
}

/// How many events a subscriber may fall behind before it misses some
/// (`broadcast::error::RecvError::Lagged`).
pub(super) const EVENT_BACKLOG: usize = 256;

/// The node's links by number.
#[derive(Debug, Default)]
pub(super) struct Links {
    next: AtomicU64,
    by_id: Mutex<HashMap<u64, Arc<Link>>>,
}

impl Links {
    /// A new link to `peer`, filed.
    pub(super) fn open(&self, peer: SocketAddr, outgoing: bool) -> Arc<Link> {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let link = Arc::new(Link::new(id, peer, outgoing));
        self.lock().insert(id, link.clone());
        link
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Arc<Link>>> {
        self.by_id.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn of(&self, label: &str) -> Option<Arc<Link>> {
        self.lock().get(&Link::id_in(label)?).cloned()
    }

    pub(super) fn forget(&self, link: &Link) {
        self.lock().remove(&link.id());
    }

    /// A link to the node named `name`, either way, that carries calls now.
    pub(super) fn fresh_named(&self, name: &str, recent: Duration) -> Option<Arc<Link>> {
        self.lock()
            .values()
            .find(|l| l.name() == Some(name) && l.is_fresh(recent))
            .cloned()
    }

    /// A link this node opened to `peer` that carries calls now (see [`Link::is_fresh`]).
    pub(super) fn fresh_to(&self, peer: SocketAddr, recent: Duration) -> Option<Arc<Link>> {
        self.lock()
            .values()
            .find(|l| l.outgoing() && l.peer() == peer && l.is_fresh(recent))
            .cloned()
    }
}

/// `ractor_cluster` names a node `<name>@<host>`: events and links keep the name the peer was
/// started with, as its `ClusterNode::name` does.
fn given_name(full: String) -> String {
    match full.rsplit_once('@') {
        Some((given, _host)) => given.to_owned(),
        None => full,
    }
}

/// The node server's session events, turned into [`PeerEvent`]s.
pub(super) struct Events {
    pub(super) links: Arc<Links>,
    pub(super) sender: broadcast::Sender<PeerEvent>,
}

impl NodeEventSubscription for Events {
    fn node_session_opened(&self, _: NodeServerSessionInformation) {}

    fn node_session_authenticated(&self, _: NodeServerSessionInformation) {}

    fn node_session_ready(&self, ses: NodeServerSessionInformation) {
        let (Some(link), Some(name)) = (self.links.of(&ses.peer_addr), ses.peer_name) else {
            return;
        };
        let name = given_name(name.name);
        link.set_ready(name.clone());
        let _ = self.sender.send(PeerEvent::Up {
            name,
            addr: link.peer(),
        });
    }

    fn node_session_disconnected(&self, ses: NodeServerSessionInformation) {
        let Some(link) = self.links.of(&ses.peer_addr) else {
            return;
        };
        self.links.forget(&link);
        // A session that lost the election to another with the same peer still says who the
        // peer was: `connect` and the keeper then know that other session serves.
        if let Some(name) = ses.peer_name {
            link.set_name(given_name(name.name));
        }
        let (true, Some(name)) = (link.is_ready(), link.name()) else {
            return;
        };
        let cause = if link.is_declared() {
            DownCause::Silent
        } else {
            DownCause::Closed
        };
        let _ = self.sender.send(PeerEvent::Down {
            name: name.to_owned(),
            addr: link.peer(),
            cause,
        });
    }
}
