//! Reading sealed exports back: the inputs of `connectome effective`, `federated` and `diff`
//! (`docs/connectome-canonical.md` §6). Pure: bytes in, graphs out, no IO.
//!
//! An input is accepted only when [`verify`] accepts it (canonical bytes, schema version 2, a
//! known algorithm, a matching digest) and its body is exactly the shape the crate writes for
//! its `kind`: every node and edge object with exactly its members, every `kind` and `sign`
//! one of the names of `docs/connectome.md`, no node or edge identity twice, every edge
//! endpoint a listed node, and on an observed graph every edge with an integer `count` ≥ 1
//! (on a declared graph, none). Anything else is refused with an [`ImportError`] naming it.

use std::collections::BTreeSet;
use std::fmt;

use serde_json::{Map, Value};

use super::canonical::{verify, CanonicalError};
use super::model::{EdgeKey, EdgeKind, Graph, Node, NodeKind, Sign};

/// A graph read from a sealed export, with the contributors a federated export names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Imported {
    /// The export's `kind`.
    pub kind: String,
    /// Its graph (`body.graph`).
    pub graph: Graph,
    /// `body.contributors`, for a `federated_observed` export; `None` otherwise.
    pub contributors: Option<Vec<String>>,
}

/// Which graph an input must carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// A `declared` export: edges without counts.
    Declared,
    /// An `observed` export: every edge with a count ≥ 1.
    Observed,
    /// An `observed` or a `federated_observed` export.
    ObservedOrFederated,
}

impl Role {
    fn accepts(self, kind: &str) -> bool {
        match self {
            Role::Declared => kind == "declared",
            Role::Observed => kind == "observed",
            Role::ObservedOrFederated => kind == "observed" || kind == "federated_observed",
        }
    }

    fn expected(self) -> &'static str {
        match self {
            Role::Declared => "declared",
            Role::Observed => "observed",
            Role::ObservedOrFederated => "observed or federated_observed",
        }
    }
}

/// Why a sealed export was refused as an input.
#[derive(Debug)]
#[non_exhaustive]
pub enum ImportError {
    /// The bytes are not a verified sealed document (digest, canonical form, version, …).
    Seal(CanonicalError),
    /// The export's `kind` is not the one this input takes.
    WrongKind {
        /// The kind found.
        found: String,
        /// The kind (or kinds) taken.
        expected: &'static str,
    },
    /// A member is missing, of the wrong type, or not one the crate writes there.
    Shape {
        /// Where (a JSON path such as `body.graph.edges[2]`).
        at: String,
        /// What is wrong.
        what: String,
    },
    /// A node `kind`, edge `kind` or `sign` that is not one of the vocabulary's names.
    UnknownName {
        /// Where.
        at: String,
        /// Which member (`kind` or `sign`).
        member: &'static str,
        /// The name found.
        name: String,
    },
    /// Two nodes with one id.
    DuplicateNode {
        /// The id.
        id: String,
    },
    /// Two edges with one identity (kind, from, to).
    DuplicateEdge {
        /// The edge.
        edge: String,
    },
    /// An edge whose endpoint is not a listed node.
    DanglingEndpoint {
        /// The edge.
        edge: String,
        /// The missing node id.
        id: String,
    },
    /// An edge `count` that this input may not carry: none on a declared graph, an integer
    /// ≥ 1 on an observed one.
    Count {
        /// The edge.
        edge: String,
        /// What is wrong.
        what: &'static str,
    },
}

impl fmt::Display for ImportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ImportError::Seal(e) => write!(f, "not a verified sealed export: {e}"),
            ImportError::WrongKind { found, expected } => {
                write!(f, "export kind {found:?}, expected {expected}")
            }
            ImportError::Shape { at, what } => write!(f, "{at}: {what}"),
            ImportError::UnknownName { at, member, name } => {
                write!(f, "{at}: unknown {member} {name:?}")
            }
            ImportError::DuplicateNode { id } => write!(f, "node {id:?} listed twice"),
            ImportError::DuplicateEdge { edge } => write!(f, "edge {edge} listed twice"),
            ImportError::DanglingEndpoint { edge, id } => {
                write!(f, "edge {edge}: endpoint {id:?} is not a listed node")
            }
            ImportError::Count { edge, what } => write!(f, "edge {edge}: {what}"),
        }
    }
}

impl std::error::Error for ImportError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ImportError::Seal(e) => Some(e),
            _ => None,
        }
    }
}

impl From<CanonicalError> for ImportError {
    fn from(e: CanonicalError) -> Self {
        ImportError::Seal(e)
    }
}

/// Verifies `bytes` and reads the graph of an export of `role`'s kind.
///
/// # Errors
/// [`ImportError`], naming the first thing refused.
pub fn import(bytes: &[u8], role: Role) -> Result<Imported, ImportError> {
    let verified = verify(bytes)?;
    if !role.accepts(&verified.kind) {
        return Err(ImportError::WrongKind {
            found: verified.kind,
            expected: role.expected(),
        });
    }
    let body = object(&verified.body, "body")?;
    let federated = verified.kind == "federated_observed";
    let allowed: &[&str] = match verified.kind.as_str() {
        "declared" => &["completeness", "graph"],
        "observed" => &["graph"],
        _ => &["contributors", "graph"],
    };
    exact_members(body, allowed, "body")?;
    if let Some(completeness) = body.get("completeness") {
        read_completeness(completeness)?;
    }
    let counted = role != Role::Declared;
    let graph = read_graph(member(body, "graph", "body")?, counted)?;
    let contributors = if federated {
        Some(read_contributors(member(body, "contributors", "body")?)?)
    } else {
        None
    };
    Ok(Imported {
        kind: verified.kind,
        graph,
        contributors,
    })
}

fn shape(at: &str, what: impl Into<String>) -> ImportError {
    ImportError::Shape {
        at: at.to_owned(),
        what: what.into(),
    }
}

fn object<'a>(v: &'a Value, at: &str) -> Result<&'a Map<String, Value>, ImportError> {
    v.as_object().ok_or_else(|| shape(at, "not an object"))
}

fn array<'a>(v: &'a Value, at: &str) -> Result<&'a Vec<Value>, ImportError> {
    v.as_array().ok_or_else(|| shape(at, "not an array"))
}

fn member<'a>(m: &'a Map<String, Value>, key: &str, at: &str) -> Result<&'a Value, ImportError> {
    m.get(key)
        .ok_or_else(|| shape(at, format!("lacks member {key:?}")))
}

fn string<'a>(m: &'a Map<String, Value>, key: &str, at: &str) -> Result<&'a str, ImportError> {
    member(m, key, at)?
        .as_str()
        .ok_or_else(|| shape(at, format!("member {key:?} is not a string")))
}

fn nullable(m: &Map<String, Value>, key: &str, at: &str) -> Result<Option<String>, ImportError> {
    match member(m, key, at)? {
        Value::Null => Ok(None),
        Value::String(s) => Ok(Some(s.clone())),
        _ => Err(shape(
            at,
            format!("member {key:?} is neither null nor a string"),
        )),
    }
}

fn exact_members(m: &Map<String, Value>, allowed: &[&str], at: &str) -> Result<(), ImportError> {
    if let Some(extra) = m.keys().find(|k| !allowed.contains(&k.as_str())) {
        return Err(shape(
            at,
            format!("member {extra:?} is not one of {allowed:?}"),
        ));
    }
    Ok(())
}

/// The node kind named `name`, if it is one ([`NodeKind::from_name`]).
pub fn node_kind(name: &str) -> Option<NodeKind> {
    NodeKind::from_name(name)
}

/// The edge kind named `name`, if it is one ([`EdgeKind::from_name`]).
pub fn edge_kind(name: &str) -> Option<EdgeKind> {
    EdgeKind::from_name(name)
}

/// The sign named `name`, if it is one ([`Sign::from_name`]: the verdicts are named in the
/// model alone).
pub fn sign(name: &str) -> Option<Sign> {
    Sign::from_name(name)
}

fn read_graph(v: &Value, counted: bool) -> Result<Graph, ImportError> {
    let g = object(v, "body.graph")?;
    exact_members(g, &["edges", "nodes"], "body.graph")?;
    let mut graph = Graph::new();
    let mut ids = BTreeSet::new();
    for (i, n) in array(member(g, "nodes", "body.graph")?, "body.graph.nodes")?
        .iter()
        .enumerate()
    {
        let at = format!("body.graph.nodes[{i}]");
        let n = object(n, &at)?;
        exact_members(n, &["id", "kind", "module", "package"], &at)?;
        let id = string(n, "id", &at)?;
        let kind_name = string(n, "kind", &at)?;
        let kind = node_kind(kind_name).ok_or_else(|| ImportError::UnknownName {
            at: at.clone(),
            member: "kind",
            name: kind_name.to_owned(),
        })?;
        if !ids.insert(id.to_owned()) {
            return Err(ImportError::DuplicateNode { id: id.to_owned() });
        }
        let mut node = Node::new(id, kind);
        node.module = nullable(n, "module", &at)?;
        node.package = nullable(n, "package", &at)?;
        graph.add_node(node);
    }
    let mut keys = BTreeSet::new();
    for (i, e) in array(member(g, "edges", "body.graph")?, "body.graph.edges")?
        .iter()
        .enumerate()
    {
        let at = format!("body.graph.edges[{i}]");
        let e = object(e, &at)?;
        let allowed: &[&str] = if counted {
            &["count", "from", "kind", "sign", "to"]
        } else {
            &["from", "kind", "sign", "to"]
        };
        let kind_name = string(e, "kind", &at)?;
        let kind = edge_kind(kind_name).ok_or_else(|| ImportError::UnknownName {
            at: at.clone(),
            member: "kind",
            name: kind_name.to_owned(),
        })?;
        let key = EdgeKey::new(kind, string(e, "from", &at)?, string(e, "to", &at)?);
        let edge = key.to_string();
        if !counted && e.contains_key("count") {
            return Err(ImportError::Count {
                edge,
                what: "a declared edge carries no count",
            });
        }
        exact_members(e, allowed, &at)?;
        let sign_name = string(e, "sign", &at)?;
        let sign = sign(sign_name).ok_or_else(|| ImportError::UnknownName {
            at: at.clone(),
            member: "sign",
            name: sign_name.to_owned(),
        })?;
        for id in [&key.from, &key.to] {
            if !ids.contains(id) {
                return Err(ImportError::DanglingEndpoint {
                    edge: edge.clone(),
                    id: id.clone(),
                });
            }
        }
        if !keys.insert(key.clone()) {
            return Err(ImportError::DuplicateEdge { edge });
        }
        if counted {
            let count = match e.get("count") {
                None => {
                    return Err(ImportError::Count {
                        edge,
                        what: "an observed edge lacks its count",
                    })
                }
                Some(c) => c.as_u64().ok_or(ImportError::Count {
                    edge: edge.clone(),
                    what: "count is not an integer ≥ 1",
                })?,
            };
            if count == 0 {
                return Err(ImportError::Count {
                    edge,
                    what: "count is not an integer ≥ 1",
                });
            }
            graph.add_count(key.clone(), count);
        } else {
            graph.add_edge(key.clone());
        }
        graph.set_sign(&key, sign);
    }
    Ok(graph)
}

/// A declared export's `completeness`: exactly its three lists (their entries are not an
/// input of anything built from files, so only their place is checked).
fn read_completeness(v: &Value) -> Result<(), ImportError> {
    let at = "body.completeness";
    let lists = ["dynamic_dispatch", "outside_scope", "unreadable"];
    let c = object(v, at)?;
    exact_members(c, &lists, at)?;
    for list in lists {
        array(member(c, list, at)?, &format!("{at}.{list}"))?;
    }
    Ok(())
}

fn read_contributors(v: &Value) -> Result<Vec<String>, ImportError> {
    let at = "body.contributors";
    let names = array(v, at)?
        .iter()
        .map(|n| {
            n.as_str()
                .map(str::to_owned)
                .ok_or_else(|| shape(at, "a contributor is not a string"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let sorted: BTreeSet<&String> = names.iter().collect();
    if sorted.len() != names.len() || !sorted.into_iter().eq(names.iter()) {
        return Err(shape(at, "not in code point order, each once"));
    }
    Ok(names)
}
