//! The HTTP transport under the transports supervisor: a supervisor of its own over the
//! listener and one temporary child actor per accepted connection, so that stopping or
//! restarting the transport stops its connections with it (each answering what it has in
//! flight first), and accepting a connection never waits on another transport's shutdown.
//! Host work goes through the dispatch pool.

use super::catalog::Snapshot;
use super::pool::Pool;
use super::serving::Serving;
use crate::transport::http::{accept, connection, connection_builder, HttpService, ServeOptions};
use beam_mcp_supervisors::{ChildSpec, Restart, Shutdown, SupervisorRef};
use ractor::{Actor, ActorCell, ActorProcessingErr, ActorRef};
use std::fmt;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

/// The child-id prefix of a connection actor: `http-conn-<n>`.
pub const HTTP_CONNECTION_PREFIX: &str = "http-conn-";

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

pub(crate) struct ListenerArgs {
    pub(crate) slot: HttpSlot,
    pub(crate) snapshot: Snapshot,
    pub(crate) pool: Pool,
    /// The HTTP transport's own supervisor: the connections are its children.
    pub(crate) connections: ActorCell,
    /// How long a connection may take to finish its calls in flight when stopped.
    pub(crate) shutdown: Duration,
}

/// Aborts the accept loop when the listener's state goes, even when the actor is killed.
pub(crate) struct ListenerState {
    task: JoinHandle<()>,
}

impl Drop for ListenerState {
    fn drop(&mut self) {
        self.task.abort();
    }
}

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
        let service = args
            .slot
            .service
            .clone()
            .managed(args.snapshot.load(), Arc::new(args.pool));
        let options = args.slot.options;
        let connections = SupervisorRef::from_cell(args.connections)
            .ok_or("the HTTP listener must run under a supervisor")?;
        let task = tokio::spawn(accept_loop(
            listener,
            service,
            options,
            connections,
            args.shutdown,
        ));
        Ok(ListenerState { task })
    }

    async fn handle(
        &self,
        _myself: ActorRef<()>,
        _msg: (),
        _state: &mut ListenerState,
    ) -> Result<(), ActorProcessingErr> {
        Ok(())
    }
}

async fn accept_loop(
    listener: TcpListener,
    service: HttpService,
    options: ServeOptions,
    connections: SupervisorRef,
    shutdown: Duration,
) {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let builder = connection_builder(options);
    loop {
        let (stream, peer) = accept(&listener).await;
        let id = format!(
            "{HTTP_CONNECTION_PREFIX}{}",
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        // The start function runs once (the child is temporary); it takes the socket.
        let socket = Arc::new(Mutex::new(Some(stream)));
        let (builder, service) = (builder.clone(), service.clone());
        let spec = ChildSpec::new(id, move |sup| {
            let args = ConnectionArgs {
                stream: socket.lock().ok().and_then(|mut s| s.take()),
                builder: builder.clone(),
                service: service.clone(),
                options,
                peer,
            };
            async move {
                let (conn, _) = Actor::spawn_linked(None, HttpConnection, args, sup).await?;
                Ok(conn.get_cell())
            }
        })
        .restart(Restart::Temporary)
        .shutdown(Shutdown::Timeout(shutdown));
        if let Err(e) = connections.start_child(spec).await {
            // The socket drops with the spec: the client sees the connection close.
            tracing::warn!(%peer, error = %e, "HTTP connection not started");
        }
    }
}

struct ConnectionArgs {
    stream: Option<TcpStream>,
    builder: hyper_util::server::conn::auto::Builder<hyper_util::rt::TokioExecutor>,
    service: HttpService,
    options: ServeOptions,
    peer: SocketAddr,
}

type ConnectionState = Serving;

/// One HTTP connection (HTTP/1.1 keep-alive or HTTP/2 with its streams): it stops normally
/// when the connection ends.
#[derive(Debug, Clone, Copy, Default)]
struct HttpConnection;

impl Actor for HttpConnection {
    type Msg = ();
    type State = ConnectionState;
    type Arguments = ConnectionArgs;

    async fn pre_start(
        &self,
        myself: ActorRef<()>,
        args: ConnectionArgs,
    ) -> Result<ConnectionState, ActorProcessingErr> {
        let stream = args
            .stream
            .ok_or("the connection's socket was already taken")?;
        Ok(Serving::spawn(move |stopped| async move {
            connection(
                args.builder,
                stream,
                args.service,
                args.options,
                args.peer,
                stopped,
            )
            .await;
            myself.stop(Some("normal".into()));
        }))
    }

    async fn handle(
        &self,
        _myself: ActorRef<()>,
        _msg: (),
        _state: &mut ConnectionState,
    ) -> Result<(), ActorProcessingErr> {
        Ok(())
    }

    async fn post_stop(
        &self,
        _myself: ActorRef<()>,
        state: &mut ConnectionState,
    ) -> Result<(), ActorProcessingErr> {
        // Stopped while serving (a transport restart, a shutdown): close gracefully, so the
        // requests in flight are answered.
        state.stop().await;
        Ok(())
    }
}

impl fmt::Debug for ListenerArgs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ListenerArgs")
            .field("slot", &self.slot)
            .finish_non_exhaustive()
    }
}

impl fmt::Debug for ListenerState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ListenerState").finish_non_exhaustive()
    }
}

impl fmt::Debug for ConnectionArgs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ConnectionArgs")
            .field("peer", &self.peer)
            .finish_non_exhaustive()
    }
}
