//! The supervised runtime: the supervision tree of this system, on `ractor`.
//!
//! ```text
//! Root (rest_for_one)
//! ├── catalog         the address host (and remote) Dispatch messages go to
//! ├── dispatch_pool   owns the admission: N worker slots (permits), a bounded wait, a deadline
//! ├── collector       (optional) the connectome's collector actor
//! ├── reporter        (optional) builds the connectome exports on demand
//! └── transports (one_for_one)
//!     ├── stdio       (optional) one connection actor, its host work run by the pool
//!     ├── http        (optional) the listener; each connection a task it owns, not an actor
//!     └── …           the host's own transports
//! ```
//!
//! Request paths read the catalog (the current snapshot of the server's shared cell) and find
//! the pool without a message round trip, and an HTTP accept sends no message either; only a
//! host actor's [`ApplicationMsg::Dispatch`] and a catalog change
//! ([`ApplicationRef::change`]) go through the catalog actor. Each actor is there for what its
//! restart restores (`ARCHITECTURE.md`, "What a restart restores").
//!
//! **Overload, deadline, panic.** When the pool's queue is full a call is answered at once
//! with -32603 and `data.reason = "overloaded"`; a call past the deadline with -32603 and
//! `"deadline"` (its worker is replaced); a panicking tool with a tool error (`isError`) and
//! its worker replaced. -32603 is the code because the request was valid and the server could
//! not serve it now; the reason says why.
//!
//! **Crash loops escalate.** A transport that crashes is restarted by the transports
//! supervisor and nothing else moves. One that crashes faster than the restart intensity
//! (default 10 in 10 s) makes the transports supervisor give up; Root restarts it, and that
//! restart counts against Root's own intensity: past it, Root fails into its parent, as in
//! OTP. The intensity is [`ApplicationConfig::intensity`].
//!
//! **Blocking host code.** Host work runs in a task of its own, so a deadline still fires
//! while a tool blocks its thread (on a multi-thread runtime). A tool that blocks for long
//! should still move the blocking part to `tokio::task::spawn_blocking` and await it: a
//! blocked thread starves the other tasks scheduled on it, and an aborted task can only stop
//! at an await, so a blocking section runs to its end even after the caller was answered.
//!
//! ```
//! use beam_mcp::runtime::{Application, ApplicationConfig};
//! use beam_mcp::{Catalog, Server, ServerConfig, ToolOutput, ToolSpec};
//! use serde_json::json;
//!
//! # #[tokio::main(flavor = "multi_thread", worker_threads = 2)]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let catalog = Catalog::new().tool(ToolSpec::new("echo", "Echo.").with_input_schema(json!({
//!     "type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]
//! })));
//! let server = Server::new(ServerConfig::new(catalog).dispatch(|call: beam_mcp::ToolCall| async move {
//!     Ok(ToolOutput::text(call.arguments.get("text").and_then(|v| v.as_str()).unwrap_or("")))
//! }))?;
//! let runtime = Application::start(server, ApplicationConfig::new().workers(2)).await?;
//!
//! let reply = runtime.dispatch("echo", json!({"text": "hi"})).await?;
//! assert_eq!(reply.texts(), ["hi"]);
//! // The same validator as tools/call:
//! assert!(runtime.dispatch("echo", json!({})).await.unwrap_err().is_invalid_arguments());
//!
//! runtime.stop(std::time::Duration::from_secs(5)).await?;
//! # Ok(())
//! # }
//! ```

mod build;
mod catalog;
mod children;
#[cfg(feature = "cluster")]
pub mod cluster;
mod config;
mod error;
#[cfg(feature = "http")]
mod http;
mod message;
mod pool;
mod probe;
mod serving;
mod stdio;

pub use config::{ApplicationConfig, DEFAULT_DEADLINE, DEFAULT_QUEUE, DEFAULT_WORKERS};
pub use error::ApplicationError;
pub use message::{
    ApplicationMsg, DispatchError, DispatchResult, ToolResult, RUNTIME_REFUSAL_CODE,
};
pub use pool::PoolStats;
pub use stdio::{StdioConnector, StdioIo};

use crate::catalog::CatalogChange;
#[cfg(feature = "connectome")]
use crate::connectome::canonical::Sealed;
#[cfg(feature = "connectome")]
use crate::connectome::export::ExportKind;
#[cfg(feature = "connectome")]
use crate::connectome::reporter::ReporterMsg;
use crate::dispatch::Carrier;
use crate::dispatch::Extensions;
use crate::server::{Answer, Server, Step};
use crate::transport::RunPending;
use beam_mcp_supervisors::{ChildSpec, SupervisorRef};
use catalog::DispatcherSlot;
use pool::Pool;
use ractor::{ActorCell, ActorRef};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

/// The child id of the catalog actor under Root.
pub const CATALOG: &str = "catalog";
/// The child id of the dispatch pool's actor under Root.
pub const DISPATCH_POOL: &str = "dispatch_pool";
/// The child id of the collector actor under Root.
#[cfg(feature = "connectome")]
pub const COLLECTOR: &str = "collector";
/// The child id of the connectome reporter under Root.
#[cfg(feature = "connectome")]
pub const REPORTER: &str = "reporter";
/// The child id of the transports supervisor under Root.
pub const TRANSPORTS: &str = "transports";
/// The child id of the stdio connection under the transports supervisor.
pub const STDIO: &str = "stdio";
/// The child id of the HTTP transport under the transports supervisor: the listener actor,
/// which owns its connections (tasks, not actors).
pub const HTTP: &str = "http";

/// Starts the supervision tree.
#[derive(Debug, Clone, Copy)]
pub struct Application;

impl Application {
    /// Starts the tree for `server`, unsupervised: the Root supervisor is the top.
    ///
    /// # Errors
    /// [`ApplicationError::InvalidOption`] for 0 workers or a zero deadline;
    /// [`ApplicationError::Start`] when a child fails to start.
    pub async fn start(
        server: Server,
        config: ApplicationConfig,
    ) -> Result<ApplicationRef, ApplicationError> {
        Application::spawn(server, config, None).await
    }

    /// Starts the tree linked under `supervisor` (a host's own ractor supervisor, or a
    /// [`beam_mcp_supervisors::Supervisor`]), which then receives Root's supervision events:
    /// Root failing after its restart intensity arrives there as `ActorFailed`.
    ///
    /// # Errors
    /// As [`Application::start`].
    pub async fn start_linked(
        server: Server,
        config: ApplicationConfig,
        supervisor: ActorCell,
    ) -> Result<ApplicationRef, ApplicationError> {
        Application::spawn(server, config, Some(supervisor)).await
    }
}

struct Shared {
    /// The validated, live catalog: read by every request path without a round trip.
    server: Server,
    /// What the runtime's health is read from.
    probe: Arc<probe::RuntimeProbe>,
    pool: Pool,
    dispatcher: DispatcherSlot,
    /// How long a transport supervisor call may take: a stop waits for the calls in flight.
    call_timeout: Duration,
    #[cfg(feature = "connectome")]
    reporter: children::ReporterSlot,
    /// The declared graph and digest algorithm of the reporter (if configured), and the
    /// collector (an empty one without): what a federated export is built from.
    #[cfg(feature = "connectome")]
    #[cfg_attr(not(feature = "cluster"), allow(dead_code))]
    federation_inputs: (
        Option<(
            crate::connectome::declared::Declared,
            crate::connectome::canonical::DigestAlgorithm,
        )>,
        crate::connectome::observed::Collector,
    ),
    transports: HashMap<String, ChildSpec>,
    /// The HTTP listener's connection tasks alive, counted across its restarts.
    #[cfg(feature = "http")]
    http_open: http::OpenConnections,
}

/// A running runtime: dispatch into it, read its catalog, manage its transports, stop it.
///
/// Cheap to clone. Dropping every handle leaves the tree running; [`ApplicationRef::stop`]
/// stops it.
#[derive(Clone)]
pub struct ApplicationRef {
    root: SupervisorRef,
    shared: Arc<Shared>,
}

impl std::fmt::Debug for ApplicationRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ApplicationRef")
            .field("root", &self.root.cell().get_id())
            .field("pool", &self.shared.pool)
            .finish_non_exhaustive()
    }
}

impl ApplicationRef {
    /// Calls `tool` with `arguments`: validated as a `tools/call` (same schema, same
    /// normaliser), run in the dispatch pool, answered as plain data. Under a
    /// [`ServerConfig::view`](crate::ServerConfig::view) the call is a caller with no
    /// extensions: a tool the view hides from such a caller is an unknown tool
    /// ([`ApplicationRef::dispatch_with`] names the caller).
    ///
    /// # Errors
    /// A [`DispatchError`] when the call is refused: unknown tool, invalid arguments, an
    /// overloaded pool, an expired deadline, a pool that is not running. A tool's own failure
    /// is an `Ok` [`ToolResult`] with [`ToolResult::is_error`].
    pub async fn dispatch(&self, tool: &str, arguments: Value) -> DispatchResult {
        self.dispatch_with(tool, arguments, Extensions::new()).await
    }

    /// [`ApplicationRef::dispatch`] carrying `extensions` (the principal the host acts for,
    /// say): the tool reads them as [`crate::CallContext::extensions`], and a view decides with
    /// them, as for a request off a wire, whether the tool exists for this caller.
    ///
    /// # Errors
    /// As [`ApplicationRef::dispatch`].
    pub async fn dispatch_with(
        &self,
        tool: &str,
        arguments: Value,
        extensions: Extensions,
    ) -> DispatchResult {
        match self.shared.server.host_call(tool, arguments, extensions) {
            Ok(p) => message::answer(self.shared.pool.run(p).await),
            Err(r) => message::answer(r),
        }
    }

    /// Answers one JSON-RPC frame in process, as a transport would: the core answers what it
    /// can, and host work goes through the dispatch pool.
    pub async fn answer(&self, frame: &[u8], carrier: Carrier) -> Answer {
        self.answer_with(frame, carrier, Extensions::new()).await
    }

    /// [`ApplicationRef::answer`] with the host's `extensions` attached to the request.
    pub async fn answer_with(
        &self,
        frame: &[u8],
        carrier: Carrier,
        extensions: Extensions,
    ) -> Answer {
        match self.shared.server.handle_with(frame, carrier, extensions) {
            Step::Reply(r) => Answer::Reply(r),
            Step::Silent | Step::Cancel(_) => Answer::Silent,
            Step::Pending(p) => Answer::Reply(self.shared.pool.run(p).await),
            Step::Close(r) => Answer::Close(r),
        }
    }

    /// [`Server::change`] through the catalog actor, in its mailbox order: applied whole or not
    /// at all and published to every transport before this returns; the answer is the new
    /// [`Server::generation`]. A restart of the catalog actor keeps every change it answered.
    ///
    /// # Errors
    /// [`ApplicationError::Change`] with the [`crate::ConfigError`] of the step refused (the
    /// catalog is unchanged); [`ApplicationError::CatalogUnavailable`] when the catalog actor
    /// is restarting or stops before it reads the change (nothing was applied).
    ///
    /// # Cancel safety
    /// A change the actor has read is applied whether or not this future is still awaited.
    pub async fn change(&self, change: CatalogChange) -> Result<u64, ApplicationError> {
        let unavailable = ApplicationError::CatalogUnavailable;
        let actor = self.dispatcher().ok_or(unavailable)?;
        let call = actor.call(|reply| ApplicationMsg::Change { change, reply }, None);
        match call.await {
            Ok(ractor::rpc::CallResult::Success(r)) => {
                r.map_err(|e| ApplicationError::Change(e.into()))
            }
            _ => Err(ApplicationError::CatalogUnavailable),
        }
    }

    /// The runtime's health, read now without a message: live while the supervision tree
    /// is up; ready while, besides, the catalog actor runs, the dispatch pool admits calls and
    /// no [`ApplicationRef::stop`] has begun. A restart of the catalog actor or the pool makes
    /// it unready until the new one runs. [`crate::transport::http::HttpService::health_paths`]
    /// serves it over HTTP.
    pub fn health(&self) -> crate::health::Health {
        use crate::health::Probe;
        self.shared.probe.health()
    }

    /// The server the runtime serves, read without asking the catalog actor: a clone sharing
    /// its live catalog, which follows every change.
    pub fn server(&self) -> Server {
        self.shared.server.clone()
    }

    /// The actor host actors send [`ApplicationMsg`] to, while it runs. It changes when the
    /// catalog actor restarts: look it up again after a send fails.
    pub fn dispatcher(&self) -> Option<ActorRef<ApplicationMsg>> {
        self.shared
            .dispatcher
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    #[cfg(feature = "connectome")]
    /// Builds a connectome export in the reporter actor (declared, observed, diff or
    /// effective), off the request path.
    ///
    /// # Errors
    /// [`ApplicationError::NoReporter`] without [`ApplicationConfig::reporter`];
    /// [`ApplicationError::ReporterUnavailable`] when the reporter does not answer within 10 s;
    /// [`ApplicationError::Export`] when the graph cannot be written canonically.
    pub async fn export(&self, kind: ExportKind) -> Result<Sealed, ApplicationError> {
        let reporter = self
            .shared
            .reporter
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
            .ok_or(ApplicationError::NoReporter)?;
        let answer = reporter
            .call(
                |reply| ReporterMsg::Export(kind, reply),
                Some(Duration::from_secs(10)),
            )
            .await
            .map_err(|_| ApplicationError::ReporterUnavailable)?;
        match answer {
            ractor::rpc::CallResult::Success(r) => r.map_err(ApplicationError::Export),
            _ => Err(ApplicationError::ReporterUnavailable),
        }
    }

    /// Builds a federated export (features `cluster` and `connectome`): this runtime's
    /// observed graph, contributed as `node`, merged with the observed graph of every remote
    /// observed peer that answers within `timeout` (`docs/cluster.md`). `Observed` gives the
    /// `federated_observed` export; `Effective` the effective export weighted by the federation,
    /// against the declared graph as built (the nodes may serve different catalogs: this one's
    /// live catalog is not the federation's). Built in the caller's task.
    ///
    /// # Errors
    /// [`ApplicationError::NotFederated`] for `Declared` and `Diff`; [`ApplicationError::NoReporter`]
    /// for `Effective` without [`ApplicationConfig::reporter`] (no declared graph);
    /// [`ApplicationError::Export`] when the document cannot be written canonically.
    ///
    /// # Cancel safety
    /// Cancelling it abandons the peers' answers; nothing is left half done.
    #[cfg(all(feature = "cluster", feature = "connectome"))]
    pub async fn federated_export(
        &self,
        kind: ExportKind,
        node: &str,
        timeout: Duration,
    ) -> Result<Sealed, ApplicationError> {
        use crate::connectome::canonical::DigestAlgorithm;
        use crate::connectome::effective::federated_effective_export;
        use crate::connectome::federation::federated_observed_export;
        let (reporter, collector) = &self.shared.federation_inputs;
        if matches!(kind, ExportKind::Declared | ExportKind::Diff) {
            return Err(ApplicationError::NotFederated {
                kind: kind.as_str(),
            });
        }
        if kind == ExportKind::Effective && reporter.is_none() {
            return Err(ApplicationError::NoReporter);
        }
        let federation = cluster::observed::federate((node, &collector.snapshot()), timeout).await;
        let algorithm = reporter
            .as_ref()
            .map_or(DigestAlgorithm::default(), |(_, a)| *a);
        match (kind, reporter) {
            (ExportKind::Effective, Some((declared, _))) => {
                federated_effective_export(declared.graph(), &federation, algorithm)
            }
            _ => federated_observed_export(&federation, algorithm),
        }
        .map_err(ApplicationError::Export)
    }

    /// The HTTP connections open now: accepted by the listener and not yet ended (each a task
    /// the listener owns, ended with it). 0 without an HTTP transport.
    #[cfg(feature = "http")]
    pub fn http_connections(&self) -> usize {
        self.shared.http_open.get()
    }

    /// The dispatch pool's counters.
    pub fn pool_stats(&self) -> PoolStats {
        self.shared.pool.stats()
    }

    /// The pool's actor (it owns the admission for its life and closes it as it goes), while it
    /// runs.
    pub fn pool_actor(&self) -> Option<ActorCell> {
        self.shared.pool.cell()
    }

    /// The Root supervisor.
    pub fn root(&self) -> &SupervisorRef {
        &self.root
    }

    /// The transports supervisor.
    ///
    /// # Errors
    /// [`ApplicationError::Supervisor`] when Root does not answer; [`ApplicationError::UnknownTransport`]
    /// naming [`TRANSPORTS`] while it is being restarted.
    pub async fn transports(&self) -> Result<SupervisorRef, ApplicationError> {
        let children = self
            .root
            .which_children()
            .await
            .map_err(ApplicationError::Supervisor)?;
        children
            .into_iter()
            .find(|c| c.id == TRANSPORTS)
            .and_then(|c| c.cell)
            .and_then(SupervisorRef::from_cell)
            // Stopping a transport waits for its calls in flight (up to the deadline): the
            // supervisor's answer must be waited for at least that long.
            .map(|t| t.with_call_timeout(self.shared.call_timeout))
            .ok_or_else(|| ApplicationError::UnknownTransport {
                id: TRANSPORTS.to_owned(),
            })
    }

    /// Stops transport `id` (it answers what it has accepted, refuses what is waiting, then
    /// closes) and starts it again from its spec. The catalog and the pool are untouched.
    ///
    /// # Errors
    /// [`ApplicationError::UnknownTransport`] for an id not configured;
    /// [`ApplicationError::StartTransport`] when it cannot be started again;
    /// [`ApplicationError::Supervisor`] when a supervisor does not answer.
    pub async fn restart_transport(&self, id: &str) -> Result<(), ApplicationError> {
        self.stop_transport(id).await?;
        self.start_transport(id).await
    }

    /// Stops transport `id`, if it is running.
    ///
    /// # Errors
    /// [`ApplicationError::UnknownTransport`] for an id not configured;
    /// [`ApplicationError::StopTransport`] or [`ApplicationError::Supervisor`] when a supervisor does
    /// not answer.
    pub async fn stop_transport(&self, id: &str) -> Result<(), ApplicationError> {
        self.spec(id)?;
        match self.transports().await?.terminate_child(id).await {
            Ok(()) | Err(beam_mcp_supervisors::TerminateChildError::NotFound { .. }) => Ok(()),
            Err(source) => Err(ApplicationError::StopTransport {
                id: id.to_owned(),
                source,
            }),
        }
    }

    /// Starts transport `id` from its spec (after [`ApplicationRef::stop_transport`], or
    /// after it ended).
    ///
    /// # Errors
    /// [`ApplicationError::UnknownTransport`] for an id not configured;
    /// [`ApplicationError::StartTransport`] when it is running already or cannot start.
    pub async fn start_transport(&self, id: &str) -> Result<(), ApplicationError> {
        let spec = self.spec(id)?.clone();
        let transports = self.transports().await?;
        // A transient child that ended normally is still listed: forget it first.
        let listed = transports
            .which_children()
            .await
            .map_err(ApplicationError::Supervisor)?
            .into_iter()
            .any(|c| c.id == id && c.cell.is_none());
        if listed {
            let _ = transports.terminate_child(id).await;
        }
        transports
            .start_child(spec)
            .await
            .map(|_| ())
            .map_err(|source| ApplicationError::StartTransport {
                id: id.to_owned(),
                source,
            })
    }

    fn spec(&self, id: &str) -> Result<&ChildSpec, ApplicationError> {
        self.shared
            .transports
            .get(id)
            .ok_or_else(|| ApplicationError::UnknownTransport { id: id.to_owned() })
    }

    /// Stops the tree: transports first, then the collector, the pool and the catalog, each
    /// waited for; at most `timeout` in all.
    ///
    /// # Errors
    /// [`ApplicationError::Stop`] when it is still stopping after `timeout`, or was not running.
    pub async fn stop(&self, timeout: Duration) -> Result<(), ApplicationError> {
        self.shared.probe.stop_begins();
        self.root
            .stop_gracefully(timeout)
            .await
            .map_err(ApplicationError::Stop)
    }
}
