//! `SupervisorRef`: a typed handle with timed, precisely failing requests.

use std::time::Duration;

use ractor::concurrency::JoinHandle;
use ractor::rpc::CallResult;
use ractor::{Actor, ActorCell, ActorRef, RactorErr, RpcReplyPort, SpawnErr};

use crate::child::{ChildInfo, ChildSpec};
use crate::error::{CallError, Request, StartChildError, StopError, TerminateChildError};
use crate::supervisor::{Supervisor, SupervisorMsg, SupervisorSpec, SupervisorStats};

/// The call timeout a new [`SupervisorRef`] uses.
pub const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_secs(5);

/// A handle to a running [`Supervisor`].
///
/// Every request waits at most the handle's call timeout
/// ([`DEFAULT_CALL_TIMEOUT`] unless changed with [`SupervisorRef::with_call_timeout`]).
#[derive(Debug, Clone)]
pub struct SupervisorRef {
    actor: ActorRef<SupervisorMsg>,
    call_timeout: Duration,
}

impl SupervisorRef {
    /// Spawns an unsupervised supervisor from `spec`, starting its children in order.
    /// It returns once every child has started.
    ///
    /// # Errors
    ///
    /// [`SpawnErr::StartupFailed`] wrapping a [`crate::StartError`] when a child fails
    /// to start (the children already started are stopped first, in reverse order), or
    /// [`SpawnErr::ActorAlreadyRegistered`] when `name` is taken.
    pub async fn spawn(
        name: Option<String>,
        spec: SupervisorSpec,
    ) -> Result<(SupervisorRef, JoinHandle<()>), SpawnErr> {
        let (actor, join) = Actor::spawn(name, Supervisor, spec).await?;
        Ok((SupervisorRef::from(actor), join))
    }

    /// Spawns a supervisor from `spec` linked to `parent`, which then receives its
    /// supervision events (a meltdown arrives as `SupervisionEvent::ActorFailed`).
    ///
    /// # Errors
    ///
    /// As [`SupervisorRef::spawn`].
    pub async fn spawn_linked(
        name: Option<String>,
        spec: SupervisorSpec,
        parent: ActorCell,
    ) -> Result<(SupervisorRef, JoinHandle<()>), SpawnErr> {
        let (actor, join) = Actor::spawn_linked(name, Supervisor, spec, parent).await?;
        Ok((SupervisorRef::from(actor), join))
    }

    /// A handle to the supervisor behind `cell`, or `None` when `cell` is not a
    /// supervisor (for example a nested one found through `which_children`).
    #[must_use]
    pub fn from_cell(cell: ActorCell) -> Option<SupervisorRef> {
        if cell.is_message_type_of::<SupervisorMsg>() == Some(true) {
            Some(SupervisorRef::from(ActorRef::<SupervisorMsg>::from(cell)))
        } else {
            None
        }
    }

    /// The same handle with another call timeout.
    #[must_use]
    pub fn with_call_timeout(mut self, timeout: Duration) -> SupervisorRef {
        self.call_timeout = timeout;
        self
    }

    /// The supervisor's actor.
    #[must_use]
    pub fn actor(&self) -> &ActorRef<SupervisorMsg> {
        &self.actor
    }

    /// The supervisor's cell (to link actors under it, or compare ids).
    #[must_use]
    pub fn cell(&self) -> ActorCell {
        self.actor.get_cell()
    }

    /// The children, in start order, with their cells and restart counts.
    ///
    /// # Errors
    ///
    /// [`CallError`] when the supervisor does not answer in time or is not running.
    pub async fn which_children(&self) -> Result<Vec<ChildInfo>, CallError> {
        self.call(Request::WhichChildren, SupervisorMsg::WhichChildren)
            .await
    }

    /// Starts `spec` as the supervisor's last child and returns its cell.
    ///
    /// Any restart policy is accepted; per-connection children are usually
    /// [`crate::Restart::Temporary`].
    ///
    /// # Errors
    ///
    /// [`StartChildError::Start`] when the id is taken or the child fails to start;
    /// [`StartChildError::Call`] when the supervisor does not answer in time (the child
    /// may still have been started) or is not running.
    pub async fn start_child(&self, spec: ChildSpec) -> Result<ActorCell, StartChildError> {
        self.call(Request::StartChild, |reply| {
            SupervisorMsg::StartChild(spec, reply)
        })
        .await
        .map_err(StartChildError::Call)?
        .map_err(StartChildError::Start)
    }

    /// Stops the child `id` by its shutdown policy and removes it (OTP's
    /// `terminate_child` followed by `delete_child`). It is not restarted.
    ///
    /// # Errors
    ///
    /// [`TerminateChildError::NotFound`] when there is no such child;
    /// [`TerminateChildError::Call`] when the supervisor does not answer in time or is
    /// not running.
    pub async fn terminate_child(&self, id: &str) -> Result<(), TerminateChildError> {
        let found = self
            .call(Request::TerminateChild, |reply| {
                SupervisorMsg::TerminateChild(id.to_owned(), reply)
            })
            .await
            .map_err(TerminateChildError::Call)?;
        if found {
            Ok(())
        } else {
            Err(TerminateChildError::NotFound { id: id.to_owned() })
        }
    }

    /// The supervisor's counters.
    ///
    /// # Errors
    ///
    /// [`CallError`] when the supervisor does not answer in time or is not running.
    pub async fn stats(&self) -> Result<SupervisorStats, CallError> {
        self.call(Request::Stats, SupervisorMsg::Stats).await
    }

    /// How many times child `id` has been restarted, or `None` if there is no such child.
    ///
    /// # Errors
    ///
    /// [`CallError`] when the supervisor does not answer in time or is not running.
    pub async fn restart_count(&self, id: &str) -> Result<Option<u32>, CallError> {
        self.call(Request::RestartCount, |reply| {
            SupervisorMsg::RestartCount(id.to_owned(), reply)
        })
        .await
    }

    /// Stops the supervisor: its children are stopped last-started first, each by its
    /// shutdown policy, then it exits normally. Waits at most `timeout` for all of it.
    ///
    /// # Errors
    ///
    /// [`StopError::Timeout`] when it is still shutting down after `timeout`;
    /// [`StopError::NotRunning`] when it had already exited.
    pub async fn stop_gracefully(&self, timeout: Duration) -> Result<(), StopError> {
        match self.actor.stop_and_wait(None, Some(timeout)).await {
            Ok(()) => Ok(()),
            Err(RactorErr::Timeout) => Err(StopError::Timeout { after: timeout }),
            Err(_) => Err(StopError::NotRunning),
        }
    }

    async fn call<T, F>(&self, request: Request, build: F) -> Result<T, CallError>
    where
        T: Send + 'static,
        F: FnOnce(RpcReplyPort<T>) -> SupervisorMsg,
    {
        match self.actor.call(build, Some(self.call_timeout)).await {
            Ok(CallResult::Success(value)) => Ok(value),
            Ok(CallResult::Timeout) => Err(CallError::Timeout {
                request,
                after: self.call_timeout,
            }),
            Ok(CallResult::SenderError) => Err(CallError::Dropped { request }),
            Err(_) => Err(CallError::Unavailable { request }),
        }
    }
}

impl From<ActorRef<SupervisorMsg>> for SupervisorRef {
    fn from(actor: ActorRef<SupervisorMsg>) -> Self {
        SupervisorRef {
            actor,
            call_timeout: DEFAULT_CALL_TIMEOUT,
        }
    }
}
