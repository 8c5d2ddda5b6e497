//! The diff of a declared and an observed graph. Pure: no IO.
//!
//! Every edge of either graph falls in exactly one of four [`EdgeClass`]es, and ten
//! [`Coverage`] counts are computed for the consumer to divide. Definitions:
//! `docs/connectome-diff.md`.

use std::collections::BTreeSet;

use super::model::{EdgeKey, EdgeKind, Graph, NodeKind, Sign};

/// The class of one edge in a diff.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum EdgeClass {
    /// In both graphs, with the same sign.
    Matched,
    /// Declared and never observed: dead authority.
    DeadAuthority,
    /// Observed and not declared: a drift finding.
    Drift,
    /// In both graphs, with different signs.
    ChangedSign,
}

impl EdgeClass {
    /// The name written in exports.
    pub fn as_str(self) -> &'static str {
        match self {
            EdgeClass::Matched => "matched",
            EdgeClass::DeadAuthority => "dead_authority",
            EdgeClass::Drift => "drift",
            EdgeClass::ChangedSign => "changed_sign",
        }
    }
}

/// An edge in both graphs whose signs differ.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignChange {
    /// The edge.
    pub key: EdgeKey,
    /// Its sign in the declared graph.
    pub declared: Sign,
    /// Its sign in the observed graph.
    pub observed: Sign,
}

/// The ten coverage counts (`docs/connectome-diff.md` defines each).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Coverage {
    /// Edges of the declared graph.
    pub declared_edges: u64,
    /// Edges of the observed graph.
    pub observed_edges: u64,
    /// Edges in both, same sign.
    pub matched_edges: u64,
    /// Declared edges never observed.
    pub dead_authority_edges: u64,
    /// Observed edges not declared.
    pub drift_edges: u64,
    /// Edges in both, different signs.
    pub changed_sign_edges: u64,
    /// Tool nodes of the declared graph.
    pub declared_tools: u64,
    /// Declared tools whose dispatch edge was observed.
    pub exercised_tools: u64,
    /// Sum of the counts of all observed edges.
    pub observed_calls: u64,
    /// Sum of the counts of the drift edges.
    pub drift_calls: u64,
}

impl Coverage {
    /// The counts by name, in the order of `docs/connectome-diff.md`.
    pub fn named(&self) -> [(&'static str, u64); 10] {
        [
            ("declared_edges", self.declared_edges),
            ("observed_edges", self.observed_edges),
            ("matched_edges", self.matched_edges),
            ("dead_authority_edges", self.dead_authority_edges),
            ("drift_edges", self.drift_edges),
            ("changed_sign_edges", self.changed_sign_edges),
            ("declared_tools", self.declared_tools),
            ("exercised_tools", self.exercised_tools),
            ("observed_calls", self.observed_calls),
            ("drift_calls", self.drift_calls),
        ]
    }
}

/// A diff: the four classes, each in edge-key order, and the coverage counts.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Diff {
    matched: Vec<EdgeKey>,
    dead_authority: Vec<EdgeKey>,
    drift: Vec<EdgeKey>,
    changed_sign: Vec<SignChange>,
    coverage: Coverage,
}

fn len(n: usize) -> u64 {
    u64::try_from(n).unwrap_or(u64::MAX)
}

impl Diff {
    /// Classifies every edge of `declared` and `observed`.
    ///
    /// ```
    /// use beam_mcp::connectome::diff::{Diff, EdgeClass};
    /// use beam_mcp::connectome::model::{EdgeKey, Graph};
    /// let mut declared = Graph::new();
    /// declared.add_dispatch_edge("a");
    /// let mut observed = Graph::new();
    /// observed.add_count(EdgeKey::dispatch("b"), 3);
    /// let diff = Diff::run(&declared, &observed);
    /// assert_eq!(diff.class_of(&EdgeKey::dispatch("a")), Some(EdgeClass::DeadAuthority));
    /// assert_eq!(diff.class_of(&EdgeKey::dispatch("b")), Some(EdgeClass::Drift));
    /// assert_eq!(diff.coverage().drift_calls, 3);
    /// ```
    pub fn run(declared: &Graph, observed: &Graph) -> Diff {
        let mut diff = Diff::default();
        for (key, attrs) in declared.edges() {
            match observed.edge(key) {
                None => diff.dead_authority.push(key.clone()),
                Some(seen) if seen.sign == attrs.sign => diff.matched.push(key.clone()),
                Some(seen) => diff.changed_sign.push(SignChange {
                    key: key.clone(),
                    declared: attrs.sign,
                    observed: seen.sign,
                }),
            }
        }
        let mut drift_calls = 0u64;
        let mut observed_calls = 0u64;
        let mut exercised: BTreeSet<&str> = BTreeSet::new();
        for (key, attrs) in observed.edges() {
            let count = attrs.count.unwrap_or(0);
            observed_calls = observed_calls.saturating_add(count);
            if key.kind == EdgeKind::Dispatch {
                exercised.insert(key.to.as_str());
            }
            if !declared.contains_edge(key) {
                diff.drift.push(key.clone());
                drift_calls = drift_calls.saturating_add(count);
            }
        }
        let declared_tools: Vec<&str> = declared
            .nodes()
            .filter(|n| n.kind == NodeKind::Tool)
            .map(|n| n.id.as_str())
            .collect();
        diff.coverage = Coverage {
            declared_edges: len(declared.edge_count()),
            observed_edges: len(observed.edge_count()),
            matched_edges: len(diff.matched.len()),
            dead_authority_edges: len(diff.dead_authority.len()),
            drift_edges: len(diff.drift.len()),
            changed_sign_edges: len(diff.changed_sign.len()),
            declared_tools: len(declared_tools.len()),
            exercised_tools: len(declared_tools
                .iter()
                .filter(|t| exercised.contains(**t))
                .count()),
            observed_calls,
            drift_calls,
        };
        diff
    }

    /// Edges in both graphs with the same sign.
    pub fn matched(&self) -> &[EdgeKey] {
        &self.matched
    }

    /// Declared edges never observed (dead authority).
    pub fn dead_authority(&self) -> &[EdgeKey] {
        &self.dead_authority
    }

    /// Observed edges not declared (drift).
    pub fn drift(&self) -> &[EdgeKey] {
        &self.drift
    }

    /// Edges in both graphs whose signs differ.
    pub fn changed_sign(&self) -> &[SignChange] {
        &self.changed_sign
    }

    /// The ten coverage counts.
    pub fn coverage(&self) -> &Coverage {
        &self.coverage
    }

    /// The class of an edge, or `None` when neither graph holds it.
    pub fn class_of(&self, key: &EdgeKey) -> Option<EdgeClass> {
        let has = |v: &[EdgeKey]| v.binary_search(key).is_ok();
        if has(&self.matched) {
            Some(EdgeClass::Matched)
        } else if has(&self.dead_authority) {
            Some(EdgeClass::DeadAuthority)
        } else if has(&self.drift) {
            Some(EdgeClass::Drift)
        } else if self
            .changed_sign
            .binary_search_by(|c| c.key.cmp(key))
            .is_ok()
        {
            Some(EdgeClass::ChangedSign)
        } else {
            None
        }
    }
}
