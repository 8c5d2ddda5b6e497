//! Child specifications: what a supervisor starts, when it restarts it, and how it stops it.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use ractor::{ActorCell, SpawnErr};

use crate::shutdown::Shutdown;

/// The future a [`ChildSpec`]'s start function returns.
pub type StartFuture = Pin<Box<dyn Future<Output = Result<ActorCell, SpawnErr>> + Send>>;

type StartFn = dyn Fn(ActorCell) -> StartFuture + Send + Sync;

/// When a child that has exited is started again.
///
/// An exit is *normal* when [`is_normal_exit`] says so; every other exit
/// (a panic, a handler error, a kill, a stop with any other reason) is abnormal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Restart {
    /// Always restarted, whatever the exit.
    Permanent,
    /// Restarted only after an abnormal exit.
    Transient,
    /// Never restarted; forgotten by the supervisor once it exits.
    Temporary,
}

impl Restart {
    /// Whether a child with this policy is restarted after an exit whose
    /// normality is `normal`.
    #[must_use]
    pub fn restarts_after(self, normal: bool) -> bool {
        match self {
            Restart::Permanent => true,
            Restart::Transient => !normal,
            Restart::Temporary => false,
        }
    }
}

impl fmt::Display for Restart {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Restart::Permanent => "permanent",
            Restart::Transient => "transient",
            Restart::Temporary => "temporary",
        })
    }
}

/// Whether a ractor stop reason counts as a normal exit.
///
/// Normal: no reason (`ActorRef::stop(None)`), `"normal"`, `"shutdown"`, any reason
/// starting with `"shutdown:"`, and ractor's own `"Drained"` (a drained mailbox).
/// Everything else, including ractor's `"killed"`, is abnormal.
#[must_use]
pub fn is_normal_exit(reason: Option<&str>) -> bool {
    match reason {
        None => true,
        Some(r) => r == "normal" || r == "shutdown" || r.starts_with("shutdown:") || r == "Drained",
    }
}

/// How a supervisor starts, restarts and stops one child.
///
/// The start function is handed the supervisor's [`ActorCell`] and must spawn the
/// child *linked* to it (for example with [`ractor::Actor::spawn_linked`]), returning the
/// child's cell. It is called again on every restart, so it must be repeatable.
/// It runs while the supervisor handles a message: it must not call the supervisor.
///
/// Cloning a spec is cheap (the start function is shared).
#[derive(Clone)]
pub struct ChildSpec {
    pub(crate) id: String,
    pub(crate) start: Arc<StartFn>,
    pub(crate) restart: Restart,
    pub(crate) shutdown: Shutdown,
}

impl ChildSpec {
    /// A permanent child with the given id and start function, stopped with
    /// [`Shutdown::default`] (a five-second timeout, then a kill).
    ///
    /// # Examples
    ///
    /// ```
    /// use beam_mcp_supervisors::{ChildSpec, Restart, Shutdown};
    /// use ractor::{Actor, ActorProcessingErr, ActorRef};
    /// use std::time::Duration;
    ///
    /// struct Idle;
    /// impl Actor for Idle {
    ///     type Msg = ();
    ///     type State = ();
    ///     type Arguments = ();
    ///     async fn pre_start(&self, _: ActorRef<()>, _: ()) -> Result<(), ActorProcessingErr> {
    ///         Ok(())
    ///     }
    /// }
    ///
    /// let spec = ChildSpec::new("idle", |sup| async move {
    ///     let (child, _) = Actor::spawn_linked(None, Idle, (), sup).await?;
    ///     Ok(child.get_cell())
    /// })
    /// .restart(Restart::Transient)
    /// .shutdown(Shutdown::Timeout(Duration::from_millis(200)));
    /// assert_eq!(spec.id(), "idle");
    /// assert_eq!(spec.restart_policy(), Restart::Transient);
    /// ```
    pub fn new<F, Fut>(id: impl Into<String>, start: F) -> Self
    where
        F: Fn(ActorCell) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ActorCell, SpawnErr>> + Send + 'static,
    {
        let start: Arc<StartFn> = Arc::new(move |sup| Box::pin(start(sup)) as StartFuture);
        ChildSpec {
            id: id.into(),
            start,
            restart: Restart::Permanent,
            shutdown: Shutdown::default(),
        }
    }

    /// Sets the restart policy.
    #[must_use]
    pub fn restart(mut self, restart: Restart) -> Self {
        self.restart = restart;
        self
    }

    /// Sets how the child is stopped.
    #[must_use]
    pub fn shutdown(mut self, shutdown: Shutdown) -> Self {
        self.shutdown = shutdown;
        self
    }

    /// The child's id, unique among its supervisor's children.
    #[must_use]
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The restart policy.
    #[must_use]
    pub fn restart_policy(&self) -> Restart {
        self.restart
    }

    /// How the child is stopped.
    #[must_use]
    pub fn shutdown_policy(&self) -> Shutdown {
        self.shutdown
    }
}

impl fmt::Debug for ChildSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ChildSpec")
            .field("id", &self.id)
            .field("restart", &self.restart)
            .field("shutdown", &self.shutdown)
            .finish_non_exhaustive()
    }
}

/// One child as reported by `which_children`.
#[derive(Debug, Clone)]
pub struct ChildInfo {
    /// The child's id.
    pub id: String,
    /// The running actor, or `None` for a transient child that exited normally
    /// and was kept, not restarted.
    pub cell: Option<ActorCell>,
    /// The child's restart policy.
    pub restart: Restart,
    /// How many times this child has been restarted by this supervisor instance.
    pub restarts: u32,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normal_exits() {
        assert!(is_normal_exit(None));
        assert!(is_normal_exit(Some("normal")));
        assert!(is_normal_exit(Some("shutdown")));
        assert!(is_normal_exit(Some("shutdown: host asked")));
        assert!(is_normal_exit(Some("Drained")));
        assert!(!is_normal_exit(Some("boom")));
        assert!(!is_normal_exit(Some("killed")));
        assert!(!is_normal_exit(Some("shutdowns")));
    }

    #[test]
    fn policies() {
        assert!(Restart::Permanent.restarts_after(true));
        assert!(Restart::Permanent.restarts_after(false));
        assert!(!Restart::Transient.restarts_after(true));
        assert!(Restart::Transient.restarts_after(false));
        assert!(!Restart::Temporary.restarts_after(true));
        assert!(!Restart::Temporary.restarts_after(false));
    }
}
