//! The supervisor actor: starts children in order, restarts them by strategy within its
//! intensity, fails when the intensity is exceeded, stops children in reverse order.

use std::time::{Duration, Instant};

use ractor::{
    Actor, ActorCell, ActorId, ActorProcessingErr, ActorRef, RpcReplyPort, SupervisionEvent,
};

use crate::child::{is_normal_exit, ChildInfo, ChildSpec, Restart};
use crate::error::{Meltdown, StartError};
use crate::intensity::{Intensity, RestartWindow};
use crate::shutdown::{stop_child, Shutdown, Stopped};
use crate::strategy::Strategy;

/// A supervisor's flags and ordered children: everything needed to start one.
#[derive(Debug, Clone)]
pub struct SupervisorSpec {
    pub(crate) strategy: Strategy,
    pub(crate) intensity: Intensity,
    pub(crate) children: Vec<ChildSpec>,
}

impl SupervisorSpec {
    /// A spec with the given strategy, [`Intensity::default`] and no children.
    #[must_use]
    pub fn new(strategy: Strategy) -> Self {
        SupervisorSpec {
            strategy,
            intensity: Intensity::default(),
            children: Vec::new(),
        }
    }

    /// Allows at most `max_restarts` restarts within any `period`.
    #[must_use]
    pub fn intensity(mut self, max_restarts: u32, period: Duration) -> Self {
        self.intensity = Intensity {
            max_restarts,
            period,
        };
        self
    }

    /// Appends a child; children start in the order they are added.
    #[must_use]
    pub fn child(mut self, child: ChildSpec) -> Self {
        self.children.push(child);
        self
    }

    /// Appends several children, in order.
    #[must_use]
    pub fn children(mut self, children: impl IntoIterator<Item = ChildSpec>) -> Self {
        self.children.extend(children);
        self
    }

    /// The strategy.
    #[must_use]
    pub fn strategy(&self) -> Strategy {
        self.strategy
    }

    /// The restart budget.
    #[must_use]
    pub fn restart_intensity(&self) -> Intensity {
        self.intensity
    }
}

/// Counters of one supervisor instance.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SupervisorStats {
    /// The strategy.
    pub strategy: Strategy,
    /// The restart budget.
    pub intensity: Intensity,
    /// Children held (running, or transient and stopped normally).
    pub children: usize,
    /// Children running.
    pub running: usize,
    /// Child starts after the first, summed over all children (a one_for_all restart of
    /// three children adds three).
    pub restarts: u64,
    /// Restarts counted against the intensity in the current period (a one_for_all
    /// restart counts once; a failed restart attempt counts too).
    pub restarts_in_period: usize,
    /// Children that had to be killed: brutal-kill policy, or still running after
    /// their shutdown timeout.
    pub kills: u64,
}

/// What a supervisor is asked. All but [`SupervisorMsg::StartChild`] are plain data.
///
/// Usually sent through [`crate::SupervisorRef`].
#[derive(Debug)]
pub enum SupervisorMsg {
    /// Start a child after the existing ones and answer its cell.
    StartChild(ChildSpec, RpcReplyPort<Result<ActorCell, StartError>>),
    /// Stop the child with this id by its shutdown policy and forget it; answers
    /// whether such a child existed.
    TerminateChild(String, RpcReplyPort<bool>),
    /// The children, in start order.
    WhichChildren(RpcReplyPort<Vec<ChildInfo>>),
    /// The counters.
    Stats(RpcReplyPort<SupervisorStats>),
    /// How many times the child with this id has been restarted, if it exists.
    RestartCount(String, RpcReplyPort<Option<u32>>),
}

// Under ractor's `cluster` feature the blanket `Message` impl is gone: a supervisor is local
// only (a child spec holds closures), so its messages never serialise.
#[cfg(feature = "cluster")]
impl ractor::Message for SupervisorMsg {}

/// The supervisor actor. Spawn it with [`crate::SupervisorRef::spawn`] or, under another
/// supervisor, with [`Supervisor::child_spec`].
#[derive(Debug, Clone, Copy, Default)]
pub struct Supervisor;

impl Supervisor {
    /// A child spec that starts a supervisor from `spec` under its parent.
    ///
    /// It is permanent and stopped with [`Shutdown::Infinity`], so the nested
    /// supervisor can stop its own children in order; both can be changed on the result.
    #[must_use]
    pub fn child_spec(id: impl Into<String>, spec: SupervisorSpec) -> ChildSpec {
        ChildSpec::new(id, move |parent| {
            let spec = spec.clone();
            async move {
                let (sup, _) = Actor::spawn_linked(None, Supervisor, spec, parent).await?;
                Ok(sup.get_cell())
            }
        })
        .shutdown(Shutdown::Infinity)
    }
}

#[derive(Debug)]
struct Child {
    spec: ChildSpec,
    cell: Option<ActorCell>,
    restarts: u32,
}

/// The supervisor's state (opaque).
#[derive(Debug)]
pub struct SupervisorState {
    strategy: Strategy,
    intensity: Intensity,
    window: RestartWindow,
    children: Vec<Child>,
    restarts: u64,
    kills: u64,
}

impl Actor for Supervisor {
    type Msg = SupervisorMsg;
    type State = SupervisorState;
    type Arguments = SupervisorSpec;

    async fn pre_start(
        &self,
        myself: ActorRef<SupervisorMsg>,
        spec: SupervisorSpec,
    ) -> Result<SupervisorState, ActorProcessingErr> {
        let mut state = SupervisorState {
            strategy: spec.strategy,
            intensity: spec.intensity,
            window: RestartWindow::new(spec.intensity),
            children: Vec::with_capacity(spec.children.len()),
            restarts: 0,
            kills: 0,
        };
        let me = myself.get_cell();
        for child in spec.children {
            if state.position_of(&child.id).is_some() {
                let err = StartError::DuplicateId { id: child.id };
                state.shutdown_all().await;
                return Err(Box::new(err));
            }
            match start(&me, &child).await {
                Ok(cell) => state.children.push(Child {
                    spec: child,
                    cell: Some(cell),
                    restarts: 0,
                }),
                Err(err) => {
                    state.shutdown_all().await;
                    return Err(Box::new(err));
                }
            }
        }
        Ok(state)
    }

    async fn post_stop(
        &self,
        _myself: ActorRef<SupervisorMsg>,
        state: &mut SupervisorState,
    ) -> Result<(), ActorProcessingErr> {
        state.shutdown_all().await;
        Ok(())
    }

    async fn handle(
        &self,
        myself: ActorRef<SupervisorMsg>,
        message: SupervisorMsg,
        state: &mut SupervisorState,
    ) -> Result<(), ActorProcessingErr> {
        match message {
            SupervisorMsg::StartChild(spec, reply) => {
                let result = state.start_dynamic(&myself.get_cell(), spec).await;
                // The caller may have given up waiting; the child stays either way.
                let _ = reply.send(result);
            }
            SupervisorMsg::TerminateChild(id, reply) => {
                let found = state.terminate(&id).await;
                let _ = reply.send(found);
            }
            SupervisorMsg::WhichChildren(reply) => {
                let _ = reply.send(state.which_children());
            }
            SupervisorMsg::Stats(reply) => {
                let _ = reply.send(state.stats());
            }
            SupervisorMsg::RestartCount(id, reply) => {
                let count = state.position_of(&id).map(|i| state.children[i].restarts);
                let _ = reply.send(count);
            }
        }
        Ok(())
    }

    async fn handle_supervisor_evt(
        &self,
        myself: ActorRef<SupervisorMsg>,
        event: SupervisionEvent,
        state: &mut SupervisorState,
    ) -> Result<(), ActorProcessingErr> {
        let (who, normal, reason) = match event {
            SupervisionEvent::ActorTerminated(who, _, reason) => {
                let normal = is_normal_exit(reason.as_deref());
                let reason = reason.unwrap_or_else(|| "normal".to_owned());
                (who.get_id(), normal, reason)
            }
            SupervisionEvent::ActorFailed(who, err) => (who.get_id(), false, err.to_string()),
            _ => return Ok(()),
        };
        if let Err(meltdown) = state.on_exit(&myself.get_cell(), who, normal, reason).await {
            tracing::error!(supervisor = %myself.get_id(), %meltdown, "supervisor giving up");
            state.shutdown_all().await;
            return Err(Box::new(meltdown));
        }
        Ok(())
    }
}

impl SupervisorState {
    fn position_of(&self, id: &str) -> Option<usize> {
        self.children.iter().position(|c| c.spec.id == id)
    }

    fn position_of_actor(&self, actor: ActorId) -> Option<usize> {
        self.children
            .iter()
            .position(|c| c.cell.as_ref().is_some_and(|cell| cell.get_id() == actor))
    }

    fn which_children(&self) -> Vec<ChildInfo> {
        self.children
            .iter()
            .map(|c| ChildInfo {
                id: c.spec.id.clone(),
                cell: c.cell.clone(),
                restart: c.spec.restart,
                restarts: c.restarts,
            })
            .collect()
    }

    fn stats(&mut self) -> SupervisorStats {
        SupervisorStats {
            strategy: self.strategy,
            intensity: self.intensity,
            children: self.children.len(),
            running: self.children.iter().filter(|c| c.cell.is_some()).count(),
            restarts: self.restarts,
            restarts_in_period: self.window.in_window(Instant::now()),
            kills: self.kills,
        }
    }

    async fn start_dynamic(
        &mut self,
        me: &ActorCell,
        spec: ChildSpec,
    ) -> Result<ActorCell, StartError> {
        if self.position_of(&spec.id).is_some() {
            return Err(StartError::DuplicateId { id: spec.id });
        }
        let cell = start(me, &spec).await?;
        self.children.push(Child {
            spec,
            cell: Some(cell.clone()),
            restarts: 0,
        });
        Ok(cell)
    }

    async fn terminate(&mut self, id: &str) -> bool {
        let Some(i) = self.position_of(id) else {
            return false;
        };
        let child = self.children.remove(i);
        if let Some(cell) = child.cell {
            self.stop_one(&cell, child.spec.shutdown).await;
        }
        true
    }

    async fn stop_one(&mut self, cell: &ActorCell, policy: Shutdown) {
        if stop_child(cell, policy).await != Stopped::Gracefully {
            self.kills += 1;
        }
    }

    /// Stops every child, last started first, one at a time.
    async fn shutdown_all(&mut self) {
        for i in (0..self.children.len()).rev() {
            if let Some(cell) = self.children[i].cell.take() {
                let policy = self.children[i].spec.shutdown;
                self.stop_one(&cell, policy).await;
            }
        }
    }

    /// Applies the restart policy and strategy to the exit of `actor`.
    ///
    /// Exits of actors that are not current children (ones this supervisor stopped
    /// itself, or stale events) are ignored.
    async fn on_exit(
        &mut self,
        me: &ActorCell,
        actor: ActorId,
        normal: bool,
        reason: String,
    ) -> Result<(), Meltdown> {
        let Some(failed) = self.position_of_actor(actor) else {
            return Ok(());
        };
        self.children[failed].cell = None;
        let restart = self.children[failed].spec.restart;
        if !restart.restarts_after(normal) {
            if restart == Restart::Temporary {
                self.children.remove(failed);
            }
            return Ok(());
        }
        let id = self.children[failed].spec.id.clone();
        tracing::debug!(child = %id, %reason, strategy = %self.strategy, "restarting");
        if !self.window.record(Instant::now()) {
            return Err(self.meltdown(id, reason));
        }
        self.restart_from(me, failed).await
    }

    async fn restart_from(&mut self, me: &ActorCell, failed: usize) -> Result<(), Meltdown> {
        let affected = self.strategy.affected(failed, self.children.len());
        let mut to_start = Vec::new();
        let mut dropped = Vec::new();
        for i in affected.clone() {
            let child = &self.children[i];
            if i == failed {
                to_start.push(child.spec.id.clone());
            } else if child.cell.is_some() {
                // Like OTP, a temporary sibling stopped for a restart is not started again.
                if child.spec.restart == Restart::Temporary {
                    dropped.push(child.spec.id.clone());
                } else {
                    to_start.push(child.spec.id.clone());
                }
            }
        }
        for i in affected.rev() {
            if i == failed {
                continue;
            }
            if let Some(cell) = self.children[i].cell.take() {
                let policy = self.children[i].spec.shutdown;
                self.stop_one(&cell, policy).await;
            }
        }
        self.children.retain(|c| !dropped.contains(&c.spec.id));
        for id in to_start {
            let Some(i) = self.position_of(&id) else {
                continue;
            };
            loop {
                match start(me, &self.children[i].spec).await {
                    Ok(cell) => {
                        let child = &mut self.children[i];
                        child.cell = Some(cell);
                        child.restarts += 1;
                        self.restarts += 1;
                        break;
                    }
                    Err(err) => {
                        tracing::warn!(child = %id, error = %err, "restart failed");
                        if !self.window.record(Instant::now()) {
                            return Err(self.meltdown(id, err.to_string()));
                        }
                    }
                }
            }
        }
        Ok(())
    }

    fn meltdown(&self, child: String, reason: String) -> Meltdown {
        Meltdown {
            intensity: self.intensity,
            child,
            reason,
        }
    }
}

/// Runs `spec`'s start function in its own task, so a panic in it is reported
/// instead of taking the supervisor down.
async fn start(me: &ActorCell, spec: &ChildSpec) -> Result<ActorCell, StartError> {
    let id = || spec.id.clone();
    let cell = match tokio::spawn((spec.start)(me.clone())).await {
        Ok(Ok(cell)) => cell,
        Ok(Err(source)) => return Err(StartError::Spawn { id: id(), source }),
        Err(join) => {
            let message = match join.try_into_panic() {
                Ok(payload) => payload
                    .downcast_ref::<&str>()
                    .map(|s| (*s).to_owned())
                    .or_else(|| payload.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "non-string panic payload".to_owned()),
                Err(_) => "start task cancelled".to_owned(),
            };
            return Err(StartError::Panicked { id: id(), message });
        }
    };
    let linked = cell
        .try_get_supervisor()
        .is_some_and(|sup| sup.get_id() == me.get_id());
    // A child that already exited has been unlinked; its exit event is on its way to us.
    let exited = cell.get_status() >= ractor::ActorStatus::Draining;
    if !linked && !exited {
        cell.kill();
        return Err(StartError::NotLinked { id: id() });
    }
    Ok(cell)
}
