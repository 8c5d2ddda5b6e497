//! The graph model: nodes, edges with identity, and signs. Pure data, no IO.
//!
//! Vocabulary: `docs/connectome.md`. Node ids are strings with a kind prefix
//! (`mcp:dispatch`, `tool:NAME`, `fn:PATH`, `module:PATH`, `package:NAME`) so that a declared
//! and an observed graph name the same thing the same way. An edge's identity is its
//! [`EdgeKey`] — kind, from, to — and nothing else; its sign and count are attributes.

use std::collections::BTreeMap;
use std::fmt;

use unicode_normalization::UnicodeNormalization;

/// Id of the one dispatch node: the MCP `tools/call` site every tool is reached from.
pub const DISPATCH_NODE: &str = "mcp:dispatch";

/// The node id of a catalog tool.
pub fn tool_node_id(name: &str) -> String {
    format!("tool:{name}")
}

/// The node id of a function, given its path from the crate root (`krate::module::f`).
pub fn function_node_id(path: &str) -> String {
    format!("fn:{path}")
}

/// The node id of a module, given its path (`krate::module`), which is also a `tracing` target.
pub fn module_node_id(path: &str) -> String {
    format!("module:{path}")
}

/// The node id of a package (the grouping of modules and functions).
pub fn package_node_id(name: &str) -> String {
    format!("package:{name}")
}

/// What a node stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum NodeKind {
    /// The MCP dispatch site (`tools/call`).
    Dispatch,
    /// A tool from the host's catalog.
    Tool,
    /// A function or method of a crate in scope.
    Function,
    /// A module of a crate in scope (also a `tracing` span target).
    Module,
    /// A package: the grouping of modules and functions, from `cargo metadata`.
    Package,
}

impl NodeKind {
    /// The node kind an export names `name`, when it is one (the inverse of
    /// [`NodeKind::as_str`]).
    pub fn from_name(name: &str) -> Option<NodeKind> {
        [
            NodeKind::Dispatch,
            NodeKind::Tool,
            NodeKind::Function,
            NodeKind::Module,
            NodeKind::Package,
        ]
        .into_iter()
        .find(|k| k.as_str() == name)
    }

    /// The name written in exports.
    pub fn as_str(self) -> &'static str {
        match self {
            NodeKind::Dispatch => "dispatch",
            NodeKind::Tool => "tool",
            NodeKind::Function => "function",
            NodeKind::Module => "module",
            NodeKind::Package => "package",
        }
    }
}

impl fmt::Display for NodeKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What an edge stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum EdgeKind {
    /// `mcp:dispatch` → `tool:NAME`: the dispatch site can reach (or reached) the tool.
    Dispatch,
    /// `tool:NAME` → `fn:PATH`: the host function that serves the tool.
    Serves,
    /// `fn:A` → `fn:B`: a direct call read from source.
    Call,
    /// `module:A` → `module:B`: a module-level edge (projection of calls, or span nesting).
    ModuleCall,
}

impl EdgeKind {
    /// The edge kind an export (or a peer's snapshot) names `name`, when it is one (the
    /// inverse of [`EdgeKind::as_str`]).
    pub fn from_name(name: &str) -> Option<EdgeKind> {
        [
            EdgeKind::Dispatch,
            EdgeKind::Serves,
            EdgeKind::Call,
            EdgeKind::ModuleCall,
        ]
        .into_iter()
        .find(|k| k.as_str() == name)
    }

    /// The name written in exports.
    pub fn as_str(self) -> &'static str {
        match self {
            EdgeKind::Dispatch => "dispatch",
            EdgeKind::Serves => "serves",
            EdgeKind::Call => "call",
            EdgeKind::ModuleCall => "module_call",
        }
    }
}

impl fmt::Display for EdgeKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The consumer's verdict on an edge. This crate writes only [`Sign::Unset`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum Sign {
    /// The consumer allows the edge.
    Allow,
    /// The consumer denies the edge.
    Deny,
    /// The consumer holds the edge for a decision.
    Hold,
    /// The consumer states that no governance applies.
    Ungoverned,
    /// No verdict: the only value this crate writes.
    #[default]
    Unset,
}

impl Sign {
    /// The sign an export names `name`, when it is one: how a consumer's verdict is read back
    /// from its file. The crate itself writes only [`Sign::Unset`].
    pub fn from_name(name: &str) -> Option<Sign> {
        match name {
            "allow" => Some(Sign::Allow),
            "deny" => Some(Sign::Deny),
            "hold" => Some(Sign::Hold),
            "ungoverned" => Some(Sign::Ungoverned),
            "unset" => Some(Sign::Unset),
            _ => None,
        }
    }

    /// The name written in exports.
    pub fn as_str(self) -> &'static str {
        match self {
            Sign::Allow => "allow",
            Sign::Deny => "deny",
            Sign::Hold => "hold",
            Sign::Ungoverned => "ungoverned",
            Sign::Unset => "unset",
        }
    }
}

impl fmt::Display for Sign {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A node: id, kind, and the grouping it belongs to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    /// The prefixed id (see the module docs).
    pub id: String,
    /// What the node stands for.
    pub kind: NodeKind,
    /// The package that groups it, when known.
    pub package: Option<String>,
    /// The module path that holds it (functions) or that it is (modules), when known.
    pub module: Option<String>,
}

impl Node {
    /// A node with no grouping.
    pub fn new(id: impl Into<String>, kind: NodeKind) -> Self {
        Node {
            id: id.into(),
            kind,
            package: None,
            module: None,
        }
    }
}

/// An edge's identity: kind, source node id, target node id.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct EdgeKey {
    /// What the edge stands for.
    pub kind: EdgeKind,
    /// Source node id.
    pub from: String,
    /// Target node id.
    pub to: String,
}

impl EdgeKey {
    /// An edge key.
    pub fn new(kind: EdgeKind, from: impl Into<String>, to: impl Into<String>) -> Self {
        EdgeKey {
            kind,
            from: from.into(),
            to: to.into(),
        }
    }

    /// The dispatch edge `mcp:dispatch` → `tool:NAME`.
    pub fn dispatch(tool: &str) -> Self {
        EdgeKey::new(EdgeKind::Dispatch, DISPATCH_NODE, tool_node_id(tool))
    }
}

impl fmt::Display for EdgeKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {} -> {}", self.kind, self.from, self.to)
    }
}

/// An edge's attributes: its sign and, on an observed graph, how often it was seen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct EdgeAttrs {
    /// The consumer's verdict; [`Sign::Unset`] as this crate writes it.
    pub sign: Sign,
    /// Observations (observed graphs only).
    pub count: Option<u64>,
}

/// A graph: nodes by id and edges by identity, both in a stable order. Ids are put in
/// Unicode NFC on the way in, so ids equal after NFC are one node.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Graph {
    nodes: BTreeMap<String, Node>,
    edges: BTreeMap<EdgeKey, EdgeAttrs>,
}

/// An observed graph: a [`Graph`] whose edges carry counts.
pub type ObservedGraph = Graph;

impl Graph {
    /// An empty graph.
    pub fn new() -> Self {
        Graph::default()
    }

    /// Adds a node; a node already present under the same id is kept and gains any grouping
    /// it lacked.
    pub fn add_node(&mut self, mut node: Node) {
        node.id = nfc(&node.id);
        match self.nodes.get_mut(&node.id) {
            Some(existing) => {
                if existing.package.is_none() {
                    existing.package = node.package;
                }
                if existing.module.is_none() {
                    existing.module = node.module;
                }
            }
            None => {
                self.nodes.insert(node.id.clone(), node);
            }
        }
    }

    /// Adds an edge with sign [`Sign::Unset`] and no count, adding bare nodes for missing
    /// endpoints (kinds inferred from the id prefix). An edge already present is unchanged.
    pub fn add_edge(&mut self, key: EdgeKey) {
        let key = normalized(key);
        for id in [&key.from, &key.to] {
            if !self.nodes.contains_key(id.as_str()) {
                self.nodes
                    .insert(id.clone(), Node::new(id.clone(), kind_from_id(id)));
            }
        }
        self.edges.entry(key).or_default();
    }

    /// Removes a node and every edge from or to it; whether it was there.
    pub fn remove_node(&mut self, id: &str) -> bool {
        let id = nfc(id);
        if self.nodes.remove(&id).is_none() {
            return false;
        }
        self.edges.retain(|k, _| k.from != id && k.to != id);
        true
    }

    /// Adds the dispatch edge `mcp:dispatch` → `tool:NAME` (and both nodes).
    pub fn add_dispatch_edge(&mut self, tool: &str) {
        self.add_edge(EdgeKey::dispatch(tool));
    }

    /// Adds `n` to an edge's count, adding the edge first if absent.
    pub fn add_count(&mut self, key: EdgeKey, n: u64) {
        let key = normalized(key);
        self.add_edge(key.clone());
        if let Some(attrs) = self.edges.get_mut(&key) {
            attrs.count = Some(attrs.count.unwrap_or(0).saturating_add(n));
        }
    }

    /// Sets the sign of an edge that is present; returns whether it was. This crate never calls
    /// it with anything but [`Sign::Unset`]: signs are the consumer's to write.
    pub fn set_sign(&mut self, key: &EdgeKey, sign: Sign) -> bool {
        match self.edges.get_mut(&normalized(key.clone())) {
            Some(attrs) => {
                attrs.sign = sign;
                true
            }
            None => false,
        }
    }

    /// Nodes in id order.
    pub fn nodes(&self) -> impl Iterator<Item = &Node> {
        self.nodes.values()
    }

    /// A node by id.
    pub fn node(&self, id: &str) -> Option<&Node> {
        self.nodes.get(&nfc(id))
    }

    /// Edges in key order (kind, from, to).
    pub fn edges(&self) -> impl Iterator<Item = (&EdgeKey, &EdgeAttrs)> {
        self.edges.iter()
    }

    /// An edge's attributes.
    pub fn edge(&self, key: &EdgeKey) -> Option<&EdgeAttrs> {
        self.edges.get(&normalized(key.clone()))
    }

    /// Whether the graph holds the edge.
    pub fn contains_edge(&self, key: &EdgeKey) -> bool {
        self.edges.contains_key(&normalized(key.clone()))
    }

    /// Number of nodes.
    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }

    /// Number of edges.
    pub fn edge_count(&self) -> usize {
        self.edges.len()
    }
}

fn nfc(s: &str) -> String {
    s.nfc().collect()
}

fn normalized(key: EdgeKey) -> EdgeKey {
    EdgeKey {
        kind: key.kind,
        from: nfc(&key.from),
        to: nfc(&key.to),
    }
}

/// The node kind named by an id's prefix; unknown prefixes count as functions.
pub fn kind_from_id(id: &str) -> NodeKind {
    if id == DISPATCH_NODE {
        NodeKind::Dispatch
    } else if id.starts_with("tool:") {
        NodeKind::Tool
    } else if id.starts_with("module:") {
        NodeKind::Module
    } else if id.starts_with("package:") {
        NodeKind::Package
    } else {
        NodeKind::Function
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn add_edge_adds_nodes_with_inferred_kinds() {
        let mut g = Graph::new();
        g.add_dispatch_edge("echo");
        assert_eq!(
            g.node(DISPATCH_NODE).map(|n| n.kind),
            Some(NodeKind::Dispatch)
        );
        assert_eq!(g.node("tool:echo").map(|n| n.kind), Some(NodeKind::Tool));
        assert_eq!(
            g.edge(&EdgeKey::dispatch("echo")).map(|a| a.sign),
            Some(Sign::Unset)
        );
    }

    #[test]
    fn counts_accumulate() {
        let mut g = Graph::new();
        g.add_count(EdgeKey::dispatch("a"), 2);
        g.add_count(EdgeKey::dispatch("a"), 3);
        assert_eq!(
            g.edge(&EdgeKey::dispatch("a")).and_then(|a| a.count),
            Some(5)
        );
    }
}
