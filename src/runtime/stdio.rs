//! The stdio connection actor: one newline-delimited JSON-RPC connection under the
//! transports supervisor, its host work run by the dispatch pool.

use super::pool::Pool;
use super::serving::Serving;
use crate::dispatch::Extensions;
use crate::server::Server;
use crate::transport::stdio::{serve_on, Input, Output, StdioOptions};
use ractor::{Actor, ActorProcessingErr, ActorRef};
use std::fmt;
use std::sync::Arc;
use tokio::io::{AsyncBufRead, AsyncWrite};

/// The two ends of one stdio connection.
pub struct StdioIo {
    reader: Input<Box<dyn AsyncBufRead + Send + Unpin>>,
    writer: Output<Box<dyn AsyncWrite + Send + Unpin>>,
    extensions: Extensions,
}

impl StdioIo {
    /// A connection over any buffered reader and writer (a pipe, a socket, an in-memory
    /// duplex in a test).
    pub fn new(
        reader: impl AsyncBufRead + Send + Unpin + 'static,
        writer: impl AsyncWrite + Send + Unpin + 'static,
    ) -> Self {
        StdioIo {
            reader: Input::Stream(Box::new(reader)),
            writer: Output::Stream(Box::new(writer)),
            extensions: Extensions::new(),
        }
    }

    /// The same connection, every request of it carrying `extensions` (the caller's identity,
    /// say): they reach the tool as [`crate::CallContext::extensions`]. The connector runs at
    /// every (re)start of the connection, so it is the connection's context hook.
    #[must_use]
    pub fn extensions(mut self, extensions: Extensions) -> Self {
        self.extensions = extensions;
        self
    }

    /// The process's stdin and stdout.
    ///
    /// Stdin is read by one thread for the life of the process (shared with
    /// [`crate::transport::stdio::serve_stdio`]), and each connection takes it over from the
    /// one before: a restarted connection goes on with the next line, a line half read
    /// across the restart included. A connection asked to stop refuses the lines read before
    /// the stop that it has not started (-32603 `{"reason": "shutting down"}`); the lines read
    /// after it wait for the next connection.
    pub fn process() -> Self {
        StdioIo {
            reader: Input::Process,
            writer: Output::Process,
            extensions: Extensions::new(),
        }
    }
}

impl fmt::Debug for StdioIo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StdioIo").finish_non_exhaustive()
    }
}

/// Opens the IO of a stdio connection; called at every (re)start of the connection actor.
pub type StdioConnector = Arc<dyn Fn() -> StdioIo + Send + Sync>;

pub(crate) struct StdioArgs {
    pub(crate) server: Server,
    pub(crate) pool: Pool,
    pub(crate) connect: StdioConnector,
    pub(crate) options: StdioOptions,
}

pub(crate) enum StdioMsg {
    /// The connection's serving task ended (`Err` with the reason on an IO failure).
    Ended(Result<(), String>),
}

/// The connection's serving task (aborted if the actor is killed).
pub(crate) type StdioState = Serving;

#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct StdioConnection;

impl Actor for StdioConnection {
    type Msg = StdioMsg;
    type State = StdioState;
    type Arguments = StdioArgs;

    async fn pre_start(
        &self,
        myself: ActorRef<StdioMsg>,
        args: StdioArgs,
    ) -> Result<StdioState, ActorProcessingErr> {
        let io = (args.connect)();
        let server = args.server;
        let exec = Arc::new(args.pool);
        Ok(Serving::spawn(move |stopped| async move {
            let ended = serve_on(
                server,
                io.reader,
                io.writer,
                args.options,
                exec,
                io.extensions,
                stopped,
            )
            .await
            .map_err(|e| e.to_string());
            let _ = myself.cast(StdioMsg::Ended(ended));
        }))
    }

    async fn handle(
        &self,
        myself: ActorRef<StdioMsg>,
        message: StdioMsg,
        state: &mut StdioState,
    ) -> Result<(), ActorProcessingErr> {
        match message {
            StdioMsg::Ended(Ok(())) => {
                state.ended();
                myself.stop(Some("normal".into()));
                Ok(())
            }
            StdioMsg::Ended(Err(reason)) => {
                state.ended();
                Err(reason.into())
            }
        }
    }

    async fn post_stop(
        &self,
        _myself: ActorRef<StdioMsg>,
        state: &mut StdioState,
    ) -> Result<(), ActorProcessingErr> {
        // Asked to stop: refuse what is waiting, answer what is in flight, then close.
        state.stop().await;
        Ok(())
    }
}

impl fmt::Debug for StdioArgs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StdioArgs")
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

impl fmt::Debug for StdioMsg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StdioMsg::Ended(r) => f.debug_tuple("Ended").field(r).finish(),
        }
    }
}
