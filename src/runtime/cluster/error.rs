//! Why a node could not start or connect.

use std::fmt;
use std::net::SocketAddr;

/// Why a node could not start or connect.
#[derive(Debug)]
#[non_exhaustive]
pub enum ClusterError {
    /// The node's listener could not be bound.
    Bind {
        /// The address asked for.
        addr: SocketAddr,
        /// Why.
        source: std::io::Error,
    },
    /// The `ractor_cluster` node server did not start.
    Start(ractor::SpawnErr),
    /// The connection to a peer could not be opened.
    Connect {
        /// The peer's address.
        peer: SocketAddr,
        /// Why.
        source: std::io::Error,
    },
    /// The node server is not running (stopped, or it failed).
    NotRunning,
    /// No session to the peer was authenticated and ready within the handshake timeout (a
    /// wrong cookie ends here too: the peer closes the session).
    Handshake {
        /// The peer's address.
        peer: SocketAddr,
    },
}

impl fmt::Display for ClusterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClusterError::Bind { addr, source } => write!(f, "cannot listen on {addr}: {source}"),
            ClusterError::Start(e) => write!(f, "the cluster node server did not start: {e}"),
            ClusterError::Connect { peer, source } => {
                write!(f, "cannot connect to node {peer}: {source}")
            }
            ClusterError::NotRunning => f.write_str("the cluster node is not running"),
            ClusterError::Handshake { peer } => {
                write!(
                    f,
                    "no ready session to node {peer} within the handshake timeout"
                )
            }
        }
    }
}

impl std::error::Error for ClusterError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ClusterError::Bind { source, .. } | ClusterError::Connect { source, .. } => {
                Some(source)
            }
            ClusterError::Start(e) => Some(e),
            _ => None,
        }
    }
}
