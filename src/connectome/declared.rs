//! The declared graph: what can happen, read from the host's source.
//!
//! [`Declared::build`] takes a [`DeclaredInput`] — the catalog's tools and the crates in
//! scope — loads the source (the private `source` module, the only IO here: `cargo metadata`
//! and file reads), and extracts call edges from the parsed files (the private `extract`
//! module and its passes, pure). Beside the graph it returns a [`CompletenessBound`]: every
//! dynamic dispatch site, every callee outside the scope and every unreadable entry, with file
//! and line — enumerated, never guessed.
//!
//! This module only declares its parts and re-exports their public items: `input` (what is
//! read), `bound` (the completeness bound), `error`, `source`, `syntax` (helpers over `syn`
//! shared by `source` and `extract`) and `extract`. No part imports this module, so none
//! depends on another through it.

mod bound;
mod error;
mod extract;
mod input;
mod source;
mod syntax;

pub use bound::{BoundClass, BoundEntry, BoundReason, CompletenessBound};
pub use error::DeclaredError;
pub use input::{DeclaredInput, ToolEntry};

use super::model::{tool_node_id, Graph, NodeKind};
use std::collections::BTreeSet;

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
        let (graph, bound) = extract::extract(&input.tools, &sources);
        Ok(Declared::from_parts(graph, bound))
    }

    /// Assembles a declared graph from its parts.
    pub fn from_parts(graph: Graph, mut bound: CompletenessBound) -> Self {
        bound.normalize();
        Declared { graph, bound }
    }

    /// This declared graph with its tools following a live catalog whose tools are now
    /// `tools`: a tool the graph has and the catalog no longer has is dropped with its edges
    /// (its dispatch and serves edges) and its bound entries; a tool the catalog gained gets its
    /// node and its dispatch edge. Which function serves a gained tool is not in the source read
    /// at build time: it has no serves edge until the graph is built again with it. The code the
    /// graph was read from is unchanged, so everything else is kept.
    ///
    /// ```
    /// use beam_mcp::connectome::declared::Declared;
    /// use beam_mcp::connectome::model::{EdgeKey, Graph};
    /// let mut graph = Graph::new();
    /// graph.add_dispatch_edge("old");
    /// let declared = Declared::from_parts(graph, Default::default());
    /// let live = declared.following(["new"]);
    /// assert!(live.graph().contains_edge(&EdgeKey::dispatch("new")));
    /// assert!(live.graph().node("tool:old").is_none());
    /// ```
    #[must_use]
    pub fn following<'a>(&self, tools: impl IntoIterator<Item = &'a str>) -> Declared {
        let tools: Vec<&str> = tools.into_iter().collect();
        // Catalog tool names are ASCII (`ServerConfig` refuses any other): their ids are NFC.
        let live: BTreeSet<String> = tools.iter().map(|t| tool_node_id(t)).collect();
        let mut graph = self.graph.clone();
        let gone: Vec<String> = graph
            .nodes()
            .filter(|n| n.kind == NodeKind::Tool && !live.contains(&n.id))
            .map(|n| n.id.clone())
            .collect();
        for id in &gone {
            graph.remove_node(id);
        }
        for tool in &tools {
            graph.add_dispatch_edge(tool);
        }
        let mut bound = self.bound.clone();
        let stale = |e: &bound::BoundEntry| e.caller.as_ref().is_some_and(|c| gone.contains(c));
        for list in [
            &mut bound.dynamic_dispatch,
            &mut bound.outside_scope,
            &mut bound.unreadable,
        ] {
            list.retain(|e| !stale(e));
        }
        Declared::from_parts(graph, bound)
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
