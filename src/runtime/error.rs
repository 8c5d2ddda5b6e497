//! Why a runtime operation failed.

use beam_mcp_supervisors::{CallError, StartChildError, StopError, TerminateChildError};
use ractor::SpawnErr;
use std::fmt;

/// A runtime operation that failed, with what it was doing.
#[derive(Debug)]
#[non_exhaustive]
pub enum ApplicationError {
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
    /// A catalog change was refused (the catalog is unchanged). Boxed: a [`crate::ConfigError`]
    /// is large and every other variant is small.
    Change(Box<crate::ConfigError>),
    /// The catalog actor did not take a change: it is restarting, or stopped before it read
    /// the change. Nothing was applied; the change may be sent again.
    CatalogUnavailable,
    /// An export was asked of a runtime started without [`crate::runtime::ApplicationConfig::reporter`],
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

impl fmt::Display for ApplicationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ApplicationError::InvalidOption { option, reason } => {
                write!(f, "runtime option {option} {reason}")
            }
            ApplicationError::Start(e) => write!(f, "the runtime could not start: {e}"),
            ApplicationError::Supervisor(e) => {
                write!(f, "a runtime supervisor did not answer: {e}")
            }
            ApplicationError::UnknownTransport { id } => {
                write!(f, "no transport has the id {id:?}")
            }
            ApplicationError::StopTransport { id, source } => {
                write!(f, "transport {id:?} could not be stopped: {source}")
            }
            ApplicationError::StartTransport { id, source } => {
                write!(f, "transport {id:?} could not be started: {source}")
            }
            ApplicationError::Stop(e) => write!(f, "the runtime did not stop cleanly: {e}"),
            ApplicationError::Change(e) => write!(f, "the catalog change was refused: {e}"),
            ApplicationError::CatalogUnavailable => {
                f.write_str("the catalog actor did not take the change")
            }
            #[cfg(feature = "connectome")]
            ApplicationError::NoReporter => f.write_str("the runtime has no reporter running"),
            #[cfg(feature = "connectome")]
            ApplicationError::ReporterUnavailable => f.write_str("the reporter did not answer"),
            #[cfg(feature = "connectome")]
            ApplicationError::Export(e) => write!(f, "the export could not be written: {e}"),
            #[cfg(all(feature = "cluster", feature = "connectome"))]
            ApplicationError::NotFederated { kind } => {
                write!(
                    f,
                    "the {kind} export has no federated form (observed, effective do)"
                )
            }
        }
    }
}

impl std::error::Error for ApplicationError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ApplicationError::InvalidOption { .. }
            | ApplicationError::UnknownTransport { .. }
            | ApplicationError::CatalogUnavailable => None,
            ApplicationError::Change(e) => Some(&**e),
            #[cfg(feature = "connectome")]
            ApplicationError::NoReporter | ApplicationError::ReporterUnavailable => None,
            #[cfg(feature = "connectome")]
            ApplicationError::Export(e) => Some(e),
            #[cfg(all(feature = "cluster", feature = "connectome"))]
            ApplicationError::NotFederated { .. } => None,
            ApplicationError::Start(e) => Some(e),
            ApplicationError::Supervisor(e) => Some(e),
            ApplicationError::StopTransport { source, .. } => Some(source),
            ApplicationError::StartTransport { source, .. } => Some(source),
            ApplicationError::Stop(e) => Some(e),
        }
    }
}
