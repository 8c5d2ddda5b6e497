//! Effective connectivity: the declared graph weighted by the observed counts, with the
//! declared edges never seen and the seen edges never declared kept apart
//! (`docs/connectome-effective.md`). Pure.

use std::collections::BTreeSet;

use serde_json::{json, Map, Value};

use super::canonical::{seal, CanonicalError, DigestAlgorithm, Sealed};
use super::export::{graph_json, ExportKind};
use super::federation::Federation;
use super::model::{EdgeKey, Graph};

/// The `kind` of an effective-connectivity export ([`ExportKind::Effective`]'s name).
pub const EFFECTIVE_KIND: &str = ExportKind::Effective.as_str();

/// The effective graph of a declared and an observed graph.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Effective {
    /// Declared nodes and the declared edges that were observed, each with its count.
    weighted: Graph,
    /// Declared edges never observed (count 0 or absent), in edge-key order.
    unseen: Vec<EdgeKey>,
    /// Observed edges (count ≥ 1) that are not declared, with their counts, in edge-key order.
    undeclared: Vec<(EdgeKey, u64)>,
    /// The observing nodes, when the observed graph is a federation's.
    contributors: Option<Vec<String>>,
}

impl Effective {
    /// Weights `declared` by `observed` (one node's graph: no contributors named).
    pub fn new(declared: &Graph, observed: &Graph) -> Self {
        let mut weighted = Graph::new();
        for node in declared.nodes() {
            weighted.add_node(node.clone());
        }
        let mut unseen = Vec::new();
        for (key, attrs) in declared.edges() {
            let count = observed.edge(key).and_then(|a| a.count).unwrap_or(0);
            if count == 0 {
                unseen.push(key.clone());
            } else {
                weighted.add_count(key.clone(), count);
                weighted.set_sign(key, attrs.sign);
            }
        }
        let undeclared = observed
            .edges()
            .filter(|(key, _)| !declared.contains_edge(key))
            .filter_map(|(key, attrs)| match attrs.count.unwrap_or(0) {
                0 => None,
                n => Some((key.clone(), n)),
            })
            .collect();
        Effective {
            weighted,
            unseen,
            undeclared,
            contributors: None,
        }
    }

    /// Weights `declared` by a federation's summed graph, naming its contributors.
    pub fn federated(declared: &Graph, federation: &Federation) -> Self {
        let mut effective = Effective::new(declared, &federation.graph());
        effective.contributors = Some(federation.contributors().map(str::to_owned).collect());
        effective
    }

    /// Weights `declared` by an observed graph read from a federated export, naming the
    /// `contributors` it names (the counts are already summed over them).
    pub fn with_contributors(
        declared: &Graph,
        observed: &Graph,
        contributors: Vec<String>,
    ) -> Self {
        let mut effective = Effective::new(declared, observed);
        effective.contributors = Some(contributors);
        effective
    }

    /// The declared nodes and the observed declared edges, with counts.
    pub fn weighted(&self) -> &Graph {
        &self.weighted
    }

    /// Declared edges never observed.
    pub fn unseen(&self) -> &[EdgeKey] {
        &self.unseen
    }

    /// Observed edges not declared, with their counts.
    pub fn undeclared(&self) -> &[(EdgeKey, u64)] {
        &self.undeclared
    }

    /// The seven counts of `docs/connectome-effective.md`, by name, in the order of the page.
    pub fn counts(&self) -> [(&'static str, u64); 7] {
        let weighted_edges = self.weighted.edge_count() as u64;
        let unseen_edges = self.unseen.len() as u64;
        let weighted_calls = self
            .weighted
            .edges()
            .map(|(_, a)| a.count.unwrap_or(0))
            .fold(0u64, u64::saturating_add);
        let undeclared_calls = self
            .undeclared
            .iter()
            .map(|(_, n)| *n)
            .fold(0u64, u64::saturating_add);
        [
            ("declared_edges", weighted_edges + unseen_edges),
            ("weighted_edges", weighted_edges),
            ("unseen_edges", unseen_edges),
            ("undeclared_edges", self.undeclared.len() as u64),
            (
                "observed_calls",
                weighted_calls.saturating_add(undeclared_calls),
            ),
            ("weighted_calls", weighted_calls),
            ("undeclared_calls", undeclared_calls),
        ]
    }
}

fn key_json(key: &EdgeKey) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("from".into(), Value::String(key.from.clone()));
    m.insert("kind".into(), Value::String(key.kind.as_str().into()));
    m.insert("to".into(), Value::String(key.to.clone()));
    m
}

/// The body of an effective export (`docs/connectome-effective.md` §2).
pub fn effective_body(effective: &Effective, declared: &Graph) -> Value {
    let unseen: Vec<Value> = effective
        .unseen
        .iter()
        .map(|k| {
            let mut m = key_json(k);
            let sign = declared.edge(k).map(|a| a.sign).unwrap_or_default();
            m.insert("sign".into(), Value::String(sign.as_str().into()));
            Value::Object(m)
        })
        .collect();
    let undeclared: Vec<Value> = effective
        .undeclared
        .iter()
        .map(|(k, n)| {
            let mut m = key_json(k);
            m.insert("count".into(), Value::from(*n));
            Value::Object(m)
        })
        .collect();
    let counts: Map<String, Value> = effective
        .counts()
        .iter()
        .map(|(k, v)| ((*k).to_owned(), Value::from(*v)))
        .collect();
    let contributors = match &effective.contributors {
        Some(names) => {
            // Already in code point order (a federation's), deduplicated.
            let names: BTreeSet<&str> = names.iter().map(String::as_str).collect();
            Value::from(names.into_iter().collect::<Vec<_>>())
        }
        None => Value::Null,
    };
    json!({
        "contributors": contributors,
        "counts": counts,
        "graph": graph_json(&effective.weighted),
        "undeclared": undeclared,
        "unseen": unseen,
    })
}

/// The sealed effective export of `declared` weighted by one node's `observed` graph.
///
/// # Errors
/// [`CanonicalError`] when a count exceeds 2^53 − 1 (or ids equal after NFC collide).
pub fn effective_export(
    declared: &Graph,
    observed: &Graph,
    algorithm: DigestAlgorithm,
) -> Result<Sealed, CanonicalError> {
    let effective = Effective::new(declared, observed);
    seal(
        EFFECTIVE_KIND,
        effective_body(&effective, declared),
        algorithm,
    )
}

/// The sealed effective export of `declared` weighted by a federation.
///
/// # Errors
/// As [`effective_export`].
pub fn federated_effective_export(
    declared: &Graph,
    federation: &Federation,
    algorithm: DigestAlgorithm,
) -> Result<Sealed, CanonicalError> {
    let effective = Effective::federated(declared, federation);
    seal(
        EFFECTIVE_KIND,
        effective_body(&effective, declared),
        algorithm,
    )
}

/// The sealed effective export of `declared` weighted by a federated observed graph read
/// back from its export: `observed` summed over `contributors`.
///
/// # Errors
/// As [`effective_export`].
pub fn contributed_effective_export(
    declared: &Graph,
    observed: &Graph,
    contributors: Vec<String>,
    algorithm: DigestAlgorithm,
) -> Result<Sealed, CanonicalError> {
    let effective = Effective::with_contributors(declared, observed, contributors);
    seal(
        EFFECTIVE_KIND,
        effective_body(&effective, declared),
        algorithm,
    )
}
