//! The federated observed export over three `ractor_cluster` nodes in this process (loopback):
//! the same bytes whichever node asks (so whatever order the answers arrive in), equal to the
//! federation of the three snapshots built directly, and a lost node absent from the
//! contributors.
//!
//! All three nodes live in one process, so the process-group registry is shared: a node's
//! sessions announce every peer of the process, and one node's peer may be asked through
//! several sessions. Merging is idempotent per node, so it counts once; that is part of what
//! this test shows.
//!
//! The group's membership is waited on as events (a watcher of the group), not polled.

use crate::GroupWatch;
use beam_mcp::connectome::canonical::{verify, DigestAlgorithm};
use beam_mcp::connectome::effective::federated_effective_export;
use beam_mcp::connectome::export::ExportKind;
use beam_mcp::connectome::federation::{federated_observed_export, Federation};
use beam_mcp::connectome::observed::Collector;
use beam_mcp::runtime::cluster::observed::{
    federate, ObservedMsg, ObservedPeer, ObservedPeerArgs, OBSERVED_GROUP,
};
use beam_mcp::runtime::cluster::{ClusterNode, NodeConfig};
use ractor::{Actor, ActorRef};
use serde_json::{json, Value};
use std::time::Duration;

const COOKIE: &str = "cluster-federation-test-cookie";
const LIMIT: Duration = Duration::from_secs(10);

fn collector(calls: &[(&str, usize)]) -> Collector {
    let c = Collector::new();
    c.attach();
    for (tool, n) in calls {
        for _ in 0..*n {
            c.record_dispatch(tool);
        }
    }
    c
}

fn remote_peers() -> usize {
    ractor::pg::get_members(&OBSERVED_GROUP.to_owned())
        .into_iter()
        .filter(|c| !c.get_id().is_local())
        .count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_nodes_federate_into_one_export_whichever_node_asks() {
    // ractor's process groups are process-wide: no other test's nodes while these run.
    let _nodes = crate::NODES.lock().await;
    let names = ["node_a", "node_b", "node_c"];
    let collectors = [
        collector(&[("get_weather", 3), ("get_forecast", 1)]),
        collector(&[("get_weather", 2)]),
        collector(&[("get_alerts", 4)]),
    ];
    let mut nodes = Vec::new();
    let mut peers: Vec<ActorRef<ObservedMsg>> = Vec::new();
    for (name, c) in names.iter().zip(&collectors) {
        nodes.push(
            ClusterNode::start(NodeConfig::new(*name, COOKIE))
                .await
                .expect("node starts"),
        );
        let node = nodes.last().expect("just started");
        let peer = if *name == "node_b" {
            // The node's own shorthand, contributing under its name.
            node.observe(c.clone()).await.expect("peer starts")
        } else {
            let args = ObservedPeerArgs {
                node: (*name).to_owned(),
                collector: c.clone(),
            };
            Actor::spawn(None, ObservedPeer, args)
                .await
                .expect("peer starts")
                .0
        };
        peers.push(peer);
    }
    let mut group = GroupWatch::start(OBSERVED_GROUP).await;
    nodes[1].connect(nodes[0].addr()).await.expect("B joins A");
    nodes[2].connect(nodes[0].addr()).await.expect("C joins A");
    assert!(
        group.until(LIMIT, || remote_peers() >= 3).await,
        "the peers are reachable through the sessions"
    );

    // Built directly from the three snapshots, in yet another order.
    let mut direct = Federation::new();
    for i in [2, 0, 1] {
        direct.contribute(names[i], &collectors[i].snapshot());
    }
    let expected = federated_observed_export(&direct, DigestAlgorithm::Sha256).unwrap();

    for (name, c) in names.iter().zip(&collectors) {
        let federation = federate((name, &c.snapshot()), LIMIT).await;
        let sealed = federated_observed_export(&federation, DigestAlgorithm::Sha256).unwrap();
        assert_eq!(
            String::from_utf8_lossy(&sealed.bytes),
            String::from_utf8_lossy(&expected.bytes),
            "asked from {name}"
        );
    }
    // The same through a runtime's handle: node A's runtime, its collector, its reporter's
    // declared graph and algorithm.
    let server = beam_mcp::Server::new(
        beam_mcp::ServerConfig::new(
            beam_mcp::Catalog::new().tool(beam_mcp::ToolSpec::new("get_weather", "Weather.")),
        )
        .collector(collectors[0].clone())
        .dispatch(|_c| async { Ok(beam_mcp::ToolOutput::text("")) }),
    )
    .unwrap();
    let mut declared_graph = beam_mcp::connectome::model::Graph::new();
    declared_graph.add_dispatch_edge("get_weather");
    declared_graph.add_dispatch_edge("get_news");
    let declared = beam_mcp::connectome::declared::Declared::from_parts(
        declared_graph.clone(),
        Default::default(),
    );
    let runtime = beam_mcp::runtime::Application::start(
        server,
        beam_mcp::runtime::ApplicationConfig::new()
            .workers(1)
            .reporter(declared, DigestAlgorithm::Sha256),
    )
    .await
    .unwrap();
    let through_handle = runtime
        .federated_export(ExportKind::Observed, names[0], LIMIT)
        .await
        .unwrap();
    assert_eq!(through_handle.bytes, expected.bytes);
    let effective = runtime
        .federated_export(ExportKind::Effective, names[0], LIMIT)
        .await
        .unwrap();
    assert_eq!(
        effective.bytes,
        federated_effective_export(&declared_graph, &direct, DigestAlgorithm::Sha256)
            .unwrap()
            .bytes
    );
    assert!(matches!(
        runtime
            .federated_export(ExportKind::Diff, names[0], LIMIT)
            .await,
        Err(beam_mcp::runtime::ApplicationError::NotFederated { kind: "diff" })
    ));
    runtime.stop(LIMIT).await.unwrap();

    let doc: Value = serde_json::from_slice(&expected.bytes).unwrap();
    assert_eq!(verify(&expected.bytes).unwrap().kind, "federated_observed");
    assert_eq!(
        doc["body"]["contributors"],
        json!(["node_a", "node_b", "node_c"])
    );
    let weather = doc["body"]["graph"]["edges"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["to"] == "tool:get_weather")
        .cloned()
        .unwrap();
    assert_eq!(weather["count"], 5);

    // Node C lost (its peer and its node): asked from A, the export does not name it, and
    // the answer comes without waiting for C. (In one process the nodes' servers number their
    // sessions alike, and the remote-actor ids of a stopped session's proxies collide with
    // the other sessions' in the shared registry: B may drop out of this second round too. In
    // separate processes, as in the example, it does not.)
    let c_peer = peers.pop().expect("three peers");
    c_peer
        .stop_and_wait(None, Some(LIMIT))
        .await
        .expect("C's peer stops");
    let c_node = nodes.pop().expect("three nodes");
    c_node.stop(LIMIT).await;
    // Asked again after each change of the group, until C's peer is gone from it.
    let mut after = federate((names[0], &collectors[0].snapshot()), LIMIT).await;
    while after.contributors().any(|n| n == "node_c") {
        assert!(
            group.changed(LIMIT).await,
            "node C is still asked, and the group no longer changes"
        );
        after = federate((names[0], &collectors[0].snapshot()), LIMIT).await;
    }
    group.stop();
    let contributors: Vec<&str> = after.contributors().collect();
    assert!(contributors.contains(&"node_a"), "{contributors:?}");
    assert!(!contributors.contains(&"node_c"), "{contributors:?}");
    let sealed = federated_observed_export(&after, DigestAlgorithm::Sha256).unwrap();
    assert_ne!(sealed.bytes, expected.bytes);

    for p in peers {
        p.stop(None);
    }
    for n in nodes {
        n.stop(LIMIT).await;
    }
}
