//! What the pool counts: the counters its calls move, and the snapshot a host reads.

use std::sync::atomic::AtomicU64;

/// The pool's counters, shared across pool restarts.
#[derive(Debug, Default)]
pub(crate) struct Counters {
    pub(super) starts: AtomicU64,
    pub(super) completed: AtomicU64,
    pub(super) panics: AtomicU64,
    pub(super) deadlines: AtomicU64,
    pub(super) overloaded: AtomicU64,
    pub(super) cancelled: AtomicU64,
}

/// A snapshot of the dispatch pool's counters.
///
/// `#[non_exhaustive]`: read its fields; [`crate::runtime::ApplicationRef::pool_stats`] makes one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct PoolStats {
    /// Workers configured: the most host calls that ever run at once.
    pub workers: usize,
    /// Worker starts beyond the first `workers`: after a panic, the pool's deadline or a pool
    /// restart (a caller's own shorter bound ending a call is counted in `deadlines` only).
    /// A worker lost to a deadline whose host blocks its thread is counted when it is lost;
    /// its slot comes back only when the host returns (see `overrunning`).
    pub worker_restarts: u64,
    /// Jobs answered by the host (including tool errors). A host that returns in the instant
    /// its deadline passes or its caller leaves is counted here and there too.
    pub completed: u64,
    /// Jobs whose host code panicked.
    pub panics: u64,
    /// Jobs answered `"deadline"`: past their deadline (the pool's, or their caller's port
    /// timeout when sooner) while running, or while still waiting for a slot.
    pub deadlines: u64,
    /// Jobs refused because the queue was full.
    pub overloaded: u64,
    /// Jobs whose caller went away (or cancelled them) before they were answered; their host
    /// work was dropped.
    pub cancelled: u64,
    /// Host calls still holding a worker now although their caller stopped waiting (the
    /// deadline passed, or the caller went away): a host blocking its thread. They count
    /// against `workers` until they return.
    pub overrunning: usize,
    /// Calls waiting for a slot now; at most the configured `queue`.
    pub queued: usize,
}
