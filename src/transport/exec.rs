//! Who runs a connection's host work: the connection's own task, or the runtime's pool.

use crate::server::{Pending, Reply};
use crate::BoxFuture;

/// Who does the host work of a connection: the connection's own tasks ([`Direct`]) or the
/// runtime's dispatch pool.
pub(crate) trait RunPending: Send + Sync + 'static {
    /// Runs `pending` and yields its reply; never fails to answer.
    fn run(&self, pending: Pending) -> BoxFuture<Reply>;
}

/// Runs host work on the connection's own task.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Direct;

impl RunPending for Direct {
    fn run(&self, pending: Pending) -> BoxFuture<Reply> {
        Box::pin(pending.run())
    }
}
