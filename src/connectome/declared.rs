//! The declared graph: what can happen, read from the host's source.
//!
//! [`Declared::build`] takes a [`DeclaredInput`] — the catalog's tools and the crates in
//! scope — loads the source (the private `source` module, the only IO here: `cargo metadata` and file reads),
//! and extracts call edges from the parsed files (the private `extract` module, pure). Beside the graph it
//! returns a [`CompletenessBound`]: every dynamic dispatch site, every callee outside the
//! scope and every unreadable entry, with file and line — enumerated, never guessed.

mod extract;
mod source;

use std::fmt;
use std::path::PathBuf;

use super::model::Graph;

/// One catalog tool, as the declared graph needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolEntry {
    /// The tool's name.
    pub name: String,
    /// The path of the host function that serves it, from the crate root with the crate's
    /// name (`weather_host::weather::get_weather`), when the host states it.
    pub dispatch_target: Option<String>,
}

impl ToolEntry {
    /// A tool entry.
    pub fn new(name: impl Into<String>, dispatch_target: Option<&str>) -> Self {
        ToolEntry {
            name: name.into(),
            dispatch_target: dispatch_target.map(str::to_owned),
        }
    }
}

/// What to read: the tools, and the crates in scope.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeclaredInput {
    /// The catalog's tools.
    pub tools: Vec<ToolEntry>,
    /// The `Cargo.toml` handed to `cargo metadata --no-deps`.
    pub manifest_path: PathBuf,
    /// Packages in scope, by name; empty means every package `cargo metadata` lists.
    pub packages: Vec<String>,
    /// Target kinds in scope (`lib`, `bin`, `example`, …); empty means `lib` and `bin`.
    pub target_kinds: Vec<String>,
}

impl DeclaredInput {
    /// The tools of a catalog, each with the host function that serves it as `target` names
    /// it (`None` when the host does not say). The one dispatch function serving every tool is
    /// the common case: `|_| Some("my_host::dispatch".into())`.
    #[must_use]
    pub fn with_catalog(
        mut self,
        catalog: &crate::catalog::Catalog,
        target: impl Fn(&crate::catalog::ToolSpec) -> Option<String>,
    ) -> Self {
        self.tools = catalog
            .tools()
            .iter()
            .map(|t| ToolEntry {
                name: t.name().to_owned(),
                dispatch_target: target(t),
            })
            .collect();
        self
    }

    /// Input for every `lib` and `bin` target of the packages under `manifest_path`.
    pub fn new(manifest_path: impl Into<PathBuf>) -> Self {
        DeclaredInput {
            tools: Vec::new(),
            manifest_path: manifest_path.into(),
            packages: Vec::new(),
            target_kinds: Vec::new(),
        }
    }
}

/// Why an entry is in the completeness bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum BoundReason {
    /// Dynamic dispatch: a method called on a `dyn Trait` value.
    TraitObjectMethod,
    /// Dynamic dispatch: a method whose receiver type is not known from source, and some
    /// in-scope function has that name.
    UnresolvedMethod,
    /// Dynamic dispatch: a call through a local binding (fn pointer or closure).
    FnPointerOrClosure,
    /// Dynamic dispatch: a call of a computed expression (`(self.f)(x)`, `make()()`).
    CallExpression,
    /// Dynamic dispatch: a path into the scope that names no function read from source
    /// (generic `T::f`, glob imports, trait items).
    UnresolvedPath,
    /// Outside the scope: a path into another crate (std, a dependency).
    ExternalPath,
    /// Outside the scope: a method no in-scope function is named after.
    MethodNotInScope,
    /// Outside the scope: a single-name call found in no module of the scope (the prelude).
    Prelude,
    /// Outside the scope: a tool's dispatch target names no in-scope function.
    DispatchTargetNotInScope,
    /// Unreadable: a file that does not parse.
    ParseError,
    /// Unreadable: a macro invocation, whose expansion is not read.
    MacroBody,
    /// Unreadable: an attribute macro, whose expansion is not read.
    AttributeMacro,
    /// Unreadable: a derive other than the standard library's, whose expansion is not read.
    DeriveMacro,
    /// Unreadable: a `mod name;` whose file was not found.
    MissingModuleFile,
    /// Unreadable: a file that could not be read.
    IoError,
}

impl BoundReason {
    /// The name written in exports.
    pub fn as_str(self) -> &'static str {
        match self {
            BoundReason::TraitObjectMethod => "trait_object_method",
            BoundReason::UnresolvedMethod => "unresolved_method",
            BoundReason::FnPointerOrClosure => "fn_pointer_or_closure",
            BoundReason::CallExpression => "call_expression",
            BoundReason::UnresolvedPath => "unresolved_path",
            BoundReason::ExternalPath => "external_path",
            BoundReason::MethodNotInScope => "method_not_in_scope",
            BoundReason::Prelude => "prelude",
            BoundReason::DispatchTargetNotInScope => "dispatch_target_not_in_scope",
            BoundReason::ParseError => "parse_error",
            BoundReason::MacroBody => "macro_body",
            BoundReason::AttributeMacro => "attribute_macro",
            BoundReason::DeriveMacro => "derive_macro",
            BoundReason::MissingModuleFile => "missing_module_file",
            BoundReason::IoError => "io_error",
        }
    }

    /// The bound list an entry with this reason belongs to.
    pub fn class(self) -> BoundClass {
        use BoundReason::*;
        match self {
            TraitObjectMethod | UnresolvedMethod | FnPointerOrClosure | CallExpression
            | UnresolvedPath => BoundClass::DynamicDispatch,
            ExternalPath | MethodNotInScope | Prelude | DispatchTargetNotInScope => {
                BoundClass::OutsideScope
            }
            ParseError | MacroBody | AttributeMacro | DeriveMacro | MissingModuleFile | IoError => {
                BoundClass::Unreadable
            }
        }
    }
}

/// The three lists of the completeness bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum BoundClass {
    /// Dynamic dispatch sites.
    DynamicDispatch,
    /// Callees outside the scope.
    OutsideScope,
    /// Unreadable entries.
    Unreadable,
}

/// One entry of the completeness bound.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BoundEntry {
    /// The file, relative to its package's manifest directory, with `/` separators.
    pub file: Option<String>,
    /// 1-based line (0 when there is no file).
    pub line: u32,
    /// 1-based column, in characters (0 when there is no file).
    pub column: u32,
    /// Why the entry is here.
    pub reason: BoundReason,
    /// The enclosing function's node id, when the site is in a function body.
    pub caller: Option<String>,
    /// The callee as written (a path, `.method`, a macro path, a module name, a tool).
    pub callee: String,
}

/// What the declared graph cannot vouch for, enumerated.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CompletenessBound {
    /// Dynamic dispatch sites: trait-object and unresolved method calls, calls through fn
    /// pointers, closures and computed expressions, unresolved paths.
    pub dynamic_dispatch: Vec<BoundEntry>,
    /// Callees outside the scope.
    pub outside_scope: Vec<BoundEntry>,
    /// Unreadable entries: files that do not parse or are missing, macro bodies.
    pub unreadable: Vec<BoundEntry>,
}

impl CompletenessBound {
    /// Adds an entry to the list its reason names.
    pub fn push(&mut self, entry: BoundEntry) {
        match entry.reason.class() {
            BoundClass::DynamicDispatch => self.dynamic_dispatch.push(entry),
            BoundClass::OutsideScope => self.outside_scope.push(entry),
            BoundClass::Unreadable => self.unreadable.push(entry),
        }
    }

    /// Sorts each list (file, line, column, reason, caller, callee) and drops exact repeats.
    pub fn normalize(&mut self) {
        for list in [
            &mut self.dynamic_dispatch,
            &mut self.outside_scope,
            &mut self.unreadable,
        ] {
            list.sort();
            list.dedup();
        }
    }

    /// Whether all three lists are empty.
    pub fn is_empty(&self) -> bool {
        self.dynamic_dispatch.is_empty()
            && self.outside_scope.is_empty()
            && self.unreadable.is_empty()
    }

    /// Every entry, list by list.
    pub fn entries(&self) -> impl Iterator<Item = &BoundEntry> {
        self.dynamic_dispatch
            .iter()
            .chain(&self.outside_scope)
            .chain(&self.unreadable)
    }
}

/// The declared graph and its completeness bound.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Declared {
    graph: Graph,
    bound: CompletenessBound,
}

impl Declared {
    /// Reads the scope and builds the declared graph.
    ///
    /// ```no_run
    /// use beam_mcp::connectome::declared::{Declared, DeclaredInput, ToolEntry};
    /// let mut input = DeclaredInput::new("Cargo.toml");
    /// input.tools.push(ToolEntry::new("get_weather", Some("weather::get_weather")));
    /// let declared = Declared::build(&input)?;
    /// println!("{} edges, {} dynamic sites", declared.graph().edge_count(),
    ///          declared.bound().dynamic_dispatch.len());
    /// # Ok::<(), beam_mcp::connectome::declared::DeclaredError>(())
    /// ```
    ///
    /// # Errors
    /// [`DeclaredError`] when `cargo metadata` cannot run or answers nonsense, or a requested
    /// package is absent. Files that cannot be read or parsed are not errors: they are
    /// entries of the bound.
    pub fn build(input: &DeclaredInput) -> Result<Declared, DeclaredError> {
        let sources = source::load(input)?;
        Ok(extract::extract(&input.tools, &sources))
    }

    /// Assembles a declared graph from its parts.
    pub fn from_parts(graph: Graph, mut bound: CompletenessBound) -> Self {
        bound.normalize();
        Declared { graph, bound }
    }

    /// The graph.
    pub fn graph(&self) -> &Graph {
        &self.graph
    }

    /// The completeness bound.
    pub fn bound(&self) -> &CompletenessBound {
        &self.bound
    }
}

/// Why [`Declared::build`] failed.
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
    /// A package named in [`DeclaredInput::packages`] is not in the metadata.
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
