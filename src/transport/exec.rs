//! Who runs a connection's host work: the connection's own task, or the runtime's pool.

use crate::server::{Pending, Reply};
use crate::BoxFuture;

/// Where the reply of a piece of host work goes, from wherever the work ends.
pub(crate) type Done = Box<dyn FnOnce(Reply) + Send>;

/// Who does the host work of a connection: the connection's own tasks ([`Direct`]) or the
/// runtime's dispatch pool.
pub(crate) trait RunPending: Send + Sync + 'static {
    /// Runs `pending` and yields its reply; never fails to answer.
    fn run(&self, pending: Pending) -> BoxFuture<Reply>;

    /// Starts `pending`, its reply handed to `done` exactly once. Returns the work for the
    /// caller to drive on a task of its own, or `None` when it was handed off (the pool
    /// answers `done` from its worker: no task of the caller's waits in between).
    fn start(&self, pending: Pending, done: Done) -> Option<BoxFuture<()>> {
        let run = self.run(pending);
        Some(Box::pin(async move { done(run.await) }))
    }
}

/// Runs host work on the connection's own task.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Direct;

impl RunPending for Direct {
    fn run(&self, pending: Pending) -> BoxFuture<Reply> {
        Box::pin(pending.run())
    }
}
