//! The connectome on the wire: four read-only resources a host adds to its own catalog, and a
//! helper for the one `observe` tool a tools-only host writes itself.
//!
//! No MCP capability is invented. `connectome://declared`, `connectome://observed`,
//! `connectome://diff` and `connectome://effective` are plain resources, listed by `resources/list` and read by
//! `resources/read`; each answers exactly the canonical bytes of the file export
//! ([`super::export`]), as text with MIME type `application/json`.
//!
//! The catalog has one reader, and it is the host's. A host that adds the surface delegates to
//! it first, and answers every other uri as before:
//!
//! ```
//! use beam_mcp::catalog::{ReadError, ResourceContents, ResourceSpec};
//! use beam_mcp::connectome::canonical::DigestAlgorithm;
//! use beam_mcp::connectome::declared::Declared;
//! use beam_mcp::connectome::observed::Collector;
//! use beam_mcp::connectome::surface::Surface;
//! use beam_mcp::Catalog;
//!
//! let surface = Surface::new(Declared::default(), Collector::new(), DigestAlgorithm::Sha256);
//! let reader_surface = surface.clone();
//! let catalog = surface
//!     .add_to(Catalog::new().resource(ResourceSpec::new("weather://places", "places")))
//!     .reader(move |uri: String| {
//!         let surface = reader_surface.clone();
//!         async move {
//!             if let Some(answer) = surface.read(&uri) {
//!                 return answer;
//!             }
//!             Ok::<_, ReadError>(vec![ResourceContents::text(uri, "Oslo")])
//!         }
//!     });
//! assert_eq!(catalog.resources().len(), 5);
//! ```
//!
//! A host that offers tools only writes the `observe` tool itself — this crate holds no tools —
//! and answers it with [`Surface::call`]. The spec to copy:
//!
//! ```
//! use beam_mcp::catalog::Mode;
//! use beam_mcp::ToolSpec;
//! use serde_json::json;
//!
//! let observe = ToolSpec::new(
//!     "observe",
//!     "Read one connectome export (declared, observed, diff or effective) as canonical bytes.",
//! )
//! .with_mode(Mode::ReadOnly)
//! .with_input_schema(json!({
//!     "type": "object",
//!     "properties": {"export": {"type": "string", "description": "declared, observed, diff or effective"}},
//!     "required": ["export"],
//!     "additionalProperties": false
//! }));
//! # assert_eq!(observe.name(), "observe");
//! ```
//!
//! The tool's one text block is the canonical JSON `{"bytes": TEXT, "<algorithm>": HEX}`:
//! `TEXT` is the export's canonical bytes verbatim, and `HEX` their hash by the export's own
//! algorithm, keyed by its name (`sha256`, `sha384`, `sha512`), so a client can check the
//! bytes arrived whole before it verifies the document's own `digest`.
//!
//! Read-only by construction: a [`Surface`] holds a function from [`ExportKind`] to sealed
//! bytes and nothing else; [`Surface::new`] builds it over a declared graph and a collector it
//! only snapshots. The `observe` call itself is a dispatch like any other: a host whose
//! dispatch site records into an attached collector records it too, and the next observed
//! export shows the edge `mcp:dispatch` → `tool:observe`.

use std::fmt;
use std::sync::Arc;

use serde_json::{Map, Value};

use super::canonical::{to_canonical_bytes, CanonicalError, DigestAlgorithm, Sealed};
use super::declared::Declared;
use super::export::ExportKind;
use super::observed::Collector;
use super::reporter::build_export;
use crate::catalog::{ReadError, ResourceContents, ResourceSpec};
use crate::{Catalog, ToolCall, ToolError, ToolOutput};

/// The uri of the declared export.
pub const DECLARED_URI: &str = "connectome://declared";
/// The uri of the observed export.
pub const OBSERVED_URI: &str = "connectome://observed";
/// The uri of the diff export.
pub const DIFF_URI: &str = "connectome://diff";
/// The uri of the effective-connectivity export (`docs/connectome-effective.md`).
pub const EFFECTIVE_URI: &str = "connectome://effective";
/// The MIME type of every surface resource.
pub const MIME_TYPE: &str = "application/json";
/// The argument of the `observe` tool naming the export.
pub const OBSERVE_ARGUMENT: &str = "export";

const KINDS: [ExportKind; 4] = [
    ExportKind::Declared,
    ExportKind::Observed,
    ExportKind::Diff,
    ExportKind::Effective,
];

type ExportFn = dyn Fn(ExportKind) -> Result<Sealed, CanonicalError> + Send + Sync;

/// The connectome's wire surface: four resources and the `observe` tool's answer, all from one
/// export function.
#[derive(Clone)]
pub struct Surface {
    export: Arc<ExportFn>,
}

impl fmt::Debug for Surface {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Surface").finish_non_exhaustive()
    }
}

/// Why the surface could not answer.
#[derive(Debug)]
#[non_exhaustive]
pub enum SurfaceError {
    /// The uri is not one of the three surface uris.
    UnknownUri {
        /// The uri asked for.
        uri: String,
    },
    /// The `observe` tool was called without a string `export` argument naming
    /// `declared`, `observed` or `diff`.
    UnknownExport {
        /// What the argument held, as JSON (`null` when absent).
        found: String,
    },
    /// The export could not be written canonically.
    Canonical(CanonicalError),
}

impl fmt::Display for SurfaceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SurfaceError::UnknownUri { uri } => write!(f, "not a connectome uri: {uri:?}"),
            SurfaceError::UnknownExport { found } => write!(
                f,
                "argument {OBSERVE_ARGUMENT:?} must be \"declared\", \"observed\" or \"diff\", found {found}"
            ),
            SurfaceError::Canonical(e) => write!(f, "export cannot be written: {e}"),
        }
    }
}

impl std::error::Error for SurfaceError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SurfaceError::Canonical(e) => Some(e),
            _ => None,
        }
    }
}

impl From<CanonicalError> for SurfaceError {
    fn from(e: CanonicalError) -> Self {
        SurfaceError::Canonical(e)
    }
}

impl Surface {
    /// A surface over a declared graph and a collector, every export hashed with `algorithm`:
    /// the same bytes [`build_export`] (and so the reporter and the file exports) write.
    pub fn new(declared: Declared, collector: Collector, algorithm: DigestAlgorithm) -> Self {
        Surface::from_export(move |kind| build_export(kind, &declared, &collector, algorithm))
    }

    /// A surface over any export function, e.g. one reading a host's own cached exports.
    pub fn from_export(
        export: impl Fn(ExportKind) -> Result<Sealed, CanonicalError> + Send + Sync + 'static,
    ) -> Self {
        Surface {
            export: Arc::new(export),
        }
    }

    /// The four resources, in the order declared, observed, diff, effective.
    pub fn resources() -> [ResourceSpec; 4] {
        KINDS.map(|kind| {
            ResourceSpec::new(uri_of(kind), format!("connectome-{}", kind.as_str()))
                .with_title(title_of(kind))
                .with_description(description_of(kind))
                .with_mime_type(MIME_TYPE)
        })
    }

    /// `catalog` with the four resources added. The reader stays the host's: it must delegate
    /// to [`Surface::read`] (see the module docs).
    pub fn add_to(&self, catalog: Catalog) -> Catalog {
        Surface::resources()
            .into_iter()
            .fold(catalog, |c, spec| c.resource(spec))
    }

    /// The export a surface uri names.
    pub fn kind_of(uri: &str) -> Option<ExportKind> {
        KINDS.into_iter().find(|&kind| uri_of(kind) == uri)
    }

    /// The uri of an export.
    pub fn uri_of(kind: ExportKind) -> &'static str {
        uri_of(kind)
    }

    /// The sealed bytes of one export, as the file export writes them.
    ///
    /// # Errors
    /// [`SurfaceError::Canonical`] when the export cannot be written canonically.
    pub fn export(&self, kind: ExportKind) -> Result<Sealed, SurfaceError> {
        Ok((self.export)(kind)?)
    }

    /// The contents of a surface uri, or `None` for any other uri (the host's reader answers
    /// those). The one text block is the export's canonical bytes.
    ///
    /// # Errors
    /// The inner `Err` is a [`ReadError`] carrying the [`SurfaceError`]'s message when the
    /// export cannot be written.
    pub fn read(&self, uri: &str) -> Option<Result<Vec<ResourceContents>, ReadError>> {
        let kind = Surface::kind_of(uri)?;
        Some(
            self.text(kind)
                .map(|text| vec![ResourceContents::text(uri, text).with_mime_type(MIME_TYPE)])
                .map_err(|e| ReadError::new(e.to_string())),
        )
    }

    /// The `observe` tool's answer: `{"bytes": TEXT, "<algorithm>": HEX}` as one canonical
    /// text block, for the export named by the call's `export` argument.
    ///
    /// # Errors
    /// A [`ToolError`] (a result with `isError: true`) when the argument names no export or the
    /// export cannot be written.
    pub fn call(&self, call: &ToolCall) -> Result<ToolOutput, ToolError> {
        let arg = call.arguments.get(OBSERVE_ARGUMENT);
        self.observe(arg)
            .map(ToolOutput::text)
            .map_err(|e| ToolError::new(e.to_string()))
    }

    /// [`Surface::call`] on the argument alone: the text block, or why there is none.
    ///
    /// # Errors
    /// [`SurfaceError::UnknownExport`] or [`SurfaceError::Canonical`].
    pub fn observe(&self, export: Option<&Value>) -> Result<String, SurfaceError> {
        let kind = export
            .and_then(Value::as_str)
            .and_then(|name| KINDS.into_iter().find(|k| k.as_str() == name))
            .ok_or_else(|| SurfaceError::UnknownExport {
                found: export.map_or_else(|| "null".to_owned(), Value::to_string),
            })?;
        let sealed = self.export(kind)?;
        let hash = sealed.algorithm.hex_digest(&sealed.bytes);
        let text = into_text(sealed.bytes);
        let mut answer = Map::new();
        answer.insert("bytes".to_owned(), Value::String(text));
        answer.insert(sealed.algorithm.name().to_owned(), Value::String(hash));
        Ok(into_text(to_canonical_bytes(&Value::Object(answer))?))
    }

    fn text(&self, kind: ExportKind) -> Result<String, SurfaceError> {
        Ok(into_text(self.export(kind)?.bytes))
    }
}

// Canonical bytes are UTF-8 by construction; the lossy path is never taken.
fn into_text(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

fn uri_of(kind: ExportKind) -> &'static str {
    match kind {
        ExportKind::Declared => DECLARED_URI,
        ExportKind::Observed => OBSERVED_URI,
        ExportKind::Diff => DIFF_URI,
        ExportKind::Effective => EFFECTIVE_URI,
    }
}

fn title_of(kind: ExportKind) -> &'static str {
    match kind {
        ExportKind::Declared => "Connectome: declared graph",
        ExportKind::Observed => "Connectome: observed graph",
        ExportKind::Diff => "Connectome: declared vs observed",
        ExportKind::Effective => "Connectome: effective connectivity",
    }
}

fn description_of(kind: ExportKind) -> &'static str {
    match kind {
        ExportKind::Declared => {
            "The host's declared call graph and its completeness bound, as canonical hashed JSON."
        }
        ExportKind::Observed => {
            "The call graph observed at run time, with counts, as canonical hashed JSON."
        }
        ExportKind::Diff => {
            "The diff of the declared and observed graphs: four classes and ten coverage counts."
        }
        ExportKind::Effective => {
            "The declared graph weighted by observed counts; unseen and undeclared edges apart."
        }
    }
}
