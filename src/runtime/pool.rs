//! The dispatch pool: admission of host work under a bound, a deadline and a fault count.
//!
//! A call is admitted by a permit (one per worker slot) where the request already is: no
//! actor relays it. What the pool actor owns is the admission itself, which it creates when it
//! starts and closes when it stops: a restart restores an open admission with every slot, and
//! the stop answers whoever still waits. A slot lost to a fault needs no actor: it holds no
//! state (the panic was caught, the overdue task aborted), so it is replaced where the fault is
//! seen, by a fresh permit.
//!
//! - The wait for a slot is bounded: a call arriving when `queue` calls already wait is
//!   answered at once with -32603 and `data.reason = "overloaded"`. -32603 because the
//!   request was valid and the server could not serve it; the reason tells a client to back
//!   off and retry.
//! - Host work runs in a task of its own, so the deadline (counted from arrival, the wait
//!   for a slot included) fires even when the host blocks its thread; the caller gets -32603
//!   with `data.reason = "deadline"`, the task is aborted (at its next await), its slot is
//!   retired and a fresh one takes its place.
//! - A host panic is answered as a tool error by the core; its slot is retired and replaced
//!   the same way.
//! - A caller that goes away (a closed connection) does not cancel the host work: it runs on
//!   under the same deadline, watched from then on by a task of its own. One that goes away
//!   while it still waits for a slot gives its place in the queue back.
//! - The pool stopping answers every call still waiting with `"shutting down"`; the calls
//!   already running finish and are answered.

use super::message::{answer, DispatchResult};
use crate::metrics::{self, PoolEvent};
use crate::protocol::outcome::Unserved;
use crate::server::{unserved_reply, HostOutcome, Pending, Reply};
use crate::transport::RunPending;
use crate::BoxFuture;
use ractor::{Actor, ActorCell, ActorProcessingErr, ActorRef, RpcReplyPort, SpawnErr};
use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, RwLock};
use std::time::Duration;
use tokio::sync::{Semaphore, TryAcquireError};
use tokio::task::JoinHandle;
use tokio::time::Instant;

const OVERLOADED: Unserved = Unserved::Overloaded;
const DEADLINE: Unserved = Unserved::Deadline;
pub(crate) const UNAVAILABLE: Unserved = Unserved::Unavailable;
const SHUTTING_DOWN: Unserved = Unserved::ShuttingDown;

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

/// The pool's counters, shared across pool restarts.
#[derive(Debug, Default)]
pub(crate) struct Counters {
    starts: AtomicU64,
    completed: AtomicU64,
    panics: AtomicU64,
    deadlines: AtomicU64,
    overloaded: AtomicU64,
}

/// A snapshot of the dispatch pool's counters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PoolStats {
    /// Workers configured.
    pub workers: usize,
    /// Worker starts beyond the first `workers`: replacements after a panic, a deadline or a
    /// pool restart.
    pub worker_restarts: u64,
    /// Jobs answered by the host (including tool errors).
    pub completed: u64,
    /// Jobs whose host code panicked (each cost its worker).
    pub panics: u64,
    /// Jobs abandoned at the deadline (each cost its worker).
    pub deadlines: u64,
    /// Jobs refused because the queue was full.
    pub overloaded: u64,
}

/// How the pool is sized and bounded.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PoolSettings {
    pub(crate) workers: usize,
    pub(crate) queue: usize,
    pub(crate) deadline: Duration,
}

/// One life of the pool actor: its slots and the calls waiting for one.
///
/// A call holds its admission alone (one `Arc` clone): the counters and settings are reached
/// through it, and a slot is a permit taken and forgotten, handed back by `add_permits`,
/// so that a call touches as few cache lines shared by every worker as it can.
struct Admission {
    slots: Semaphore,
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
}

impl fmt::Debug for Pool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Pool")
            .field("settings", &self.shared.settings)
            .field("counters", &self.shared.counters)
            .finish_non_exhaustive()
    }
}

/// Why a slot was retired.
#[derive(Debug)]
enum SlotFault {
    HostPanicked,
    DeadlineExceeded(Duration),
}

impl fmt::Display for SlotFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SlotFault::HostPanicked => f.write_str("host code panicked"),
            SlotFault::DeadlineExceeded(d) => {
                write!(f, "host work exceeded its {} ms deadline", d.as_millis())
            }
        }
    }
}

impl Pool {
    pub(crate) fn new(settings: PoolSettings) -> Self {
        Pool {
            shared: Arc::new(PoolShared {
                counters: Counters::default(),
                settings,
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
    pub(crate) fn submit(&self, pending: Pending, reply: ReplyTo) {
        let run = self.execute(pending);
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
    /// Dropping the future before the host work ends leaves the work running under the same
    /// deadline; only its reply is lost.
    fn execute(&self, pending: Pending) -> impl std::future::Future<Output = Reply> + 'static {
        let admission = self.current();
        async move {
            let Some(admission) = admission else {
                return pending.unserved(UNAVAILABLE);
            };
            let settings = admission.shared.settings;
            let due = Instant::now() + settings.deadline;
            if let Err(reason) = admit(&admission, settings.queue, due).await {
                return pending.unserved(reason);
            }
            let id = pending.id().clone();
            let slot = Slot::new(admission);
            let mut watch = Watch {
                task: Some(tokio::spawn(host(pending, slot.clone()))),
                slot,
                due,
            };
            let running = Running::start();
            let ended = watch.wait().await;
            drop(running);
            ended.unwrap_or_else(|reason| unserved_reply(&id, reason))
        }
    }
}

impl RunPending for Pool {
    fn run(&self, pending: Pending) -> BoxFuture<Reply> {
        Box::pin(self.execute(pending))
    }
}

/// A slot for one call (its permit taken and forgotten: [`Slot`] hands it back), or why there
/// is none.
///
/// # Cancel safety
/// Dropped while waiting (its caller gone: an aborted task, an HTTP client that hung up), it
/// has taken no permit and gives its place in the queue back.
async fn admit(admission: &Admission, queue: usize, due: Instant) -> Result<(), Unserved> {
    let shared = &admission.shared;
    match admission.slots.try_acquire() {
        Ok(permit) => {
            permit.forget();
            return Ok(());
        }
        Err(TryAcquireError::Closed) => return Err(SHUTTING_DOWN),
        Err(TryAcquireError::NoPermits) => {}
    }
    if admission.waiting.fetch_add(1, Ordering::AcqRel) >= queue {
        admission.waiting.fetch_sub(1, Ordering::AcqRel);
        shared.counters.overloaded.fetch_add(1, Ordering::Relaxed);
        metrics::pool_event(PoolEvent::Overloaded);
        return Err(OVERLOADED);
    }
    let place = Queued::enter(&admission.waiting);
    let got = tokio::time::timeout_at(due, admission.slots.acquire()).await;
    drop(place);
    match got {
        Ok(Ok(permit)) => {
            permit.forget();
            Ok(())
        }
        Ok(Err(_closed)) => Err(SHUTTING_DOWN),
        // A call that waited its whole deadline for a slot is refused without running.
        Err(_elapsed) => {
            shared.counters.deadlines.fetch_add(1, Ordering::Relaxed);
            metrics::pool_event(PoolEvent::Deadline);
            Err(DEADLINE)
        }
    }
}

/// A place in the queue (already counted in `waiting`), given back however the wait ends, its
/// future dropped included.
struct Queued<'a>(&'a AtomicUsize);

impl<'a> Queued<'a> {
    fn enter(waiting: &'a AtomicUsize) -> Queued<'a> {
        metrics::pool_queued(1.0);
        Queued(waiting)
    }
}

impl Drop for Queued<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
        metrics::pool_queued(-1.0);
    }
}

/// A call running in the pool, counted in `mcp_pool_running` until its caller stops waiting
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

/// A call's slot, settled once: by the call's task when its host work ends (released, or
/// retired after a panic), or by its deadline (retired, the work perhaps still running on a
/// blocked thread). Whoever settles it first acts; the other finds it settled. A blocked host
/// that returns after its deadline thus hands nothing back: its slot was already replaced.
#[derive(Clone)]
struct Slot(Arc<SlotState>);

struct SlotState {
    settled: AtomicBool,
    admission: Arc<Admission>,
}

impl Slot {
    /// The slot of a permit [`admit`] took.
    fn new(admission: Arc<Admission>) -> Slot {
        Slot(Arc::new(SlotState {
            settled: AtomicBool::new(false),
            admission,
        }))
    }

    fn admission(&self) -> &Admission {
        &self.0.admission
    }

    /// Whether this caller is the one that settles the slot (the first to ask).
    fn settle(&self) -> bool {
        !self.0.settled.swap(true, Ordering::AcqRel)
    }

    fn release(&self) {
        if self.settle() {
            self.admission().slots.add_permits(1);
        }
    }

    fn retire(&self, fault: SlotFault) {
        if self.settle() {
            self.admission().replace(fault);
        }
    }
}

impl Drop for SlotState {
    /// A slot nobody settled (its task torn down with the runtime) goes back, as a dropped
    /// permit would.
    fn drop(&mut self) {
        if !*self.settled.get_mut() {
            self.admission.slots.add_permits(1);
        }
    }
}

impl Admission {
    /// A fresh slot in place of a retired one, at once. A closed admission (its actor gone) is
    /// not refilled: the next one starts with a full set of slots.
    fn replace(&self, fault: SlotFault) {
        if self.slots.is_closed() {
            return;
        }
        tracing::warn!(%fault, "replacing a dispatch worker");
        self.shared.counters.starts.fetch_add(1, Ordering::Relaxed);
        metrics::pool_event(PoolEvent::WorkerRestart);
        self.slots.add_permits(1);
    }
}

/// The host work of one call, on a task of its own. Counters move before the reply, so a
/// caller that got its answer sees them.
async fn host(pending: Pending, slot: Slot) -> Reply {
    let (answer, outcome) = pending.run_observed().await;
    let counters = &slot.admission().shared.counters;
    match outcome {
        HostOutcome::Returned => {
            counters.completed.fetch_add(1, Ordering::Relaxed);
            slot.release();
        }
        HostOutcome::Panicked => {
            counters.panics.fetch_add(1, Ordering::Relaxed);
            metrics::pool_event(PoolEvent::Panic);
            slot.retire(SlotFault::HostPanicked);
        }
    }
    answer
}

/// The deadline over a running call, kept by its caller, or by a task of its own once the
/// caller has gone.
struct Watch {
    task: Option<JoinHandle<Reply>>,
    slot: Slot,
    due: Instant,
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
                if let Some(task) = task {
                    overdue(task, &self.slot);
                }
                Err(DEADLINE)
            }
        }
    }
}

/// A call past its deadline: aborted, counted, its slot replaced (unless the work settled it
/// in the same instant).
fn overdue(task: JoinHandle<Reply>, slot: &Slot) {
    task.abort();
    let shared = &slot.admission().shared;
    shared.counters.deadlines.fetch_add(1, Ordering::Relaxed);
    metrics::pool_event(PoolEvent::Deadline);
    slot.retire(SlotFault::DeadlineExceeded(shared.settings.deadline));
}

impl Drop for Watch {
    fn drop(&mut self) {
        let Some(task) = self.task.take() else {
            return;
        };
        if task.is_finished() {
            return;
        }
        // The caller went away: the deadline still holds for the work it left running.
        let (due, slot) = (self.due, self.slot.clone());
        if let Ok(rt) = tokio::runtime::Handle::try_current() {
            rt.spawn(async move {
                let mut task = task;
                if tokio::time::timeout_at(due, &mut task).await.is_err() {
                    overdue(task, &slot);
                }
            });
        }
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
        self.admission.slots.close();
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
            slots: Semaphore::new(workers),
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
