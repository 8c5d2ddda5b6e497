//! How one child is stopped: graceful stop within a timeout, then a kill.

use std::fmt;
use std::time::Duration;

use ractor::{ActorCell, RactorErr};

/// How long a kill is waited for before the supervisor gives up on the child.
///
/// A kill aborts the child's async work at its next await point; only a child
/// blocking its thread synchronously can outlast it.
pub const KILL_WAIT: Duration = Duration::from_secs(5);

/// The stop reason a supervisor gives the children it stops.
pub const SHUTDOWN_REASON: &str = "shutdown";

/// How a supervisor stops a child (OTP's `shutdown` field).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Shutdown {
    /// Killed at once: `post_stop` does not run.
    BrutalKill,
    /// Asked to stop (its `post_stop` runs); killed if it has not exited after this long.
    Timeout(Duration),
    /// Asked to stop and waited for without limit; the usual choice for a child
    /// that is itself a supervisor.
    Infinity,
}

impl Default for Shutdown {
    /// A five-second timeout.
    fn default() -> Self {
        Shutdown::Timeout(Duration::from_secs(5))
    }
}

impl fmt::Display for Shutdown {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Shutdown::BrutalKill => f.write_str("brutal_kill"),
            Shutdown::Timeout(d) => write!(f, "{} ms", d.as_millis()),
            Shutdown::Infinity => f.write_str("infinity"),
        }
    }
}

/// What happened when a child was stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stopped {
    /// It exited after being asked (or was already gone).
    Gracefully,
    /// It was killed, by policy or after its timeout.
    Killed,
    /// Even the kill was not observed within [`KILL_WAIT`].
    Unresponsive,
}

/// Stops `cell` according to `policy` and waits for it to exit.
pub(crate) async fn stop_child(cell: &ActorCell, policy: Shutdown) -> Stopped {
    let graceful = match policy {
        Shutdown::BrutalKill => false,
        Shutdown::Timeout(limit) => !matches!(
            cell.stop_and_wait(Some(SHUTDOWN_REASON.to_owned()), Some(limit))
                .await,
            Err(RactorErr::Timeout)
        ),
        Shutdown::Infinity => {
            // A closed channel means the child is already gone: nothing to wait for.
            let _ = cell
                .stop_and_wait(Some(SHUTDOWN_REASON.to_owned()), None)
                .await;
            true
        }
    };
    if graceful {
        return Stopped::Gracefully;
    }
    match cell.kill_and_wait(Some(KILL_WAIT)).await {
        Err(RactorErr::Timeout) => {
            tracing::warn!(actor = %cell.get_id(), "child did not exit after kill");
            Stopped::Unresponsive
        }
        _ => Stopped::Killed,
    }
}
