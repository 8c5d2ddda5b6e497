//! Reachability over a connectome graph: can an entry reach an effect, can it without crossing
//! a gate (with a witness path of the graph's own edges), does a gate dominate an effect, and
//! which nodes every path must cross. Pure: no IO. Specified in `docs/connectome-reach.md`.
//!
//! Every edge counts as a way through, whatever its kind or sign: the questions are about what
//! the wiring permits, not about anyone's verdict on it.
//!
//! ```
//! use beam_mcp::connectome::model::{EdgeKey, EdgeKind, Graph};
//! use beam_mcp::connectome::reach::Reach;
//!
//! let mut g = Graph::new();
//! g.add_dispatch_edge("pay");
//! g.add_edge(EdgeKey::new(EdgeKind::Serves, "tool:pay", "fn:app::pay"));
//! g.add_edge(EdgeKey::new(EdgeKind::Call, "fn:app::pay", "fn:app::check"));
//! g.add_edge(EdgeKey::new(EdgeKind::Call, "fn:app::check", "fn:app::charge"));
//! let reach = Reach::new(&g);
//!
//! assert!(reach.reaches("mcp:dispatch", "fn:app::charge").unwrap());
//! assert!(reach.dominates("mcp:dispatch", "fn:app::check", "fn:app::charge").unwrap());
//! assert_eq!(reach.path_avoiding("mcp:dispatch", "fn:app::charge", &["fn:app::check"]).unwrap(), None);
//!
//! // A second way in that skips the check:
//! g.add_edge(EdgeKey::new(EdgeKind::Call, "fn:app::pay", "fn:app::charge"));
//! let reach = Reach::new(&g);
//! let witness = reach
//!     .path_avoiding("mcp:dispatch", "fn:app::charge", &["fn:app::check"])
//!     .unwrap()
//!     .unwrap();
//! assert_eq!(witness.len(), 3);
//! assert_eq!(witness[2], EdgeKey::new(EdgeKind::Call, "fn:app::pay", "fn:app::charge"));
//! ```

use std::collections::{HashMap, VecDeque};
use std::fmt;

use super::model::{EdgeKey, Graph};

const NONE: u32 = u32::MAX;

/// Why a query could not be answered.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ReachError {
    /// A node id the graph does not hold (ids are compared after NFC, as the graph stores them).
    UnknownNode {
        /// The id asked for.
        id: String,
    },
}

impl fmt::Display for ReachError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReachError::UnknownNode { id } => write!(f, "the graph holds no node {id:?}"),
        }
    }
}

impl std::error::Error for ReachError {}

/// A graph indexed for reachability queries: nodes numbered in id order, successor and
/// predecessor lists in compressed form. Building it is linear in nodes and edges.
#[derive(Debug, Clone)]
pub struct Reach {
    ids: Vec<String>,
    index: HashMap<String, u32>,
    edges: Vec<EdgeKey>,
    // Compressed successor lists: `succ[succ_at[v]..succ_at[v + 1]]` are `(target, edge)`.
    succ_at: Vec<u32>,
    succ: Vec<(u32, u32)>,
    pred_at: Vec<u32>,
    pred: Vec<u32>,
}

impl Reach {
    /// Indexes `graph`.
    pub fn new(graph: &Graph) -> Reach {
        let ids: Vec<String> = graph.nodes().map(|n| n.id.clone()).collect();
        let index: HashMap<String, u32> = ids
            .iter()
            .enumerate()
            .map(|(i, id)| (id.clone(), to_u32(i)))
            .collect();
        let edges: Vec<EdgeKey> = graph.edges().map(|(k, _)| k.clone()).collect();
        let n = ids.len();
        let ends: Vec<(u32, u32)> = edges
            .iter()
            .map(|k| (index[&k.from], index[&k.to]))
            .collect();
        let mut succ_at = vec![0u32; n + 1];
        let mut pred_at = vec![0u32; n + 1];
        for &(from, to) in &ends {
            succ_at[from as usize + 1] += 1;
            pred_at[to as usize + 1] += 1;
        }
        for v in 0..n {
            succ_at[v + 1] += succ_at[v];
            pred_at[v + 1] += pred_at[v];
        }
        let mut succ = vec![(0u32, 0u32); ends.len()];
        let mut pred = vec![0u32; ends.len()];
        let mut s_fill = succ_at.clone();
        let mut p_fill = pred_at.clone();
        for (e, &(from, to)) in ends.iter().enumerate() {
            succ[s_fill[from as usize] as usize] = (to, to_u32(e));
            s_fill[from as usize] += 1;
            pred[p_fill[to as usize] as usize] = from;
            p_fill[to as usize] += 1;
        }
        Reach {
            ids,
            index,
            edges,
            succ_at,
            succ,
            pred_at,
            pred,
        }
    }

    /// Number of nodes indexed.
    pub fn node_count(&self) -> usize {
        self.ids.len()
    }

    /// Number of edges indexed.
    pub fn edge_count(&self) -> usize {
        self.edges.len()
    }

    fn node(&self, id: &str) -> Result<u32, ReachError> {
        let nfc: String = unicode_normalization::UnicodeNormalization::nfc(id).collect();
        self.index
            .get(&nfc)
            .copied()
            .ok_or_else(|| ReachError::UnknownNode { id: id.to_owned() })
    }

    fn successors(&self, v: u32) -> &[(u32, u32)] {
        &self.succ[self.succ_at[v as usize] as usize..self.succ_at[v as usize + 1] as usize]
    }

    fn predecessors(&self, v: u32) -> &[u32] {
        &self.pred[self.pred_at[v as usize] as usize..self.pred_at[v as usize + 1] as usize]
    }

    /// Whether some path (of zero or more edges) leads from `entry` to `effect`.
    ///
    /// # Errors
    /// [`ReachError::UnknownNode`] when either id is not in the graph.
    pub fn reaches(&self, entry: &str, effect: &str) -> Result<bool, ReachError> {
        Ok(self.path_avoiding(entry, effect, &[])?.is_some())
    }

    /// A shortest path from `entry` to `effect` that crosses none of `gates`, as the graph's own
    /// edges in order; `None` when there is none. A gate that is the entry or the effect is
    /// crossed by every path. The path from a node to itself is empty.
    ///
    /// # Errors
    /// [`ReachError::UnknownNode`] when `entry`, `effect` or a gate is not in the graph.
    pub fn path_avoiding(
        &self,
        entry: &str,
        effect: &str,
        gates: &[&str],
    ) -> Result<Option<Vec<EdgeKey>>, ReachError> {
        let entry = self.node(entry)?;
        let effect = self.node(effect)?;
        let mut blocked = vec![false; self.ids.len()];
        for gate in gates {
            blocked[self.node(gate)? as usize] = true;
        }
        if blocked[entry as usize] || blocked[effect as usize] {
            return Ok(None);
        }
        // BFS; `via[v]` is the edge that first reached v.
        let mut via = vec![NONE; self.ids.len()];
        let mut seen = blocked;
        seen[entry as usize] = true;
        let mut queue = VecDeque::from([entry]);
        while let Some(v) = queue.pop_front() {
            if v == effect {
                break;
            }
            for &(w, e) in self.successors(v) {
                if !seen[w as usize] {
                    seen[w as usize] = true;
                    via[w as usize] = e;
                    queue.push_back(w);
                }
            }
        }
        if entry != effect && via[effect as usize] == NONE {
            return Ok(None);
        }
        let mut path = Vec::new();
        let mut v = effect;
        while v != entry {
            let key = &self.edges[via[v as usize] as usize];
            path.push(key.clone());
            v = self.index[&key.from];
        }
        path.reverse();
        Ok(Some(path))
    }

    /// The dominator tree of everything reachable from `entry`, by Lengauer–Tarjan.
    ///
    /// # Errors
    /// [`ReachError::UnknownNode`] when `entry` is not in the graph.
    pub fn dominators(&self, entry: &str) -> Result<Dominators<'_>, ReachError> {
        let root = self.node(entry)?;
        Ok(Dominators {
            reach: self,
            root,
            idom: lengauer_tarjan(self, root),
        })
    }

    /// Whether every path from `entry` to `effect` crosses `gate` (the entry and the effect
    /// are on every path). `false` when `effect` is not reachable at all: there is no path for
    /// a gate to stand on — ask [`Reach::reaches`] to tell the two apart.
    ///
    /// # Errors
    /// [`ReachError::UnknownNode`] when any of the three ids is not in the graph.
    pub fn dominates(&self, entry: &str, gate: &str, effect: &str) -> Result<bool, ReachError> {
        let gate_ix = self.node(gate)?;
        self.dominators(entry)?
            .dominates_ix(gate_ix, self.node(effect)?)
    }

    /// The nodes every path from `entry` to `effect` must cross, from `entry` to `effect`
    /// inclusive (the dominator chain); `None` when `effect` is not reachable.
    ///
    /// # Errors
    /// [`ReachError::UnknownNode`] when either id is not in the graph.
    pub fn must_cross(&self, entry: &str, effect: &str) -> Result<Option<Vec<&str>>, ReachError> {
        self.dominators(entry)?.must_cross(effect)
    }
}

/// The dominator tree of a [`Reach`] index from one entry.
#[derive(Debug, Clone)]
pub struct Dominators<'a> {
    reach: &'a Reach,
    root: u32,
    // idom[v]: immediate dominator; the root is its own; NONE for unreachable nodes.
    idom: Vec<u32>,
}

impl<'a> Dominators<'a> {
    /// The entry the tree is rooted at.
    pub fn root(&self) -> &'a str {
        &self.reach.ids[self.root as usize]
    }

    /// The immediate dominator of `node`: `None` for the entry itself and for a node the entry
    /// does not reach.
    ///
    /// # Errors
    /// [`ReachError::UnknownNode`] when `node` is not in the graph.
    pub fn immediate_dominator(&self, node: &str) -> Result<Option<&'a str>, ReachError> {
        let v = self.reach.node(node)?;
        let d = self.idom[v as usize];
        Ok((d != NONE && v != self.root).then(|| self.reach.ids[d as usize].as_str()))
    }

    /// Whether every path from the entry to `effect` crosses `gate`; `false` when the entry
    /// does not reach `effect`.
    ///
    /// # Errors
    /// [`ReachError::UnknownNode`] when either id is not in the graph.
    pub fn dominates(&self, gate: &str, effect: &str) -> Result<bool, ReachError> {
        self.dominates_ix(self.reach.node(gate)?, self.reach.node(effect)?)
    }

    fn dominates_ix(&self, gate: u32, effect: u32) -> Result<bool, ReachError> {
        if self.idom[effect as usize] == NONE {
            return Ok(false);
        }
        let mut v = effect;
        loop {
            if v == gate {
                return Ok(true);
            }
            if v == self.root {
                return Ok(false);
            }
            v = self.idom[v as usize];
        }
    }

    /// The dominator chain from the entry to `effect`, both included; `None` when the entry
    /// does not reach `effect`.
    ///
    /// # Errors
    /// [`ReachError::UnknownNode`] when `effect` is not in the graph.
    pub fn must_cross(&self, effect: &str) -> Result<Option<Vec<&'a str>>, ReachError> {
        let mut v = self.reach.node(effect)?;
        if self.idom[v as usize] == NONE {
            return Ok(None);
        }
        let mut chain = vec![self.reach.ids[v as usize].as_str()];
        while v != self.root {
            v = self.idom[v as usize];
            chain.push(self.reach.ids[v as usize].as_str());
        }
        chain.reverse();
        Ok(Some(chain))
    }
}

fn to_u32(i: usize) -> u32 {
    // A graph with 2^32 nodes or edges does not fit in memory as `String`s and `EdgeKey`s.
    u32::try_from(i).unwrap_or(NONE - 1)
}

/// Lengauer–Tarjan with path compression ("simple" linking), O(m log n). Works on DFS numbers;
/// iterative throughout, so deep graphs cannot overflow the stack.
fn lengauer_tarjan(reach: &Reach, root: u32) -> Vec<u32> {
    let n = reach.ids.len();
    let mut dfnum = vec![NONE; n];
    let mut vertex: Vec<u32> = Vec::with_capacity(n);
    let mut parent: Vec<u32> = Vec::with_capacity(n);

    // Preorder DFS; each stack frame is (node, next successor offset).
    dfnum[root as usize] = 0;
    vertex.push(root);
    parent.push(NONE);
    let mut stack: Vec<(u32, usize)> = vec![(root, 0)];
    while let Some(frame) = stack.last_mut() {
        let (v, next) = *frame;
        let succ = reach.successors(v);
        if next < succ.len() {
            frame.1 += 1;
            let w = succ[next].0;
            if dfnum[w as usize] == NONE {
                dfnum[w as usize] = to_u32(vertex.len());
                vertex.push(w);
                parent.push(dfnum[v as usize]);
                stack.push((w, 0));
            }
        } else {
            stack.pop();
        }
    }

    let count = vertex.len();
    let mut semi: Vec<u32> = (0..count).map(to_u32).collect();
    let mut label: Vec<u32> = semi.clone();
    let mut ancestor = vec![NONE; count];
    let mut idom = vec![NONE; count];
    let mut bucket: Vec<Vec<u32>> = vec![Vec::new(); count];
    let mut path: Vec<u32> = Vec::new();

    for w in (1..count).rev() {
        for &p in reach.predecessors(vertex[w]) {
            let v = dfnum[p as usize];
            if v == NONE {
                continue;
            }
            let u = eval(v, &mut ancestor, &mut label, &semi, &mut path);
            if semi[u as usize] < semi[w] {
                semi[w] = semi[u as usize];
            }
        }
        bucket[semi[w] as usize].push(to_u32(w));
        let pw = parent[w];
        ancestor[w] = pw;
        for v in std::mem::take(&mut bucket[pw as usize]) {
            let u = eval(v, &mut ancestor, &mut label, &semi, &mut path);
            idom[v as usize] = if semi[u as usize] < semi[v as usize] {
                u
            } else {
                pw
            };
        }
    }
    for w in 1..count {
        if idom[w] != semi[w] {
            idom[w] = idom[idom[w] as usize];
        }
    }

    let mut out = vec![NONE; n];
    out[root as usize] = root;
    for w in 1..count {
        out[vertex[w] as usize] = vertex[idom[w] as usize];
    }
    out
}

fn eval(v: u32, ancestor: &mut [u32], label: &mut [u32], semi: &[u32], path: &mut Vec<u32>) -> u32 {
    if ancestor[v as usize] == NONE {
        return v;
    }
    path.clear();
    let mut u = v;
    while ancestor[ancestor[u as usize] as usize] != NONE {
        path.push(u);
        u = ancestor[u as usize];
    }
    while let Some(x) = path.pop() {
        let a = ancestor[x as usize] as usize;
        if semi[label[a] as usize] < semi[label[x as usize] as usize] {
            label[x as usize] = label[a];
        }
        ancestor[x as usize] = ancestor[a];
    }
    label[v as usize]
}
