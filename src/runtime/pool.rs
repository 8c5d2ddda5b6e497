//! The dispatch pool: admission of host work under a bound, a deadline and a fault count.
//!
//! A call is admitted by a permit (one per worker slot) where the request already is: no
//! actor relays it. The permits are shared by every life of the pool and a call holds its
//! own until its host work has really ended: that is what makes `workers` a bound on the host
//! calls running at once, a host that blocks its thread past its deadline included. What the
//! pool actor owns is the admission (the queue and its opening), which it opens when it
//! starts and closes when it stops, answering whoever still waits.
//!
//! - The wait for a slot is bounded: a call arriving when `queue` calls already wait is
//!   answered at once with -32603 and `data.reason = "overloaded"`. -32603 because the
//!   request was valid and the server could not serve it; the reason tells a client to back
//!   off and retry.
//! - Host work runs in a task of its own, so the deadline (counted from arrival, the wait
//!   for a slot included) fires even when the host blocks its thread; the caller gets -32603
//!   with `data.reason = "deadline"`, the call's cancellation token fires and its task is
//!   aborted (dropped at its next await). A host that blocks its thread keeps its slot until
//!   it returns: it is counted as *overrunning* (`PoolStats::overrunning`, the gauge
//!   `mcp_pool_overrunning`), and while every slot is so held, calls queue and are refused as
//!   any call is when the pool is full.
//! - A host panic is answered as a tool error by the core; the task ends and its slot
//!   returns with it.
//! - A caller that goes away (a closed connection, a reset stream, a stdio cancellation)
//!   cancels its call: the task is aborted and the token fires, and the slot returns when the
//!   host's future is dropped. One that goes away while it still waits for a slot gives its
//!   place in the queue back, and its host work never starts.
//! - The pool stopping answers every call still waiting with `"shutting down"`; the calls
//!   already running finish and are answered.

use super::message::{answer, DispatchResult};
use crate::dispatch::CancellationToken;
use crate::metrics::{self, PoolEvent};
use crate::protocol::outcome::Unserved;
use crate::server::{unserved_reply, HostOutcome, Pending, Reply};
use crate::transport::RunPending;
use crate::BoxFuture;
use ractor::{Actor, ActorCell, ActorProcessingErr, ActorRef, RpcReplyPort, SpawnErr};
use std::fmt;
use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering};
use std::sync::{Arc, RwLock};
use std::time::Duration;
use tokio::sync::{OwnedSemaphorePermit, Semaphore, TryAcquireError};
use tokio::task::JoinHandle;
use tokio::time::Instant;

const OVERLOADED: Unserved = Unserved::Overloaded;
const DEADLINE: Unserved = Unserved::Deadline;
pub(crate) const UNAVAILABLE: Unserved = Unserved::Unavailable;
const SHUTTING_DOWN: Unserved = Unserved::ShuttingDown;

mod stats;
use stats::Counters;
pub use stats::PoolStats;

/// Where a submitted job's reply goes.
pub(crate) enum ReplyTo {
    /// A host actor awaiting a plain-data answer.
    Host(RpcReplyPort<DispatchResult>),
}

impl ReplyTo {
    fn send(self, reply: Reply) {
        // A caller that went away no longer needs its answer.
        match self {
            ReplyTo::Host(port) => {
                let _ = port.send(answer(reply));
            }
        }
    }
}

/// How the pool is sized and bounded.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PoolSettings {
    pub(crate) workers: usize,
    pub(crate) queue: usize,
    pub(crate) deadline: Duration,
}

/// One life of the pool actor: the calls waiting for a slot, and whether it still admits.
struct Admission {
    /// Fired when the pool actor of this life goes: whoever waits is answered.
    closed: CancellationToken,
    /// Calls waiting for a slot; at most `queue`.
    waiting: AtomicUsize,
    /// The pool actor whose life this admission is.
    actor: ActorCell,
    shared: Arc<PoolShared>,
}

/// The admission of the pool actor that runs now, if one does.
type Current = RwLock<Option<Arc<Admission>>>;

/// The caller's side of the pool: finds the current admission (it changes when the pool
/// restarts) without a message round trip.
#[derive(Clone)]
pub(crate) struct Pool {
    shared: Arc<PoolShared>,
    current: Arc<Current>,
}

/// What every life of the pool shares.
struct PoolShared {
    counters: Counters,
    settings: PoolSettings,
    /// One permit per worker, for every life of the pool: held by a call's task until its
    /// host work has ended.
    slots: Arc<Semaphore>,
    /// Host calls holding a slot their caller no longer waits for.
    overrunning: AtomicUsize,
}

impl fmt::Debug for Pool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Pool")
            .field("settings", &self.shared.settings)
            .field("counters", &self.shared.counters)
            .finish_non_exhaustive()
    }
}

impl Pool {
    /// Whether a pool actor runs and admits calls now.
    pub(crate) fn admits(&self) -> bool {
        let current = self.current.read().unwrap_or_else(|e| e.into_inner());
        current.as_ref().is_some_and(|a| !a.closed.is_cancelled())
    }

    pub(crate) fn new(settings: PoolSettings) -> Self {
        Pool {
            shared: Arc::new(PoolShared {
                counters: Counters::default(),
                settings,
                slots: Arc::new(Semaphore::new(settings.workers.max(1))),
                overrunning: AtomicUsize::new(0),
            }),
            current: Arc::new(RwLock::new(None)),
        }
    }

    fn current(&self) -> Option<Arc<Admission>> {
        self.current
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Runs `pending` on a task of its own and sends the reply to `reply`, whatever happens.
    /// A port with a timeout shortens the call's deadline to it: past it nobody waits for the
    /// answer (a remote caller's port carries the caller's bound across the node).
    pub(crate) fn submit(&self, pending: Pending, reply: ReplyTo) {
        let ReplyTo::Host(port) = &reply;
        let run = self.execute(pending, port.get_timeout());
        tokio::spawn(async move { reply.send(run.await) });
    }

    pub(crate) fn stats(&self) -> PoolStats {
        let c = &self.shared.counters;
        let workers = self.shared.settings.workers;
        let starts = c.starts.load(Ordering::Relaxed);
        PoolStats {
            workers,
            worker_restarts: starts.saturating_sub(workers as u64),
            completed: c.completed.load(Ordering::Relaxed),
            panics: c.panics.load(Ordering::Relaxed),
            deadlines: c.deadlines.load(Ordering::Relaxed),
            overloaded: c.overloaded.load(Ordering::Relaxed),
            cancelled: c.cancelled.load(Ordering::Acquire),
            overrunning: self.shared.overrunning.load(Ordering::Relaxed),
            queued: self
                .current()
                .map_or(0, |a| a.waiting.load(Ordering::Relaxed)),
        }
    }

    /// Spawns the pool actor linked to `supervisor`; it publishes its admission as it starts.
    pub(crate) async fn spawn(&self, supervisor: ActorCell) -> Result<ActorCell, SpawnErr> {
        let args = (self.shared.clone(), self.current.clone());
        let (actor, _) = Actor::spawn_linked(None, PoolActor, args, supervisor).await?;
        Ok(actor.get_cell())
    }

    /// The pool actor's cell, while it runs.
    pub(crate) fn cell(&self) -> Option<ActorCell> {
        self.current().map(|a| a.actor.clone())
    }

    /// Admits `pending`, runs it and yields its reply. Never fails to answer.
    ///
    /// # Cancel safety
    /// Dropping the future cancels the call: a call still waiting gives its place back and
    /// never runs; a running one has its task aborted and its token fired, and holds its slot
    /// until its host work has ended.
    fn execute(
        &self,
        pending: Pending,
        within: Option<Duration>,
    ) -> impl std::future::Future<Output = Reply> + 'static {
        let admission = self.current();
        async move {
            let Some(admission) = admission else {
                return pending.unserved(UNAVAILABLE);
            };
            let settings = admission.shared.settings;
            let deadline = within.map_or(settings.deadline, |w| w.min(settings.deadline));
            let due = Instant::now() + deadline;
            let permit = match admit(&admission, settings.queue, due).await {
                Ok(permit) => permit,
                Err(reason) => return pending.unserved(reason),
            };
            let id = pending.id().clone();
            let token = pending.cancellation().clone();
            // The answer made here (a deadline, a lost task) is the request's: its span has it.
            let span = pending.span().clone();
            let call = Arc::new(CallState {
                phase: AtomicU8::new(RUNNING),
                shared: admission.shared.clone(),
            });
            let held = Held {
                call: call.clone(),
                _permit: permit,
            };
            let mut watch = Watch {
                task: Some(tokio::spawn(host(pending, held))),
                call,
                token,
                due,
                deadline,
            };
            let running = Running::start();
            let ended = watch.wait().await;
            drop(running);
            ended.unwrap_or_else(|reason| {
                let reply = unserved_reply(&id, reason);
                reply.end_span(&span);
                reply
            })
        }
    }
}

impl RunPending for Pool {
    fn run(&self, pending: Pending) -> BoxFuture<Reply> {
        Box::pin(self.execute(pending, None))
    }
}

/// A slot for one call, or why there is none.
///
/// # Cancel safety
/// Dropped while waiting (its caller gone: an aborted task, an HTTP client that hung up), it
/// has taken no permit and gives its place in the queue back.
async fn admit(
    admission: &Admission,
    queue: usize,
    due: Instant,
) -> Result<OwnedSemaphorePermit, Unserved> {
    let shared = &admission.shared;
    if admission.closed.is_cancelled() {
        return Err(SHUTTING_DOWN);
    }
    match shared.slots.clone().try_acquire_owned() {
        Ok(permit) => return Ok(permit),
        Err(TryAcquireError::Closed) => return Err(SHUTTING_DOWN),
        Err(TryAcquireError::NoPermits) => {}
    }
    if admission.waiting.fetch_add(1, Ordering::AcqRel) >= queue {
        admission.waiting.fetch_sub(1, Ordering::AcqRel);
        shared.counters.overloaded.fetch_add(1, Ordering::Relaxed);
        metrics::pool_event(PoolEvent::Overloaded);
        return Err(OVERLOADED);
    }
    let place = Queued::enter(admission);
    let got = tokio::select! {
        biased;
        () = admission.closed.cancelled() => Ok(Err(SHUTTING_DOWN)),
        got = tokio::time::timeout_at(due, shared.slots.clone().acquire_owned()) => {
            got.map(|permit| permit.map_err(|_closed| SHUTTING_DOWN))
        }
    };
    place.leave();
    match got {
        Ok(permit) => permit,
        // A call that waited its whole deadline for a slot is refused without running.
        Err(_elapsed) => {
            shared.counters.deadlines.fetch_add(1, Ordering::Relaxed);
            metrics::pool_event(PoolEvent::Deadline);
            Err(DEADLINE)
        }
    }
}

/// A place in the queue (already counted in `waiting`), given back however the wait ends; its
/// future dropped (the caller went away while it waited) counts a cancelled job.
struct Queued<'a> {
    admission: &'a Admission,
    waited: bool,
}

impl<'a> Queued<'a> {
    fn enter(admission: &'a Admission) -> Queued<'a> {
        metrics::pool_queued(1.0);
        Queued {
            admission,
            waited: false,
        }
    }

    /// The wait ended, with a slot or with a refusal.
    fn leave(mut self) {
        self.waited = true;
    }
}

impl Drop for Queued<'_> {
    fn drop(&mut self) {
        // Counted before the place is given back: whoever sees the queue empty sees the count.
        if !self.waited {
            let counters = &self.admission.shared.counters;
            counters.cancelled.fetch_add(1, Ordering::AcqRel);
        }
        self.admission.waiting.fetch_sub(1, Ordering::AcqRel);
        metrics::pool_queued(-1.0);
    }
}

/// A call running in the pool, counted in `mcp_pool_in_flight` until its caller stops waiting
/// for it, however that ends.
struct Running;

impl Running {
    fn start() -> Running {
        metrics::pool_running(1.0);
        Running
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        metrics::pool_running(-1.0);
    }
}

/// The host work is running and its caller waits for it.
const RUNNING: u8 = 0;
/// The caller stopped waiting (the deadline, or it went away) while the host work ran on.
const LEFT: u8 = 1;
/// The host work has ended.
const ENDED: u8 = 2;

/// What a call's task and its watcher share: whether the host work overran its caller.
struct CallState {
    phase: AtomicU8,
    shared: Arc<PoolShared>,
}

impl CallState {
    /// The caller stops waiting: the host work, if it has not ended, now overruns. Counted
    /// before the phase moves, so the count never goes below zero when the work ends at the
    /// same instant.
    fn left(&self) {
        self.shared.overrunning.fetch_add(1, Ordering::AcqRel);
        metrics::pool_overrunning(1.0);
        if self
            .phase
            .compare_exchange(RUNNING, LEFT, Ordering::AcqRel, Ordering::Acquire)
            .is_err()
        {
            self.ended_overrun();
        }
    }

    fn ended_overrun(&self) {
        self.shared.overrunning.fetch_sub(1, Ordering::AcqRel);
        metrics::pool_overrunning(-1.0);
    }
}

/// What a call's task holds while its host work runs: its slot, given back when the task's
/// future is dropped (the host returned, panicked, or was aborted at an await), never sooner.
struct Held {
    call: Arc<CallState>,
    _permit: OwnedSemaphorePermit,
}

impl Drop for Held {
    fn drop(&mut self) {
        // Before the permit goes (fields drop after this body): whoever sees the slot free
        // sees the overrun over.
        if self.call.phase.swap(ENDED, Ordering::AcqRel) == LEFT {
            self.call.ended_overrun();
        }
    }
}

/// Why a worker was lost.
#[derive(Debug)]
enum WorkerFault {
    HostPanicked,
    DeadlineExceeded(Duration),
}

impl fmt::Display for WorkerFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WorkerFault::HostPanicked => f.write_str("host code panicked"),
            WorkerFault::DeadlineExceeded(d) => write!(
                f,
                "host work exceeded its {} ms deadline; its slot returns when the host does",
                d.as_millis()
            ),
        }
    }
}

impl PoolShared {
    /// A worker lost to a fault, counted as a restart.
    fn lost(&self, fault: WorkerFault) {
        tracing::warn!(%fault, "dispatch worker lost");
        self.counters.starts.fetch_add(1, Ordering::Relaxed);
        metrics::pool_event(PoolEvent::WorkerRestart);
    }
}

/// The host work of one call, on a task of its own. Counters move and the slot returns before
/// the reply, so a caller that got its answer sees both.
async fn host(pending: Pending, held: Held) -> Reply {
    let (answer, outcome) = pending.run_observed().await;
    let shared = &held.call.shared;
    match outcome {
        HostOutcome::Returned => {
            shared.counters.completed.fetch_add(1, Ordering::Relaxed);
        }
        HostOutcome::Panicked => {
            shared.counters.panics.fetch_add(1, Ordering::Relaxed);
            metrics::pool_event(PoolEvent::Panic);
            shared.lost(WorkerFault::HostPanicked);
        }
    }
    drop(held);
    answer
}

/// The deadline over a running call, kept by its caller; the caller going away cancels it.
struct Watch {
    task: Option<JoinHandle<Reply>>,
    call: Arc<CallState>,
    token: CancellationToken,
    due: Instant,
    /// The call's deadline (the pool's, or its caller's when sooner).
    deadline: Duration,
}

impl Watch {
    async fn wait(&mut self) -> Result<Reply, Unserved> {
        let Some(task) = self.task.as_mut() else {
            return Err(UNAVAILABLE);
        };
        let ended = tokio::time::timeout_at(self.due, task).await;
        let task = self.task.take();
        match ended {
            Ok(Ok(reply)) => Ok(reply),
            // Host panics are caught inside the task: it ends otherwise only when the
            // runtime tears it down.
            Ok(Err(_)) => Err(UNAVAILABLE),
            Err(_elapsed) => {
                // Fired before the abort: the drop that follows is a deadline's, not a
                // caller's cancellation.
                self.token.cancel();
                if let Some(task) = task {
                    task.abort();
                }
                self.call.left();
                let shared = &self.call.shared;
                shared.counters.deadlines.fetch_add(1, Ordering::Relaxed);
                metrics::pool_event(PoolEvent::Deadline);
                // A caller's own, shorter bound ending the call is its caller's choice, not
                // a worker's fault.
                if self.deadline >= shared.settings.deadline {
                    shared.lost(WorkerFault::DeadlineExceeded(self.deadline));
                }
                Err(DEADLINE)
            }
        }
    }
}

impl Drop for Watch {
    /// The caller went away before the answer: the call is cancelled.
    fn drop(&mut self) {
        let Some(task) = self.task.take() else {
            return;
        };
        if task.is_finished() {
            return;
        }
        // Counted before the abort: whoever sees the host dropped sees the count.
        let counters = &self.call.shared.counters;
        counters.cancelled.fetch_add(1, Ordering::AcqRel);
        self.call.left();
        task.abort();
    }
}

/// What the pool actor is told: nothing. Its life is the admission's.
#[derive(Debug)]
pub(super) enum PoolMsg {}

/// The pool actor: owns one admission for its life, publishes it, closes it as it goes.
#[derive(Debug, Clone, Copy, Default)]
struct PoolActor;

/// The pool actor's state: its admission, closed and withdrawn when the actor goes, however
/// it goes (a kill included), so that waiting calls are answered and new ones refused.
struct Published {
    admission: Arc<Admission>,
    current: Arc<Current>,
}

impl Drop for Published {
    fn drop(&mut self) {
        self.admission.closed.cancel();
        let mut slot = self.current.write().unwrap_or_else(|e| e.into_inner());
        if slot
            .as_ref()
            .is_some_and(|a| Arc::ptr_eq(a, &self.admission))
        {
            *slot = None;
        }
    }
}

impl Actor for PoolActor {
    type Msg = PoolMsg;
    type State = Published;
    type Arguments = (Arc<PoolShared>, Arc<Current>);

    async fn pre_start(
        &self,
        myself: ActorRef<PoolMsg>,
        (shared, current): (Arc<PoolShared>, Arc<Current>),
    ) -> Result<Published, ActorProcessingErr> {
        let workers = shared.settings.workers.max(1);
        shared
            .counters
            .starts
            .fetch_add(workers as u64, Ordering::Relaxed);
        let admission = Arc::new(Admission {
            closed: CancellationToken::new(),
            waiting: AtomicUsize::new(0),
            actor: myself.get_cell(),
            shared,
        });
        *current.write().unwrap_or_else(|e| e.into_inner()) = Some(admission.clone());
        // The gauges exist from the start, so a scrape shows an idle pool as 0, not as absent.
        metrics::pool_queued(0.0);
        metrics::pool_running(0.0);
        Ok(Published { admission, current })
    }

    async fn handle(
        &self,
        _myself: ActorRef<PoolMsg>,
        msg: PoolMsg,
        _state: &mut Published,
    ) -> Result<(), ActorProcessingErr> {
        match msg {}
    }
}

impl fmt::Debug for Published {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Published").finish_non_exhaustive()
    }
}
