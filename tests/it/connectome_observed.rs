//! The collector, its actor, the tracing layer and the reporter.

use beam_mcp::connectome::canonical::{verify, DigestAlgorithm};
use beam_mcp::connectome::declared::{CompletenessBound, Declared};
use beam_mcp::connectome::export::ExportKind;
use beam_mcp::connectome::model::{EdgeKey, EdgeKind, Graph, Sign};
use beam_mcp::connectome::observed::{Collector, CollectorActor, CollectorMsg, EdgeLayer};
use beam_mcp::connectome::reporter::{Reporter, ReporterArgs, ReporterMsg};
use tracing_subscriber::layer::SubscriberExt;

fn count(g: &Graph, key: &EdgeKey) -> Option<u64> {
    g.edge(key).and_then(|a| a.count)
}

#[test]
fn detached_collector_records_nothing() {
    let c = Collector::new();
    c.record_dispatch("a");
    assert_eq!(c.snapshot().edge_count(), 0);
    c.attach();
    c.record_dispatch("a");
    c.record_dispatch("a");
    c.detach();
    c.record_dispatch("a");
    assert_eq!(count(&c.snapshot(), &EdgeKey::dispatch("a")), Some(2));
}

#[test]
fn reset_zeroes_counts_and_snapshot_skips_zeroes() {
    let c = Collector::new();
    c.attach();
    c.record_dispatch("a");
    c.reset();
    assert_eq!(c.snapshot().edge_count(), 0);
    c.record_dispatch("a");
    assert_eq!(count(&c.snapshot(), &EdgeKey::dispatch("a")), Some(1));
    assert_eq!(
        c.snapshot().edge(&EdgeKey::dispatch("a")).map(|a| a.sign),
        Some(Sign::Unset)
    );
}

#[test]
fn distinct_edges_are_bounded() {
    let c = Collector::with_max_edges(2);
    c.attach();
    for t in ["a", "b", "c", "d", "a"] {
        c.record_dispatch(t);
    }
    assert_eq!(c.snapshot().edge_count(), 2);
    assert_eq!(c.overflow(), 2);
}

#[test]
fn clones_share_counters_across_threads() {
    let c = Collector::new();
    c.attach();
    std::thread::scope(|s| {
        for _ in 0..4 {
            let c = c.clone();
            s.spawn(move || {
                for _ in 0..1000 {
                    c.record_dispatch("shared");
                }
            });
        }
    });
    assert_eq!(
        count(&c.snapshot(), &EdgeKey::dispatch("shared")),
        Some(4000)
    );
}

#[test]
fn layer_records_module_edges_and_no_field_values() {
    let c = Collector::new();
    let subscriber = tracing_subscriber::registry().with(EdgeLayer::new(c.clone()));
    tracing::subscriber::with_default(subscriber, || {
        let _off = tracing::info_span!(target: "host::api", "before attach").entered();
        let _inner = tracing::info_span!(target: "host::db", "ignored").entered();
    });
    assert_eq!(c.snapshot().edge_count(), 0, "detached layer recorded");
    c.attach();
    let subscriber = tracing_subscriber::registry().with(EdgeLayer::new(c.clone()));
    tracing::subscriber::with_default(subscriber, || {
        let _api = tracing::info_span!(target: "host::api", "call", secret = "hunter2").entered();
        for _ in 0..3 {
            let _db = tracing::info_span!(target: "host::db", "query", sql = "select 1").entered();
            let _same = tracing::info_span!(target: "host::db", "nested").entered();
        }
    });
    let g = c.snapshot();
    let key = EdgeKey::new(EdgeKind::ModuleCall, "module:host::api", "module:host::db");
    assert_eq!(count(&g, &key), Some(3));
    assert_eq!(g.edge_count(), 1, "same-target nesting is not an edge");
    let bytes = beam_mcp::connectome::export::observed_export(&g, DigestAlgorithm::Sha256)
        .unwrap()
        .bytes;
    let text = String::from_utf8(bytes).unwrap();
    assert!(!text.contains("hunter2") && !text.contains("select"));
}

#[tokio::test]
async fn collector_actor_attaches_snapshots_resets_and_detaches_on_stop() {
    let c = Collector::new();
    let (actor, handle) = ractor::Actor::spawn(None, CollectorActor, c.clone())
        .await
        .unwrap();
    actor.cast(CollectorMsg::Attach).unwrap();
    let h = ractor::call!(actor, CollectorMsg::Handle).unwrap();
    h.record_dispatch("t");
    let g = ractor::call!(actor, CollectorMsg::Snapshot).unwrap();
    assert_eq!(count(&g, &EdgeKey::dispatch("t")), Some(1));
    actor.cast(CollectorMsg::Reset).unwrap();
    let g = ractor::call!(actor, CollectorMsg::Snapshot).unwrap();
    assert_eq!(g.edge_count(), 0);
    actor.stop(None);
    handle.await.unwrap();
    assert!(!c.is_attached());
}

#[tokio::test]
async fn reporter_builds_all_three_exports() {
    let mut declared = Graph::new();
    declared.add_dispatch_edge("a");
    declared.add_dispatch_edge("b");
    let collector = Collector::new();
    collector.attach();
    collector.record_dispatch("a");
    collector.record_dispatch("c");
    let args = ReporterArgs {
        declared: Declared::from_parts(declared, CompletenessBound::default()),
        collector,
        algorithm: DigestAlgorithm::Sha256,
        catalog: None,
    };
    let (reporter, handle) = ractor::Actor::spawn(None, Reporter, args).await.unwrap();
    for kind in [ExportKind::Declared, ExportKind::Observed, ExportKind::Diff] {
        let sealed = ractor::call!(reporter, ReporterMsg::Export, kind)
            .unwrap()
            .unwrap();
        let v = verify(&sealed.bytes).unwrap();
        assert_eq!(v.kind, kind.as_str());
        if kind == ExportKind::Diff {
            assert_eq!(v.body["coverage"]["drift_edges"], 1);
            assert_eq!(v.body["coverage"]["dead_authority_edges"], 1);
            assert_eq!(v.body["coverage"]["exercised_tools"], 1);
        }
    }
    reporter.stop(None);
    handle.await.unwrap();
}
