//! The collector: the edge counters the dispatch site and the layer record into, shared by
//! every clone of a [`Collector`].

use std::borrow::Borrow;
use std::fmt;
use std::hash::Hash;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use dashmap::DashMap;

use crate::connectome::model::{module_node_id, EdgeKey, EdgeKind, Graph, ObservedGraph};

/// The default bound on distinct edges of each kind a collector keeps.
pub const DEFAULT_MAX_EDGES: usize = 4096;

/// Edge counters, shared by every clone. Detached on creation.
#[derive(Clone, Default)]
pub struct Collector {
    inner: Arc<Inner>,
}

struct Inner {
    attached: AtomicBool,
    max_edges: usize,
    dispatch: DashMap<Box<str>, AtomicU64>,
    /// Dispatches dropped before the host answered, by tool: not observations of the edge.
    cancelled: DashMap<Box<str>, AtomicU64>,
    modules: DashMap<(&'static str, &'static str), AtomicU64>,
    overflow: AtomicU64,
}

impl Default for Inner {
    fn default() -> Self {
        Inner {
            attached: AtomicBool::new(false),
            max_edges: DEFAULT_MAX_EDGES,
            dispatch: DashMap::new(),
            cancelled: DashMap::new(),
            modules: DashMap::new(),
            overflow: AtomicU64::new(0),
        }
    }
}

impl fmt::Debug for Collector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Collector")
            .field("attached", &self.is_attached())
            .field("dispatch_edges", &self.inner.dispatch.len())
            .field("module_edges", &self.inner.modules.len())
            .field("overflow", &self.overflow())
            .finish()
    }
}

impl Collector {
    /// A detached collector keeping at most [`DEFAULT_MAX_EDGES`] edges of each kind.
    pub fn new() -> Self {
        Collector::default()
    }

    /// A detached collector keeping at most `max_edges` distinct edges of each kind; an
    /// observation of a new edge beyond that is counted in [`Collector::overflow`] instead.
    pub fn with_max_edges(max_edges: usize) -> Self {
        Collector {
            inner: Arc::new(Inner {
                max_edges,
                ..Inner::default()
            }),
        }
    }

    /// Starts recording.
    pub fn attach(&self) {
        self.inner.attached.store(true, Ordering::Relaxed);
    }

    /// Stops recording; counts are kept.
    pub fn detach(&self) {
        self.inner.attached.store(false, Ordering::Relaxed);
    }

    /// Whether the collector records.
    pub fn is_attached(&self) -> bool {
        self.inner.attached.load(Ordering::Relaxed)
    }

    /// Records one `mcp:dispatch` → `tool:NAME` edge. The hot path: a relaxed load when
    /// detached; a lookup by `&str` and an atomic add, with no allocation, once the edge exists.
    #[inline]
    pub fn record_dispatch(&self, tool: &str) {
        self.count(&self.inner.dispatch, tool, || Box::from(tool));
    }

    /// Records one dispatch of `tool` dropped before the host answered (its caller cancelled
    /// or went away, or the pool's deadline passed). It is not an observation of the dispatch
    /// edge, whose count is the calls the host answered; [`Collector::cancelled`] reads it.
    /// Bounded like the edges: a new tool past `max_edges` counts in the overflow.
    pub fn record_cancelled(&self, tool: &str) {
        self.count(&self.inner.cancelled, tool, || Box::from(tool));
    }

    /// Dispatches of `tool` dropped before the host answered, since the last reset.
    pub fn cancelled(&self, tool: &str) -> u64 {
        self.inner
            .cancelled
            .get(tool)
            .map_or(0, |n| n.load(Ordering::Relaxed))
    }

    /// Records one `module:FROM` → `module:TO` edge (span targets are `'static`, so no
    /// allocation ever).
    pub fn record_module_edge(&self, from: &'static str, to: &'static str) {
        self.count(&self.inner.modules, &(from, to), || (from, to));
    }

    /// Adds one to `key`'s counter in `map`, while attached: found by a borrowed key, without
    /// allocating, once it exists; created (its key owned by `owned`) only below the bound,
    /// else counted in the overflow.
    #[inline]
    fn count<K, Q>(&self, map: &DashMap<K, AtomicU64>, key: &Q, owned: impl FnOnce() -> K)
    where
        K: Borrow<Q> + Eq + Hash,
        Q: Eq + Hash + ?Sized,
    {
        if !self.inner.attached.load(Ordering::Relaxed) {
            return;
        }
        if let Some(counter) = map.get(key) {
            counter.fetch_add(1, Ordering::Relaxed);
            return;
        }
        self.insert(map, owned);
    }

    #[cold]
    fn insert<K: Eq + Hash>(&self, map: &DashMap<K, AtomicU64>, owned: impl FnOnce() -> K) {
        if map.len() >= self.inner.max_edges {
            self.inner.overflow.fetch_add(1, Ordering::Relaxed);
            return;
        }
        map.entry(owned())
            .or_insert_with(|| AtomicU64::new(0))
            .fetch_add(1, Ordering::Relaxed);
    }

    /// Observations of new edges dropped because the bound was reached.
    pub fn overflow(&self) -> u64 {
        self.inner.overflow.load(Ordering::Relaxed)
    }

    /// The observed graph: every edge with a non-zero count, sign unset.
    pub fn snapshot(&self) -> ObservedGraph {
        let mut graph = Graph::new();
        for entry in self.inner.dispatch.iter() {
            let n = entry.value().load(Ordering::Relaxed);
            if n > 0 {
                graph.add_count(EdgeKey::dispatch(entry.key()), n);
            }
        }
        for entry in self.inner.modules.iter() {
            let n = entry.value().load(Ordering::Relaxed);
            if n > 0 {
                let (from, to) = *entry.key();
                graph.add_count(
                    EdgeKey::new(
                        EdgeKind::ModuleCall,
                        module_node_id(from),
                        module_node_id(to),
                    ),
                    n,
                );
            }
        }
        graph
    }

    /// Zeroes every count (keys are kept, so the hot path stays allocation-free) and the
    /// overflow count.
    pub fn reset(&self) {
        for entry in self.inner.dispatch.iter() {
            entry.value().store(0, Ordering::Relaxed);
        }
        for entry in self.inner.modules.iter() {
            entry.value().store(0, Ordering::Relaxed);
        }
        for entry in self.inner.cancelled.iter() {
            entry.value().store(0, Ordering::Relaxed);
        }
        self.inner.overflow.store(0, Ordering::Relaxed);
    }
}
