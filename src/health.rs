//! Health and readiness: what a server says of itself to a load balancer or an orchestrator.
//!
//! *Live* means the process is worth keeping: under the runtime, its supervision tree is up.
//! *Ready* means it should be sent traffic now: the tree is up, the catalog actor runs, the
//! dispatch pool admits calls and no stop has begun. [`crate::runtime::ApplicationRef::health`]
//! answers it, and the HTTP transport serves it on the paths a host chooses
//! ([`crate::transport::http::HttpService::health_paths`]). A transport served alone, without
//! the runtime, has nothing that can be down but itself: it is live and ready while it answers.

use std::fmt;

/// A server's health, read at one moment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Health {
    live: bool,
    unready: Vec<Unready>,
}

impl Health {
    /// Live, and ready unless `unready` names a reason.
    pub(crate) fn new(live: bool, unready: Vec<Unready>) -> Self {
        Health { live, unready }
    }

    /// Live and ready.
    pub(crate) fn serving() -> Self {
        Health::new(true, Vec::new())
    }

    /// Whether the server is worth keeping (its supervision tree is up).
    pub fn is_live(&self) -> bool {
        self.live
    }

    /// Whether the server should be sent traffic now.
    pub fn is_ready(&self) -> bool {
        self.live && self.unready.is_empty()
    }

    /// Why it is not ready; empty when it is.
    pub fn unready(&self) -> &[Unready] {
        &self.unready
    }
}

/// Why a server is not ready.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Unready {
    /// The supervision tree is still being built.
    Starting,
    /// The supervision tree is down.
    Down,
    /// A stop has begun: calls in flight finish, new ones should go elsewhere.
    Stopping,
    /// The catalog actor is not running (it is being restarted).
    Catalog,
    /// The dispatch pool admits no call (it is being restarted, or has stopped).
    Pool,
}

impl Unready {
    /// The reason's name, as the HTTP readiness answer lists it.
    pub fn as_str(self) -> &'static str {
        match self {
            Unready::Starting => "starting",
            Unready::Down => "down",
            Unready::Stopping => "stopping",
            Unready::Catalog => "catalog",
            Unready::Pool => "pool",
        }
    }
}

impl fmt::Display for Unready {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Whoever can say how a server is: the runtime, or, for a transport served alone, the fact
/// that it answers.
pub(crate) trait Probe: Send + Sync + 'static {
    fn health(&self) -> Health;
}

/// The probe of a transport served alone: live and ready while it answers.
#[derive(Debug, Clone, Copy, Default)]
#[cfg_attr(not(feature = "http"), allow(dead_code))]
pub(crate) struct Answering;

impl Probe for Answering {
    fn health(&self) -> Health {
        Health::serving()
    }
}
