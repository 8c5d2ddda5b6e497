//! Keeping a session a node asked for: when it ends (the peer declared silent, its connection
//! closed), the node connects again by itself until it is stopped, so that a healed network
//! or a restarted peer is back without the host doing anything.

use super::link::Link;
use super::NodeShared;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpStream;

/// The pause after a session ends before the first new attempt: the peer's side of a
/// partition declares too, and a peer that closes at once (a wrong cookie, an election lost)
/// is not hammered.
pub(super) const FIRST_RETRY: Duration = Duration::from_millis(100);

/// Keeps a session to `peer` (the node named `name`) open, starting from `link` when this node
/// holds one; ends when the node server is gone (or the task is aborted, as
/// [`ClusterNode::stop`](super::ClusterNode::stop) does).
///
/// While a session with the node serves over another connection (the peer connected here too,
/// and `ractor_cluster`'s election kept its connection), the keeper waits for that one to end
/// instead of opening connections the election would close.
///
/// An attempt waits for the connection at most the reconnect bound: on a silent network the
/// next attempt starts as soon as one times out, so a session is back within about one bound
/// (and the handshake's round trips) after the network heals. An attempt refused at once (the
/// peer not listening yet) is followed by a pause doubling from [`FIRST_RETRY`] up to the
/// bound, and so is one whose connection closes before a session is ready; the pause starts
/// again from [`FIRST_RETRY`] after a session that became ready.
///
/// # Cancel safety
/// Aborting it leaves the current session as it is; a connection being opened is dropped.
pub(super) async fn keep(
    node: Arc<NodeShared>,
    peer: SocketAddr,
    name: String,
    mut link: Option<Arc<Link>>,
) {
    let mut pause = FIRST_RETRY;
    let bound = node.reconnect;
    loop {
        if let Some(link) = &link {
            link.closed().cancelled().await;
            if link.is_ready() {
                pause = FIRST_RETRY;
                tokio::time::sleep(FIRST_RETRY).await;
            } else {
                // Closed before a session was ready (a wrong cookie, another service on the
                // port, an election lost, no handshake in time): backed off as a refusal is.
                tokio::time::sleep(pause).await;
                pause = pause.saturating_mul(2).min(bound);
            }
        }
        while let Some(other) = node.links.fresh_named(&name, node.recent()) {
            other.closed().cancelled().await;
            tokio::time::sleep(FIRST_RETRY).await;
        }
        link = Some(loop {
            match tokio::time::timeout(bound, TcpStream::connect(peer)).await {
                Ok(Ok(stream)) => match node.open(stream, peer, true) {
                    Ok(link) => break link,
                    // The node server is gone: nothing to keep.
                    Err(_) => return,
                },
                Ok(Err(e)) => {
                    tracing::debug!(%peer, error = %e, "reconnecting to a node");
                    tokio::time::sleep(pause).await;
                    pause = pause.saturating_mul(2).min(bound);
                }
                // A silent network: the attempt itself waited.
                Err(_elapsed) => {}
            }
        });
    }
}
