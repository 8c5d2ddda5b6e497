//! Reach against brute-force simple-path enumeration on small random graphs, and its
//! Lengauer–Tarjan dominators against petgraph's `simple_fast` on thousands of random graphs.

use std::collections::BTreeSet;

use beam_mcp::connectome::model::{EdgeKey, EdgeKind, Graph};
use beam_mcp::connectome::reach::{Reach, ReachError};
use petgraph::algo::dominators::simple_fast;
use petgraph::graph::{DiGraph, NodeIndex};

/// A small deterministic generator (xorshift64*), so every failure replays.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn id(i: usize) -> String {
    format!("fn:n{i}")
}

/// A random graph on `n` nodes with about `m` edges; some pairs get two edges of different
/// kinds, and self-loops occur.
fn random_graph(rng: &mut Rng, n: usize, m: usize) -> (Graph, Vec<(usize, usize)>) {
    let mut g = Graph::new();
    let mut pairs = Vec::new();
    for i in 0..n {
        g.add_node(beam_mcp::connectome::model::Node::new(
            id(i),
            beam_mcp::connectome::model::NodeKind::Function,
        ));
    }
    for _ in 0..m {
        let (a, b) = (rng.below(n), rng.below(n));
        let kind = if rng.below(4) == 0 {
            EdgeKind::ModuleCall
        } else {
            EdgeKind::Call
        };
        g.add_edge(EdgeKey::new(kind, id(a), id(b)));
        pairs.push((a, b));
    }
    (g, pairs)
}

/// Every simple path from `from` to `to`, as node lists.
fn simple_paths(adj: &[Vec<usize>], from: usize, to: usize) -> Vec<Vec<usize>> {
    fn go(
        adj: &[Vec<usize>],
        v: usize,
        to: usize,
        path: &mut Vec<usize>,
        out: &mut Vec<Vec<usize>>,
    ) {
        if v == to {
            out.push(path.clone());
            return;
        }
        for &w in &adj[v] {
            if !path.contains(&w) {
                path.push(w);
                go(adj, w, to, path, out);
                path.pop();
            }
        }
    }
    let mut out = Vec::new();
    go(adj, from, to, &mut vec![from], &mut out);
    out
}

fn adjacency(n: usize, pairs: &[(usize, usize)]) -> Vec<Vec<usize>> {
    let mut adj = vec![BTreeSet::new(); n];
    for &(a, b) in pairs {
        adj[a].insert(b);
    }
    adj.into_iter().map(|s| s.into_iter().collect()).collect()
}

fn check_witness(g: &Graph, path: &[EdgeKey], from: &str, to: &str, gates: &[&str]) {
    let mut at = from.to_owned();
    for key in path {
        assert!(
            g.contains_edge(key),
            "witness edge {key} is not the graph's"
        );
        assert_eq!(key.from, at, "witness is not a path");
        assert!(
            !gates.contains(&key.from.as_str()),
            "witness crosses a gate"
        );
        at = key.to.clone();
    }
    assert_eq!(at, to, "witness ends elsewhere");
    assert!(!gates.contains(&to));
}

#[test]
fn reach_matches_brute_force_on_small_random_graphs() {
    let mut rng = Rng(0x5eed_0001);
    for _ in 0..600 {
        let n = 2 + rng.below(6);
        let m = rng.below(3 * n);
        let (g, pairs) = random_graph(&mut rng, n, m);
        let adj = adjacency(n, &pairs);
        let reach = Reach::new(&g);
        for from in 0..n {
            for to in 0..n {
                let paths = simple_paths(&adj, from, to);
                let (f, t) = (id(from), id(to));
                assert_eq!(reach.reaches(&f, &t).unwrap(), !paths.is_empty());

                let gate = rng.below(n);
                let gid = id(gate);
                let avoiding = paths.iter().any(|p| !p.contains(&gate));
                let witness = reach.path_avoiding(&f, &t, &[&gid]).unwrap();
                assert_eq!(witness.is_some(), avoiding, "{f} -> {t} avoiding {gid}");
                if let Some(w) = &witness {
                    check_witness(&g, w, &f, &t, &[&gid]);
                    // BFS gives a shortest witness.
                    let shortest = paths
                        .iter()
                        .filter(|p| !p.contains(&gate))
                        .map(|p| p.len() - 1)
                        .min();
                    assert_eq!(Some(w.len()), shortest);
                }

                let dominated = !paths.is_empty() && paths.iter().all(|p| p.contains(&gate));
                assert_eq!(reach.dominates(&f, &gid, &t).unwrap(), dominated);

                let must: Option<BTreeSet<String>> = (!paths.is_empty()).then(|| {
                    (0..n)
                        .filter(|v| paths.iter().all(|p| p.contains(v)))
                        .map(id)
                        .collect()
                });
                let got = reach
                    .must_cross(&f, &t)
                    .unwrap()
                    .map(|c| c.into_iter().map(str::to_owned).collect::<BTreeSet<_>>());
                assert_eq!(got, must, "must_cross {f} -> {t}");
            }
        }
    }
}

#[test]
fn must_cross_is_ordered_from_entry_to_effect() {
    let mut g = Graph::new();
    for (a, b) in [
        ("a", "b"),
        ("b", "c"),
        ("b", "d"),
        ("c", "e"),
        ("d", "e"),
        ("e", "f"),
    ] {
        g.add_edge(EdgeKey::new(
            EdgeKind::Call,
            format!("fn:{a}"),
            format!("fn:{b}"),
        ));
    }
    let reach = Reach::new(&g);
    assert_eq!(
        reach.must_cross("fn:a", "fn:f").unwrap(),
        Some(vec!["fn:a", "fn:b", "fn:e", "fn:f"])
    );
    let dom = reach.dominators("fn:a").unwrap();
    assert_eq!(dom.root(), "fn:a");
    assert_eq!(dom.immediate_dominator("fn:e").unwrap(), Some("fn:b"));
    assert_eq!(dom.immediate_dominator("fn:a").unwrap(), None);
    assert_eq!(reach.must_cross("fn:f", "fn:a").unwrap(), None);
}

#[test]
fn witness_is_made_of_the_graphs_own_edges_across_kinds() {
    let mut g = Graph::new();
    g.add_dispatch_edge("pay");
    g.add_edge(EdgeKey::new(EdgeKind::Serves, "tool:pay", "fn:app::pay"));
    g.add_edge(EdgeKey::new(
        EdgeKind::ModuleCall,
        "fn:app::pay",
        "fn:app::charge",
    ));
    let reach = Reach::new(&g);
    let w = reach
        .path_avoiding("mcp:dispatch", "fn:app::charge", &[])
        .unwrap()
        .unwrap();
    assert_eq!(
        w,
        vec![
            EdgeKey::dispatch("pay"),
            EdgeKey::new(EdgeKind::Serves, "tool:pay", "fn:app::pay"),
            EdgeKey::new(EdgeKind::ModuleCall, "fn:app::pay", "fn:app::charge"),
        ]
    );
    assert_eq!(
        reach.path_avoiding("mcp:dispatch", "mcp:dispatch", &[]),
        Ok(Some(vec![]))
    );
    assert_eq!(
        reach.path_avoiding("mcp:dispatch", "tool:pay", &["tool:pay"]),
        Ok(None)
    );
}

#[test]
fn unknown_nodes_are_refused_by_name() {
    let mut g = Graph::new();
    g.add_dispatch_edge("a");
    let reach = Reach::new(&g);
    assert_eq!(
        reach.reaches("mcp:dispatch", "tool:zz"),
        Err(ReachError::UnknownNode {
            id: "tool:zz".into()
        })
    );
    assert!(reach.dominates("fn:x", "tool:a", "tool:a").is_err());
    assert!(reach
        .path_avoiding("mcp:dispatch", "tool:a", &["nope"])
        .is_err());
    // Ids are compared after NFC, as the graph stores them.
    g.add_dispatch_edge("cafe\u{301}");
    let reach = Reach::new(&g);
    assert!(reach.reaches("mcp:dispatch", "tool:caf\u{e9}").unwrap());
}

#[test]
fn dominators_match_petgraph_simple_fast_on_random_graphs() {
    let mut rng = Rng(0x5eed_0002);
    let mut compared = 0usize;
    for round in 0..3000 {
        let n = 1 + rng.below(if round % 10 == 0 { 400 } else { 40 });
        let m = rng.below(3 * n + 1);
        let (g, pairs) = random_graph(&mut rng, n, m);
        let mut pg: DiGraph<(), ()> = DiGraph::new();
        let ix: Vec<NodeIndex> = (0..n).map(|_| pg.add_node(())).collect();
        for &(a, b) in &pairs {
            pg.add_edge(ix[a], ix[b], ());
        }
        let root = rng.below(n);
        let theirs = simple_fast(&pg, ix[root]);
        let reach = Reach::new(&g);
        let ours = reach.dominators(&id(root)).unwrap();
        for (v, &node) in ix.iter().enumerate() {
            let expected = theirs.immediate_dominator(node).map(|d| id(d.index()));
            let got = ours.immediate_dominator(&id(v)).unwrap().map(str::to_owned);
            assert_eq!(got, expected, "round {round}: idom of {v} from {root}");
            compared += 1;
        }
    }
    assert!(compared > 30_000);
}

#[test]
fn deep_chains_do_not_overflow_the_stack() {
    let mut g = Graph::new();
    let n = 200_000;
    for i in 0..n {
        g.add_edge(EdgeKey::new(EdgeKind::Call, id(i), id(i + 1)));
    }
    let reach = Reach::new(&g);
    let chain = reach.must_cross(&id(0), &id(n)).unwrap().unwrap();
    assert_eq!(chain.len(), n + 1);
    assert!(reach.dominates(&id(0), &id(n / 2), &id(n)).unwrap());
}
