//! Why [`Declared::build`](super::Declared::build) fails.

use std::fmt;
use std::path::PathBuf;

/// Why [`Declared::build`](super::Declared::build) failed.
#[derive(Debug)]
#[non_exhaustive]
pub enum DeclaredError {
    /// `cargo metadata` could not be started.
    CargoSpawn {
        /// The program run.
        program: String,
        /// The error.
        source: std::io::Error,
    },
    /// `cargo metadata` exited unsuccessfully.
    CargoFailed {
        /// The manifest handed to it.
        manifest_path: PathBuf,
        /// Its standard error.
        stderr: String,
    },
    /// `cargo metadata` printed something that is not its format-version 1 document.
    Metadata {
        /// What was wrong.
        detail: String,
    },
    /// A package named in
    /// [`DeclaredInput::packages`](super::input::DeclaredInput::packages) is not in the
    /// metadata.
    PackageNotFound {
        /// The name.
        package: String,
    },
}

impl fmt::Display for DeclaredError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DeclaredError::CargoSpawn { program, source } => {
                write!(f, "could not run {program} metadata: {source}")
            }
            DeclaredError::CargoFailed {
                manifest_path,
                stderr,
            } => write!(
                f,
                "cargo metadata failed for {}: {}",
                manifest_path.display(),
                stderr.trim()
            ),
            DeclaredError::Metadata { detail } => {
                write!(f, "unexpected cargo metadata output: {detail}")
            }
            DeclaredError::PackageNotFound { package } => {
                write!(f, "package {package:?} is not in the cargo metadata")
            }
        }
    }
}

impl std::error::Error for DeclaredError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            DeclaredError::CargoSpawn { source, .. } => Some(source),
            _ => None,
        }
    }
}
