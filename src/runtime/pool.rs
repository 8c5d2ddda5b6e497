//! The dispatch pool: a `ractor` factory of workers that run host work under a deadline.
//!
//! - The queue in front of the workers is bounded: a job arriving when it is full is
//!   answered at once with -32603 and `data.reason = "overloaded"` (the factory discards the
//!   newest job and its discard handler answers it). -32603 because the request was valid
//!   and the server could not serve it; the reason tells a client to back off and retry.
//! - A host panic is answered as a tool error by the core; the worker then fails on purpose
//!   so the factory replaces it with a fresh one.
//! - Host work runs in its own task, so a deadline fires even when the host blocks its
//!   thread; the caller gets -32603 with `data.reason = "deadline"`, the task is aborted
//!   (at its next await) and the worker replaced.
//! - A job dropped for any other reason (the pool stopping, a worker killed mid-job) is
//!   answered from its `Drop`: a caller is never left waiting.

use super::message::{answer, DispatchResult};
use crate::metrics::{self, PoolEvent};
use crate::outcome::RefusalReason;
use crate::server::{refusal, HostOutcome, Pending, Reply};
use crate::transport::{Done, RunPending};
use crate::BoxFuture;
use ractor::factory::queues::DefaultQueue;
use ractor::factory::routing::QueuerRouting;
use ractor::factory::{
    worker_builder, DiscardHandler, DiscardMode, DiscardReason, DiscardSettings, Factory,
    FactoryArguments, FactoryMessage, FactoryRef, Job, Worker, WorkerId,
};
use ractor::{Actor, ActorCell, ActorProcessingErr, ActorRef, RpcReplyPort, SpawnErr};
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};
use std::time::Duration;
use tokio::sync::oneshot;

const OVERLOADED: RefusalReason = RefusalReason::Overloaded;
const DEADLINE: RefusalReason = RefusalReason::Deadline;
pub(crate) const UNAVAILABLE: RefusalReason = RefusalReason::Unavailable;
const SHUTTING_DOWN: RefusalReason = RefusalReason::ShuttingDown;

type PoolFactory =
    Factory<(), PoolJob, (), DispatchWorker, QueuerRouting<(), PoolJob>, DefaultQueue<(), PoolJob>>;

/// Where a job's reply goes.
pub(crate) enum ReplyTo {
    /// A transport awaiting the encoded reply.
    Wire(oneshot::Sender<Reply>),
    /// A host actor awaiting a plain-data answer.
    Host(RpcReplyPort<DispatchResult>),
    /// A transport that takes the reply where the job ends (the stdio writer's channel).
    Done(Done),
}

impl ReplyTo {
    pub(crate) fn send(self, reply: Reply) {
        // A caller that went away no longer needs its answer.
        match self {
            ReplyTo::Wire(tx) => {
                let _ = tx.send(reply);
            }
            ReplyTo::Host(port) => {
                let _ = port.send(answer(reply));
            }
            ReplyTo::Done(done) => done(reply),
        }
    }
}

/// One piece of host work and where its reply goes. Answered exactly once: by a worker,
/// by the discard handler, or by `Drop`.
pub(crate) struct PoolJob {
    work: Option<(Pending, ReplyTo)>,
    /// When the job was queued: the deadline counts the wait in the queue too.
    queued: tokio::time::Instant,
}

impl PoolJob {
    /// The work, out of the queue (the one place a job leaves it).
    fn take(&mut self) -> Option<(Pending, ReplyTo)> {
        let work = self.work.take();
        if work.is_some() {
            metrics::pool_queued(-1.0);
        }
        work
    }

    fn refuse(&mut self, reason: RefusalReason) {
        if let Some((pending, reply)) = self.take() {
            reply.send(pending.refuse(reason));
        }
    }
}

impl Drop for PoolJob {
    fn drop(&mut self) {
        self.refuse(UNAVAILABLE);
    }
}

impl fmt::Debug for PoolJob {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PoolJob")
            .field("pending", &self.work.as_ref().map(|(p, _)| p))
            .finish()
    }
}

/// The pool's counters, shared by its workers across restarts.
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

/// The caller's side of the pool: finds the current factory (it changes when the pool
/// restarts) without a message round trip.
#[derive(Clone)]
pub(crate) struct Pool {
    slot: Arc<RwLock<Option<FactoryRef<(), PoolJob>>>>,
    counters: Arc<Counters>,
    settings: PoolSettings,
}

impl fmt::Debug for Pool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Pool")
            .field("settings", &self.settings)
            .field("counters", &self.counters)
            .finish_non_exhaustive()
    }
}

impl Pool {
    pub(crate) fn new(settings: PoolSettings) -> Self {
        Pool {
            slot: Arc::new(RwLock::new(None)),
            counters: Arc::new(Counters::default()),
            settings,
        }
    }

    fn current(&self) -> Option<FactoryRef<(), PoolJob>> {
        self.slot.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Hands `pending` to a worker; the reply goes to `reply`, whatever happens.
    pub(crate) fn submit(&self, pending: Pending, reply: ReplyTo) {
        metrics::pool_queued(1.0);
        let job = PoolJob {
            work: Some((pending, reply)),
            queued: tokio::time::Instant::now(),
        };
        match self.current() {
            // On a send failure the job comes back inside the error and is answered as it drops.
            Some(factory) => drop(factory.dispatch((), job)),
            None => drop(job),
        }
    }

    pub(crate) fn stats(&self) -> PoolStats {
        let c = &self.counters;
        let starts = c.starts.load(Ordering::Relaxed);
        PoolStats {
            workers: self.settings.workers,
            worker_restarts: starts.saturating_sub(self.settings.workers as u64),
            completed: c.completed.load(Ordering::Relaxed),
            panics: c.panics.load(Ordering::Relaxed),
            deadlines: c.deadlines.load(Ordering::Relaxed),
            overloaded: c.overloaded.load(Ordering::Relaxed),
        }
    }

    /// Spawns the factory linked to `supervisor` and publishes it.
    pub(crate) async fn spawn(&self, supervisor: ActorCell) -> Result<ActorCell, SpawnErr> {
        let counters = self.counters.clone();
        let deadline = self.settings.deadline;
        let args = FactoryArguments::builder()
            .worker_builder(Box::new(worker_builder(move |_wid| {
                let worker = DispatchWorker {
                    counters: counters.clone(),
                    deadline,
                };
                (worker, ())
            })))
            .queue(DefaultQueue::default())
            .router(QueuerRouting::default())
            .num_initial_workers(self.settings.workers.max(1))
            .discard_settings(DiscardSettings::Static {
                limit: self.settings.queue,
                mode: DiscardMode::Newest,
            })
            .discard_handler(Arc::new(Refuser {
                counters: self.counters.clone(),
            }))
            .build();
        let (factory, _) =
            Actor::spawn_linked(None, PoolFactory::default(), args, supervisor).await?;
        *self.slot.write().unwrap_or_else(|e| e.into_inner()) = Some(factory.clone());
        Ok(factory.get_cell())
    }

    /// The factory's cell, while it runs.
    pub(crate) fn cell(&self) -> Option<ActorCell> {
        self.current().map(|f| f.get_cell())
    }
}

impl RunPending for Pool {
    fn run(&self, pending: Pending) -> BoxFuture<Reply> {
        let (tx, rx) = oneshot::channel();
        let id = pending.id().clone();
        self.submit(pending, ReplyTo::Wire(tx));
        Box::pin(async move {
            // Every job is answered before its sender drops; this is belt and braces.
            rx.await.unwrap_or_else(|_| refusal(&id, UNAVAILABLE))
        })
    }

    fn start(&self, pending: Pending, done: Done) -> Option<BoxFuture<()>> {
        self.submit(pending, ReplyTo::Done(done));
        None
    }
}

/// Answers the jobs the factory sheds.
struct Refuser {
    counters: Arc<Counters>,
}

impl DiscardHandler<(), PoolJob> for Refuser {
    fn discard(&self, reason: DiscardReason, job: &mut Job<(), PoolJob>) {
        let reason = match reason {
            DiscardReason::Loadshed | DiscardReason::RateLimited => {
                self.counters.overloaded.fetch_add(1, Ordering::Relaxed);
                metrics::pool_event(PoolEvent::Overloaded);
                OVERLOADED
            }
            DiscardReason::TtlExpired => DEADLINE,
            DiscardReason::Shutdown => SHUTTING_DOWN,
        };
        job.msg.refuse(reason);
    }
}

/// One worker: runs a job's host work in its own task under the deadline.
struct DispatchWorker {
    counters: Arc<Counters>,
    deadline: Duration,
}

/// Why a worker stopped itself so the factory replaces it.
/// A host task that does not outlive the worker running it.
struct AbortOnDrop<T>(tokio::task::JoinHandle<T>);

impl<T> Drop for AbortOnDrop<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}

#[derive(Debug)]
enum WorkerFault {
    HostPanicked,
    DeadlineExceeded(Duration),
    TaskLost,
}

impl fmt::Display for WorkerFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WorkerFault::HostPanicked => f.write_str("host code panicked"),
            WorkerFault::DeadlineExceeded(d) => {
                write!(f, "host work exceeded its {} ms deadline", d.as_millis())
            }
            WorkerFault::TaskLost => f.write_str("host task ended without a reply"),
        }
    }
}

impl std::error::Error for WorkerFault {}

impl Worker for DispatchWorker {
    type Key = ();
    type Message = PoolJob;
    type State = ();
    type Arguments = ();

    async fn pre_start(
        &self,
        _wid: WorkerId,
        _factory: &ActorRef<FactoryMessage<(), PoolJob>>,
        _args: (),
    ) -> Result<(), ActorProcessingErr> {
        self.counters.starts.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    async fn handle(
        &self,
        _wid: WorkerId,
        _factory: &ActorRef<FactoryMessage<(), PoolJob>>,
        mut job: Job<(), PoolJob>,
        _state: &mut (),
    ) -> Result<(), ActorProcessingErr> {
        let Some((pending, reply)) = job.msg.take() else {
            return Ok(());
        };
        let id = pending.id().clone();
        // One deadline from the moment the call was queued: a call that waited its whole
        // deadline in the queue is refused without running.
        let due = job.msg.queued + self.deadline;
        if tokio::time::Instant::now() >= due {
            self.counters.deadlines.fetch_add(1, Ordering::Relaxed);
            metrics::pool_event(PoolEvent::Deadline);
            reply.send(refusal(&id, DEADLINE));
            return Ok(());
        }
        // The dispatch site (recording, span) is inside `run_observed`: one site for every path.
        // The host task is aborted if this worker goes (killed, replaced) before it ends.
        let mut task = AbortOnDrop(tokio::spawn(pending.run_observed()));
        metrics::pool_running(1.0);
        let ended = tokio::time::timeout_at(due, &mut task.0).await;
        metrics::pool_running(-1.0);
        let fault = match ended {
            // Counters move before the reply, so a caller that got its answer sees them.
            Ok(Ok((answer, HostOutcome::Returned))) => {
                self.counters.completed.fetch_add(1, Ordering::Relaxed);
                reply.send(answer);
                return Ok(());
            }
            Ok(Ok((answer, HostOutcome::Panicked))) => {
                self.counters.panics.fetch_add(1, Ordering::Relaxed);
                metrics::pool_event(PoolEvent::Panic);
                reply.send(answer);
                WorkerFault::HostPanicked
            }
            Ok(Err(_)) => {
                reply.send(refusal(&id, UNAVAILABLE));
                WorkerFault::TaskLost
            }
            Err(_) => {
                task.0.abort();
                self.counters.deadlines.fetch_add(1, Ordering::Relaxed);
                metrics::pool_event(PoolEvent::Deadline);
                reply.send(refusal(&id, DEADLINE));
                WorkerFault::DeadlineExceeded(self.deadline)
            }
        };
        tracing::warn!(%fault, "replacing a dispatch worker");
        metrics::pool_event(PoolEvent::WorkerRestart);
        Err(Box::new(fault))
    }
}
