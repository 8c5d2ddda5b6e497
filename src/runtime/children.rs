//! The child specs of the supervision tree, one function per child: what each child starts
//! with at every (re)start, and how long its stop may take. [`Application`](super::Application)
//! arranges them into the tree; the order and the strategies are decided there.

use super::catalog::{CatalogActor, CatalogArgs, DispatcherSlot};
#[cfg(feature = "http")]
use super::http::{HttpListener, HttpSlot, ListenerArgs, OpenConnections};
use super::pool::Pool;
use super::stdio::{StdioArgs, StdioConnection, StdioConnector};
#[cfg(feature = "http")]
use super::HTTP;
use super::{CATALOG, DISPATCH_POOL, STDIO, TRANSPORTS};
#[cfg(feature = "connectome")]
use super::{COLLECTOR, REPORTER};
#[cfg(feature = "connectome")]
use crate::connectome::canonical::DigestAlgorithm;
#[cfg(feature = "connectome")]
use crate::connectome::declared::Declared;
#[cfg(feature = "connectome")]
use crate::connectome::observed::{Collector, CollectorActor};
#[cfg(feature = "connectome")]
use crate::connectome::reporter::{Reporter, ReporterArgs, ReporterMsg};
use crate::server::Server;
use crate::transport::stdio::StdioOptions;
use beam_mcp_supervisors::{ChildSpec, Restart, Shutdown, Strategy, Supervisor, SupervisorSpec};
use ractor::Actor;
#[cfg(feature = "connectome")]
use ractor::ActorRef;
#[cfg(feature = "connectome")]
use std::sync::{Arc, RwLock};
use std::time::Duration;

/// Where the running reporter is found (it changes when the reporter restarts).
#[cfg(feature = "connectome")]
pub(crate) type ReporterSlot = Arc<RwLock<Option<ActorRef<ReporterMsg>>>>;

/// How long past the pool's deadline a child whose stop waits for calls in flight may take.
const STOP_GRACE: Duration = Duration::from_secs(1);

/// The catalog actor: the address host `Dispatch` messages go to, published in `slot` at
/// every start. Default restart and shutdown.
pub(crate) fn catalog(server: Server, pool: Pool, slot: DispatcherSlot) -> ChildSpec {
    ChildSpec::new(CATALOG, move |sup| {
        let args = CatalogArgs {
            server: server.clone(),
            pool: pool.clone(),
            slot: slot.clone(),
        };
        async move {
            let (actor, _) = Actor::spawn_linked(None, CatalogActor, args, sup).await?;
            Ok(actor.get_cell())
        }
    })
}

/// The dispatch pool's actor, which owns the admission; its stop answers every waiting call,
/// so it is given the deadline and a grace.
pub(crate) fn dispatch_pool(pool: Pool, deadline: Duration) -> ChildSpec {
    ChildSpec::new(DISPATCH_POOL, move |sup| {
        let pool = pool.clone();
        async move { pool.spawn(sup).await }
    })
    .shutdown(Shutdown::Timeout(deadline + STOP_GRACE))
}

/// The collector's owner, for the collector the server's dispatch site records into.
#[cfg(feature = "connectome")]
pub(crate) fn collector(collector: Collector) -> ChildSpec {
    ChildSpec::new(COLLECTOR, move |sup| {
        let collector = collector.clone();
        async move {
            let (actor, _) = Actor::spawn_linked(None, CollectorActor, collector, sup).await?;
            Ok(actor.get_cell())
        }
    })
}

/// The connectome reporter, published in `slot` at every start.
#[cfg(feature = "connectome")]
pub(crate) fn reporter(
    declared: Declared,
    algorithm: DigestAlgorithm,
    collector: Collector,
    catalog: Server,
    slot: ReporterSlot,
) -> ChildSpec {
    ChildSpec::new(REPORTER, move |sup| {
        let args = ReporterArgs {
            declared: declared.clone(),
            collector: collector.clone(),
            algorithm,
            catalog: Some(catalog.clone()),
        };
        let slot = slot.clone();
        async move {
            let (actor, _) = Actor::spawn_linked(None, Reporter, args, sup).await?;
            *slot.write().unwrap_or_else(|e| e.into_inner()) = Some(actor.clone());
            Ok(actor.get_cell())
        }
    })
}

/// The stdio connection actor: transient (its end at EOF is not a fault), its stop waiting
/// for the calls in flight up to the deadline and a grace.
pub(crate) fn stdio(
    server: Server,
    pool: Pool,
    connect: StdioConnector,
    options: StdioOptions,
    deadline: Duration,
) -> ChildSpec {
    ChildSpec::new(STDIO, move |sup| {
        let args = StdioArgs {
            server: server.clone(),
            pool: pool.clone(),
            connect: connect.clone(),
            options,
        };
        async move {
            let (conn, _) = Actor::spawn_linked(None, StdioConnection, args, sup).await?;
            Ok(conn.get_cell())
        }
    })
    .restart(Restart::Transient)
    .shutdown(Shutdown::Timeout(deadline + STOP_GRACE))
}

/// The HTTP listener actor on the socket in `slot`: its connections are given the deadline
/// and a grace to finish when it stops, and the listener a grace past that.
#[cfg(feature = "http")]
pub(crate) fn http(
    slot: HttpSlot,
    server: Server,
    pool: Pool,
    probe: std::sync::Arc<dyn crate::health::Probe>,
    open: OpenConnections,
    deadline: Duration,
) -> ChildSpec {
    // The connections' own graceful close, and the listener's past it.
    let shutdown = deadline + STOP_GRACE;
    ChildSpec::new(HTTP, move |sup| {
        let args = ListenerArgs {
            slot: slot.clone(),
            server: server.clone(),
            pool: pool.clone(),
            probe: probe.clone(),
            open: open.clone(),
            shutdown,
        };
        async move {
            let (listener, _) = Actor::spawn_linked(None, HttpListener, args, sup).await?;
            Ok(listener.get_cell())
        }
    })
    .shutdown(Shutdown::Timeout(shutdown + STOP_GRACE))
}

/// The transports supervisor (one_for_one) over `children`, restarting each within
/// `intensity` (at most that many restarts in that period).
pub(crate) fn transports(children: Vec<ChildSpec>, intensity: (u32, Duration)) -> ChildSpec {
    let (max, period) = intensity;
    let spec = SupervisorSpec::new(Strategy::OneForOne)
        .intensity(max, period)
        .children(children);
    Supervisor::child_spec(TRANSPORTS, spec)
}
