//! What [`Declared::build`](super::Declared::build) reads: the catalog's tools and the crates
//! in scope.

use std::path::PathBuf;

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
