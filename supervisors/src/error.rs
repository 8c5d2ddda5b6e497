//! The errors of supervision: starting children, calling a supervisor, giving up.

use std::error::Error;
use std::fmt;
use std::time::Duration;

use ractor::SpawnErr;

use crate::intensity::Intensity;

/// A child could not be started.
#[derive(Debug)]
#[non_exhaustive]
pub enum StartError {
    /// The supervisor already has a child with this id.
    DuplicateId {
        /// The id asked for.
        id: String,
    },
    /// The start function returned an error (for example the child's `pre_start` failed).
    Spawn {
        /// The child's id.
        id: String,
        /// What ractor reported.
        source: SpawnErr,
    },
    /// The start function panicked before returning.
    Panicked {
        /// The child's id.
        id: String,
        /// The panic payload, when it was a string.
        message: String,
    },
    /// The start function returned an actor that is not linked to this supervisor;
    /// the actor has been stopped.
    NotLinked {
        /// The child's id.
        id: String,
    },
}

impl StartError {
    /// The id of the child that could not be started.
    #[must_use]
    pub fn child_id(&self) -> &str {
        match self {
            StartError::DuplicateId { id }
            | StartError::Spawn { id, .. }
            | StartError::Panicked { id, .. }
            | StartError::NotLinked { id } => id,
        }
    }
}

impl fmt::Display for StartError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StartError::DuplicateId { id } => write!(f, "a child with id '{id}' already exists"),
            StartError::Spawn { id, .. } => write!(f, "child '{id}' failed to start"),
            StartError::Panicked { id, message } => {
                write!(f, "start function of child '{id}' panicked: {message}")
            }
            StartError::NotLinked { id } => write!(
                f,
                "start function of child '{id}' returned an actor not linked to the supervisor"
            ),
        }
    }
}

impl Error for StartError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        match self {
            StartError::Spawn { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// The request a [`CallError`] is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Request {
    /// `which_children`.
    WhichChildren,
    /// `start_child`.
    StartChild,
    /// `terminate_child`.
    TerminateChild,
    /// `stats`.
    Stats,
    /// `restart_count`.
    RestartCount,
}

impl fmt::Display for Request {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Request::WhichChildren => "which_children",
            Request::StartChild => "start_child",
            Request::TerminateChild => "terminate_child",
            Request::Stats => "stats",
            Request::RestartCount => "restart_count",
        })
    }
}

/// A request to a supervisor got no answer.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum CallError {
    /// The supervisor did not answer in time; it may still act on the request.
    Timeout {
        /// The request.
        request: Request,
        /// The time waited.
        after: Duration,
    },
    /// The supervisor is not running: the request was not delivered.
    Unavailable {
        /// The request.
        request: Request,
    },
    /// The supervisor took the request but exited before answering.
    Dropped {
        /// The request.
        request: Request,
    },
}

impl CallError {
    /// The request that failed.
    #[must_use]
    pub fn request(&self) -> Request {
        match self {
            CallError::Timeout { request, .. }
            | CallError::Unavailable { request }
            | CallError::Dropped { request } => *request,
        }
    }

    /// Whether the call timed out.
    #[must_use]
    pub fn is_timeout(&self) -> bool {
        matches!(self, CallError::Timeout { .. })
    }
}

impl fmt::Display for CallError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CallError::Timeout { request, after } => write!(
                f,
                "supervisor did not answer {request} within {} ms",
                after.as_millis()
            ),
            CallError::Unavailable { request } => {
                write!(f, "supervisor is not running; {request} not delivered")
            }
            CallError::Dropped { request } => {
                write!(f, "supervisor exited before answering {request}")
            }
        }
    }
}

impl Error for CallError {}

/// `start_child` failed.
#[derive(Debug)]
pub enum StartChildError {
    /// The supervisor could not be asked.
    Call(CallError),
    /// The supervisor refused or failed to start the child.
    Start(StartError),
}

impl fmt::Display for StartChildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StartChildError::Call(_) => {
                f.write_str("could not ask the supervisor to start a child")
            }
            StartChildError::Start(_) => f.write_str("the supervisor could not start the child"),
        }
    }
}

impl Error for StartChildError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        match self {
            StartChildError::Call(e) => Some(e),
            StartChildError::Start(e) => Some(e),
        }
    }
}

/// `terminate_child` failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TerminateChildError {
    /// The supervisor could not be asked.
    Call(CallError),
    /// The supervisor has no child with this id.
    NotFound {
        /// The id asked for.
        id: String,
    },
}

impl fmt::Display for TerminateChildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TerminateChildError::Call(_) => {
                f.write_str("could not ask the supervisor to terminate a child")
            }
            TerminateChildError::NotFound { id } => write!(f, "no child with id '{id}'"),
        }
    }
}

impl Error for TerminateChildError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        match self {
            TerminateChildError::Call(e) => Some(e),
            TerminateChildError::NotFound { .. } => None,
        }
    }
}

/// `stop_gracefully` failed.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum StopError {
    /// The supervisor had not exited after this long; it is still shutting down.
    Timeout {
        /// The time waited.
        after: Duration,
    },
    /// The supervisor was not running.
    NotRunning,
}

impl fmt::Display for StopError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StopError::Timeout { after } => write!(
                f,
                "supervisor still shutting down after {} ms",
                after.as_millis()
            ),
            StopError::NotRunning => f.write_str("supervisor is not running"),
        }
    }
}

impl Error for StopError {}

/// Why a supervisor failed: it needed more restarts than its [`Intensity`] allows.
///
/// This is the error its parent sees in `SupervisionEvent::ActorFailed`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Meltdown {
    /// The budget that was exceeded.
    pub intensity: Intensity,
    /// The child whose exit needed the restart that was refused.
    pub child: String,
    /// That child's exit reason.
    pub reason: String,
}

impl fmt::Display for Meltdown {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "supervisor meltdown: more than {} restarts within {} ms (last: child '{}' exited: {})",
            self.intensity.max_restarts,
            self.intensity.period.as_millis(),
            self.child,
            self.reason
        )
    }
}

impl Error for Meltdown {}
