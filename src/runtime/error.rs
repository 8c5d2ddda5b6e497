//! Why a runtime operation failed.

use beam_mcp_supervisors::{CallError, StartChildError, StopError, TerminateChildError};
use ractor::SpawnErr;
use std::fmt;

/// A runtime operation that failed, with what it was doing.
#[derive(Debug)]
#[non_exhaustive]
pub enum RuntimeError {
    /// A configuration value is out of range.
    InvalidOption {
        /// The option.
        option: &'static str,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// The Root supervisor (or one of its children) could not be started.
    Start(SpawnErr),
    /// A supervisor of the tree did not answer.
    Supervisor(CallError),
    /// No transport has this id.
    UnknownTransport {
        /// The id asked for.
        id: String,
    },
    /// A transport could not be stopped.
    StopTransport {
        /// The transport's id.
        id: String,
        /// Why.
        source: TerminateChildError,
    },
    /// A transport could not be started again.
    StartTransport {
        /// The transport's id.
        id: String,
        /// Why.
        source: StartChildError,
    },
    /// The Root supervisor did not stop in time, or had already stopped.
    Stop(StopError),
    /// An export was asked of a runtime started without [`crate::runtime::RuntimeConfig::reporter`],
    /// or while the reporter restarts.
    #[cfg(feature = "connectome")]
    NoReporter,
    /// The reporter did not answer in time, or stopped while answering.
    #[cfg(feature = "connectome")]
    ReporterUnavailable,
    /// The export could not be written as canonical bytes.
    #[cfg(feature = "connectome")]
    Export(crate::connectome::canonical::CanonicalError),
    /// A federated export was asked for a kind that has no federated form (only `observed`
    /// and `effective` do).
    #[cfg(all(feature = "cluster", feature = "connectome"))]
    NotFederated {
        /// The kind asked for.
        kind: &'static str,
    },
}

impl fmt::Display for RuntimeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RuntimeError::InvalidOption { option, reason } => {
                write!(f, "runtime option {option} {reason}")
            }
            RuntimeError::Start(e) => write!(f, "the runtime could not start: {e}"),
            RuntimeError::Supervisor(e) => write!(f, "a runtime supervisor did not answer: {e}"),
            RuntimeError::UnknownTransport { id } => write!(f, "no transport has the id {id:?}"),
            RuntimeError::StopTransport { id, source } => {
                write!(f, "transport {id:?} could not be stopped: {source}")
            }
            RuntimeError::StartTransport { id, source } => {
                write!(f, "transport {id:?} could not be started: {source}")
            }
            RuntimeError::Stop(e) => write!(f, "the runtime did not stop cleanly: {e}"),
            #[cfg(feature = "connectome")]
            RuntimeError::NoReporter => f.write_str("the runtime has no reporter running"),
            #[cfg(feature = "connectome")]
            RuntimeError::ReporterUnavailable => f.write_str("the reporter did not answer"),
            #[cfg(feature = "connectome")]
            RuntimeError::Export(e) => write!(f, "the export could not be written: {e}"),
            #[cfg(all(feature = "cluster", feature = "connectome"))]
            RuntimeError::NotFederated { kind } => {
                write!(
                    f,
                    "the {kind} export has no federated form (observed, effective do)"
                )
            }
        }
    }
}

impl std::error::Error for RuntimeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            RuntimeError::InvalidOption { .. } | RuntimeError::UnknownTransport { .. } => None,
            #[cfg(feature = "connectome")]
            RuntimeError::NoReporter | RuntimeError::ReporterUnavailable => None,
            #[cfg(feature = "connectome")]
            RuntimeError::Export(e) => Some(e),
            #[cfg(all(feature = "cluster", feature = "connectome"))]
            RuntimeError::NotFederated { .. } => None,
            RuntimeError::Start(e) => Some(e),
            RuntimeError::Supervisor(e) => Some(e),
            RuntimeError::StopTransport { source, .. } => Some(source),
            RuntimeError::StartTransport { source, .. } => Some(source),
            RuntimeError::Stop(e) => Some(e),
        }
    }
}
