//! The federated observed graph: the observed graphs of several nodes, merged into one export
//! (`docs/connectome.md`, "Federation").
//!
//! A [`Federation`] holds, per contributing node, the count of each edge that node observed.
//! Merging takes, per node and per edge, the larger count: a node's counters only grow
//! between resets, so the larger count is the later snapshot. That makes merging commutative,
//! associative and idempotent (a node's contribution merged twice counts once), and the
//! export independent of the order the nodes answered in. The exported graph sums the counts
//! over the nodes; the export names the nodes that contributed.

use std::collections::BTreeMap;

use serde_json::{json, Value};
use unicode_normalization::UnicodeNormalization;

use super::canonical::{seal, CanonicalError, DigestAlgorithm, Sealed};
use super::export::graph_json;
use super::model::{EdgeKey, Graph, ObservedGraph};

/// The `kind` of a federated observed export.
pub const FEDERATED_OBSERVED_KIND: &str = "federated_observed";

/// The observed graphs of several nodes, by node name (in NFC).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Federation {
    nodes: BTreeMap<String, BTreeMap<EdgeKey, u64>>,
}

impl Federation {
    /// A federation with no contributor.
    pub fn new() -> Self {
        Federation::default()
    }

    /// Adds `node`'s observed graph: the node becomes a contributor (even with no edge), and
    /// each edge's count for that node becomes the larger of the held and the given count.
    pub fn contribute(&mut self, node: &str, graph: &ObservedGraph) {
        let held = self.nodes.entry(node.nfc().collect()).or_default();
        for (key, attrs) in graph.edges() {
            let count = attrs.count.unwrap_or(0);
            let slot = held.entry(key.clone()).or_insert(0);
            *slot = (*slot).max(count);
        }
    }

    /// Merges `other` in: commutative, associative and idempotent.
    pub fn merge(&mut self, other: &Federation) {
        for (node, edges) in &other.nodes {
            let held = self.nodes.entry(node.clone()).or_default();
            for (key, count) in edges {
                let slot = held.entry(key.clone()).or_insert(0);
                *slot = (*slot).max(*count);
            }
        }
    }

    /// The contributing nodes' names, in code point order.
    pub fn contributors(&self) -> impl Iterator<Item = &str> {
        self.nodes.keys().map(String::as_str)
    }

    /// One node's observed graph as held, if it contributed.
    pub fn node_graph(&self, node: &str) -> Option<ObservedGraph> {
        let name: String = node.nfc().collect();
        self.nodes.get(&name).map(|edges| {
            let mut graph = Graph::new();
            for (key, count) in edges.iter().filter(|(_, c)| **c > 0) {
                graph.add_count(key.clone(), *count);
            }
            graph
        })
    }

    /// The federated observed graph: each edge's count summed over the contributors (edges
    /// with a zero sum are left out, as in a node's own snapshot).
    pub fn graph(&self) -> ObservedGraph {
        let mut sums: BTreeMap<&EdgeKey, u64> = BTreeMap::new();
        for edges in self.nodes.values() {
            for (key, count) in edges {
                let slot = sums.entry(key).or_insert(0);
                *slot = slot.saturating_add(*count);
            }
        }
        let mut graph = Graph::new();
        for (key, count) in sums.into_iter().filter(|(_, c)| *c > 0) {
            graph.add_count(key.clone(), count);
        }
        graph
    }
}

/// The body of a federated observed export: `{"contributors": [name…], "graph": graph}`,
/// names in code point order, the graph as in an observed export.
pub fn federated_observed_body(federation: &Federation) -> Value {
    let contributors: Vec<&str> = federation.contributors().collect();
    json!({ "contributors": contributors, "graph": graph_json(&federation.graph()) })
}

/// The sealed federated observed export.
///
/// # Errors
/// [`CanonicalError`] when a string or number cannot be written canonically (a summed count
/// beyond 2^53 − 1, node names equal after NFC cannot occur: they are one contributor).
pub fn federated_observed_export(
    federation: &Federation,
    algorithm: DigestAlgorithm,
) -> Result<Sealed, CanonicalError> {
    seal(
        FEDERATED_OBSERVED_KIND,
        federated_observed_body(federation),
        algorithm,
    )
}
