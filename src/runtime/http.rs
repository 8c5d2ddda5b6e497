//! The HTTP transport under the transports supervisor: one listener actor, whose restart
//! restores the accept loop on the same bound socket (the port stays).
//!
//! An accepted connection is a plain task of the listener's accept loop — no actor, no
//! supervisor message, no lock on accept. The loop owns its connections in a `JoinSet`:
//! stopping the listener (a transport restart, a runtime shutdown) stops accepting, asks every
//! connection to close gracefully, waits up to the shutdown timeout for them to answer what
//! they have in flight, and drops the rest; a killed listener drops its accept task, and with
//! it every connection task. Host work goes through the dispatch pool.

use super::pool::Pool;
use super::serving::{Serving, StopSignal};
use crate::server::Server;
use crate::transport::http::{accept, connection, connection_builder, HttpService, ServeOptions};
use ractor::{Actor, ActorProcessingErr, ActorRef};
use std::fmt;
use std::pin::pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio::task::JoinSet;

/// What the listener serves: a bound socket (kept across restarts, so the port stays), the
/// service and its connection bounds.
#[derive(Clone)]
pub(crate) struct HttpSlot {
    pub(crate) listener: Arc<std::net::TcpListener>,
    pub(crate) service: HttpService,
    pub(crate) options: ServeOptions,
}

impl fmt::Debug for HttpSlot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpSlot")
            .field("addr", &self.listener.local_addr().ok())
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

/// The number of connection tasks alive, across listener restarts: read by
/// `ApplicationRef::http_connections`.
#[derive(Debug, Clone, Default)]
pub(crate) struct OpenConnections(Arc<AtomicUsize>);

impl OpenConnections {
    pub(crate) fn get(&self) -> usize {
        self.0.load(Ordering::Acquire)
    }

    /// Counts one connection in until the returned guard drops (its task ends or is aborted).
    fn enter(&self) -> Counted {
        self.0.fetch_add(1, Ordering::AcqRel);
        Counted(self.0.clone())
    }
}

struct Counted(Arc<AtomicUsize>);

impl Drop for Counted {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

pub(crate) struct ListenerArgs {
    pub(crate) slot: HttpSlot,
    pub(crate) server: Server,
    pub(crate) pool: Pool,
    pub(crate) probe: Arc<dyn crate::health::Probe>,
    pub(crate) open: OpenConnections,
    /// How long the connections may take to finish their calls in flight when stopped.
    pub(crate) shutdown: Duration,
}

/// The accept loop, which owns the connections: stopped gracefully from `post_stop`, aborted
/// (connections included) when the state drops without a stop — a killed actor.
type ListenerState = Serving;

#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct HttpListener;

impl Actor for HttpListener {
    type Msg = ();
    type State = ListenerState;
    type Arguments = ListenerArgs;

    async fn pre_start(
        &self,
        _myself: ActorRef<()>,
        args: ListenerArgs,
    ) -> Result<ListenerState, ActorProcessingErr> {
        let std_listener = args.slot.listener.try_clone()?;
        std_listener.set_nonblocking(true)?;
        let listener = TcpListener::from_std(std_listener)?;
        let service =
            args.slot
                .service
                .clone()
                .managed(args.server, Arc::new(args.pool), args.probe);
        let (options, open, shutdown) = (args.slot.options, args.open, args.shutdown);
        Ok(Serving::spawn(move |stopped| {
            accept_loop(listener, service, options, open, shutdown, stopped)
        }))
    }

    async fn handle(
        &self,
        _myself: ActorRef<()>,
        _msg: (),
        _state: &mut ListenerState,
    ) -> Result<(), ActorProcessingErr> {
        Ok(())
    }

    async fn post_stop(
        &self,
        _myself: ActorRef<()>,
        state: &mut ListenerState,
    ) -> Result<(), ActorProcessingErr> {
        // Stopped (a transport restart, a shutdown): the connections answer what they have in
        // flight, then close.
        state.stop().await;
        Ok(())
    }
}

/// Accepts until `stopped`, each connection a task of the loop's own; then closes them
/// gracefully, waiting at most `shutdown`, and drops whatever is left.
///
/// # Cancel safety
/// Dropping the future (the accept task aborted) drops every connection task with it.
async fn accept_loop(
    listener: TcpListener,
    service: HttpService,
    options: ServeOptions,
    open: OpenConnections,
    shutdown: Duration,
    mut stopped: StopSignal,
) {
    let builder = connection_builder(options);
    // Sent once, when the listener stops: every connection closes gracefully.
    let (stop, stopping) = watch::channel(());
    let mut connections = JoinSet::new();
    {
        // One accept future across the loop's wake-ups: a connection that ends does not cut
        // short the pause after an accept error (EMFILE).
        let mut next = pin!(accept(&listener));
        loop {
            tokio::select! {
                () = &mut stopped => break,
                (stream, peer) = next.as_mut() => {
                    next.set(accept(&listener));
                    let counted = open.enter();
                    let mut stopping = stopping.clone();
                    let stop = async move {
                        let _ = stopping.changed().await;
                    };
                    let serve = connection(builder.clone(), stream, service.clone(), options, peer, stop);
                    connections.spawn(async move {
                        let _counted = counted;
                        serve.await;
                    });
                    // Under a steady flood of accepts the reaping branch below may lose the
                    // race again and again: reap what has ended here too, so the set holds
                    // only live connections.
                    while connections.try_join_next().is_some() {}
                }
                // Reaps the connections that ended.
                Some(_) = connections.join_next(), if !connections.is_empty() => {}
            }
        }
    }
    drop(listener);
    let _ = stop.send(());
    let drained = tokio::time::timeout(shutdown, async {
        while connections.join_next().await.is_some() {}
    })
    .await;
    if drained.is_err() {
        tracing::warn!(
            left = connections.len(),
            "HTTP connections dropped at the shutdown timeout"
        );
    }
}

impl fmt::Debug for ListenerArgs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ListenerArgs")
            .field("slot", &self.slot)
            .finish_non_exhaustive()
    }
}
