//! Reach queries on a 100,000-edge graph: indexing, reachability, a gate-avoiding witness
//! path, the dominator tree (Lengauer–Tarjan) and a must-cross chain. The graph is a layered
//! random call graph: `mcp:dispatch` → 500 tools → 19,500 functions, 100,000 edges in all,
//! generated from a fixed seed.

use std::hint::black_box;

use beam_mcp::connectome::model::{EdgeKey, EdgeKind, Graph};
use beam_mcp::connectome::reach::Reach;
use criterion::{criterion_group, criterion_main, Criterion};

const TOOLS: usize = 500;
const FUNCTIONS: usize = 19_500;
const EDGES: usize = 100_000;

fn graph() -> Graph {
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move |n: usize| {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        (state.wrapping_mul(0x2545_f491_4f6c_dd1d) % n as u64) as usize
    };
    let mut g = Graph::new();
    for t in 0..TOOLS {
        g.add_dispatch_edge(&format!("t{t}"));
        g.add_edge(EdgeKey::new(
            EdgeKind::Serves,
            format!("tool:t{t}"),
            format!("fn:f{}", next(FUNCTIONS)),
        ));
    }
    // Calls mostly go "down" (to a higher index), with some back edges, as real code does.
    while g.edge_count() < EDGES {
        let a = next(FUNCTIONS);
        let b = if next(10) == 0 {
            next(FUNCTIONS)
        } else {
            (a + 1 + next(200)).min(FUNCTIONS - 1)
        };
        g.add_edge(EdgeKey::new(
            EdgeKind::Call,
            format!("fn:f{a}"),
            format!("fn:f{b}"),
        ));
    }
    g
}

fn bench(c: &mut Criterion) {
    let g = graph();
    assert_eq!(g.edge_count(), EDGES);
    let reach = Reach::new(&g);
    let effect = format!("fn:f{}", FUNCTIONS - 1);
    let gate = "fn:f9000";
    assert!(reach.reaches("mcp:dispatch", &effect).unwrap());
    let mut group = c.benchmark_group("connectome_reach_100k_edges");
    group.sample_size(10);
    group.bench_function("index (Reach::new)", |b| {
        b.iter(|| Reach::new(black_box(&g)))
    });
    group.bench_function("reaches", |b| {
        b.iter(|| reach.reaches(black_box("mcp:dispatch"), black_box(&effect)))
    });
    group.bench_function("path_avoiding (one gate, witness)", |b| {
        b.iter(|| reach.path_avoiding(black_box("mcp:dispatch"), black_box(&effect), &[gate]))
    });
    group.bench_function("dominators (Lengauer-Tarjan)", |b| {
        b.iter(|| {
            reach
                .dominators(black_box("mcp:dispatch"))
                .map(|d| black_box(d.root().len()))
        })
    });
    group.bench_function("dominates", |b| {
        b.iter(|| reach.dominates(black_box("mcp:dispatch"), gate, black_box(&effect)))
    });
    group.bench_function("must_cross", |b| {
        b.iter(|| {
            reach
                .must_cross(black_box("mcp:dispatch"), black_box(&effect))
                .map(|c| c.map(|v| v.len()))
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
