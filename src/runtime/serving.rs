//! An actor's serving task (the stdio connection's, the HTTP listener's accept loop): started
//! with a stop signal, stopped gracefully from the actor's `post_stop`, aborted if the actor
//! goes without stopping (killed) — and with it whatever the task owns.

use std::fmt;
use std::future::Future;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// Resolves when the actor asks its serving task to stop (or when the actor is gone).
pub(crate) type StopSignal = std::pin::Pin<Box<dyn Future<Output = ()> + Send>>;

pub(crate) struct Serving {
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<()>>,
}

impl Serving {
    /// Spawns `serve`, handing it the stop signal.
    pub(crate) fn spawn<F, Fut>(serve: F) -> Serving
    where
        F: FnOnce(StopSignal) -> Fut,
        Fut: Future<Output = ()> + Send + 'static,
    {
        let (stop, stopped) = oneshot::channel::<()>();
        let signal: StopSignal = Box::pin(async move {
            let _ = stopped.await;
        });
        Serving {
            stop: Some(stop),
            task: Some(tokio::spawn(serve(signal))),
        }
    }

    /// The task ended by itself: nothing is left to stop.
    pub(crate) fn ended(&mut self) {
        self.task = None;
    }

    /// Signals the task to stop and waits for it: it answers what it has in flight first. The
    /// supervisor's shutdown timeout bounds the wait (past it the actor is killed, and the
    /// task aborted as the state drops).
    pub(crate) async fn stop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        // Awaited in place, not taken: if the actor is killed mid-wait (this future dropped),
        // the handle is still here for `Drop` to abort.
        if let Some(task) = self.task.as_mut() {
            let _ = task.await;
        }
        self.task = None;
    }
}

impl Drop for Serving {
    fn drop(&mut self) {
        if let Some(task) = self.task.take() {
            task.abort();
        }
    }
}

impl fmt::Debug for Serving {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Serving")
            .field("serving", &self.task.is_some())
            .finish()
    }
}
