//! The three export documents — declared, observed, diff — as sealed canonical bytes.
//!
//! Each is `{"body": …, "digest": …, "digest_algorithm": …, "kind": …, "schema_version": 2}`
//! (see [`super::canonical::seal`]); the bodies are specified in `docs/connectome-canonical.md`.
//!
//! [`graph_json`], the shape of a graph in every export, is shared: the effective and the
//! federated exports (`effective`, `federation`) build on this module, and it on neither.

use serde_json::{json, Map, Value};

use super::canonical::{seal, CanonicalError, DigestAlgorithm, Sealed};
use super::declared::{BoundEntry, Declared};
use super::diff::Diff;
use super::model::{EdgeAttrs, EdgeKey, Graph};

/// Which export.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ExportKind {
    /// The declared graph and its completeness bound.
    Declared,
    /// The observed graph, with counts.
    Observed,
    /// The diff of the two.
    Diff,
    /// The declared graph weighted by the observed counts (`docs/connectome-effective.md`).
    Effective,
}

impl ExportKind {
    /// The name written in `kind`.
    pub const fn as_str(self) -> &'static str {
        match self {
            ExportKind::Declared => "declared",
            ExportKind::Observed => "observed",
            ExportKind::Diff => "diff",
            ExportKind::Effective => "effective",
        }
    }
}

fn opt(v: &Option<String>) -> Value {
    v.as_ref().map_or(Value::Null, |s| Value::String(s.clone()))
}

fn edge_json(key: &EdgeKey, attrs: Option<&EdgeAttrs>) -> Value {
    let mut m = Map::new();
    m.insert("from".into(), Value::String(key.from.clone()));
    m.insert("kind".into(), Value::String(key.kind.as_str().into()));
    m.insert("to".into(), Value::String(key.to.clone()));
    if let Some(attrs) = attrs {
        m.insert("sign".into(), Value::String(attrs.sign.as_str().into()));
        if let Some(count) = attrs.count {
            m.insert("count".into(), Value::from(count));
        }
    }
    Value::Object(m)
}

/// A graph as JSON: `{"edges": [...], "nodes": [...]}`, both in the graph's order.
pub fn graph_json(graph: &Graph) -> Value {
    let nodes: Vec<Value> = graph
        .nodes()
        .map(|n| {
            json!({
                "id": n.id,
                "kind": n.kind.as_str(),
                "module": opt(&n.module),
                "package": opt(&n.package),
            })
        })
        .collect();
    let edges: Vec<Value> = graph
        .edges()
        .map(|(key, attrs)| edge_json(key, Some(attrs)))
        .collect();
    json!({ "edges": edges, "nodes": nodes })
}

fn bound_entries(entries: &[BoundEntry]) -> Value {
    Value::Array(
        entries
            .iter()
            .map(|e| {
                json!({
                    "callee": e.callee,
                    "caller": opt(&e.caller),
                    "column": e.column,
                    "file": opt(&e.file),
                    "line": e.line,
                    "reason": e.reason.as_str(),
                })
            })
            .collect(),
    )
}

/// The body of a declared export.
pub fn declared_body(declared: &Declared) -> Value {
    let bound = declared.bound();
    json!({
        "completeness": {
            "dynamic_dispatch": bound_entries(&bound.dynamic_dispatch),
            "outside_scope": bound_entries(&bound.outside_scope),
            "unreadable": bound_entries(&bound.unreadable),
        },
        "graph": graph_json(declared.graph()),
    })
}

/// The body of an observed export.
pub fn observed_body(observed: &Graph) -> Value {
    json!({ "graph": graph_json(observed) })
}

/// The body of a diff export.
pub fn diff_body(diff: &Diff) -> Value {
    let keys = |v: &[EdgeKey]| -> Value { v.iter().map(|k| edge_json(k, None)).collect() };
    let changed: Vec<Value> = diff
        .changed_sign()
        .iter()
        .map(|c| {
            let mut e = edge_json(&c.key, None);
            if let Value::Object(m) = &mut e {
                m.insert("declared_sign".into(), c.declared.as_str().into());
                m.insert("observed_sign".into(), c.observed.as_str().into());
            }
            e
        })
        .collect();
    let coverage: Map<String, Value> = diff
        .coverage()
        .named()
        .iter()
        .map(|(k, v)| ((*k).to_owned(), Value::from(*v)))
        .collect();
    json!({
        "classes": {
            "changed_sign": changed,
            "dead_authority": keys(diff.dead_authority()),
            "drift": keys(diff.drift()),
            "matched": keys(diff.matched()),
        },
        "coverage": coverage,
    })
}

/// The sealed declared export.
///
/// # Errors
/// [`CanonicalError`] when a string or number cannot be written canonically (counts beyond
/// 2^53 − 1, keys equal after NFC).
pub fn declared_export(
    declared: &Declared,
    algorithm: DigestAlgorithm,
) -> Result<Sealed, CanonicalError> {
    seal(
        ExportKind::Declared.as_str(),
        declared_body(declared),
        algorithm,
    )
}

/// The sealed observed export.
///
/// # Errors
/// As [`declared_export`].
pub fn observed_export(
    observed: &Graph,
    algorithm: DigestAlgorithm,
) -> Result<Sealed, CanonicalError> {
    seal(
        ExportKind::Observed.as_str(),
        observed_body(observed),
        algorithm,
    )
}

/// The sealed diff export.
///
/// # Errors
/// As [`declared_export`].
pub fn diff_export(diff: &Diff, algorithm: DigestAlgorithm) -> Result<Sealed, CanonicalError> {
    seal(ExportKind::Diff.as_str(), diff_body(diff), algorithm)
}
