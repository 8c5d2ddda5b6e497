//! The connectome reporter under Root: exports built on demand, off the request path, and a
//! reporter that crashes is restarted with nothing else touched.

use crate::support::runtime_host as host;

use beam_mcp::connectome::canonical::DigestAlgorithm;
use beam_mcp::connectome::declared::Declared;
use beam_mcp::connectome::effective::effective_export;
use beam_mcp::connectome::export::{declared_export, observed_export, ExportKind};
use beam_mcp::connectome::model::{EdgeKey, Graph};
use beam_mcp::connectome::observed::Collector;
use beam_mcp::runtime::{Application, ApplicationConfig, COLLECTOR, REPORTER, TRANSPORTS};
use beam_mcp::Server;
use serde_json::json;
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(10);

fn declared() -> Declared {
    let mut g = Graph::new();
    g.add_dispatch_edge("echo");
    Declared::from_parts(g, Default::default())
}

/// The declared graph as the reporter exports it: its tools following the live catalog.
fn live(server: &Server) -> Declared {
    declared().following(server.tool_names().iter().map(String::as_str))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn exports_come_from_the_reporter_and_survive_its_crash() {
    let collector = Collector::new();
    collector.attach();
    let server = Server::new(host::config().collector(collector.clone())).unwrap();
    let config = ApplicationConfig::new()
        .workers(2)
        .reporter(declared(), DigestAlgorithm::Sha384);
    let rt = Application::start(server, config).await.unwrap();
    let ids: Vec<String> = rt
        .root()
        .which_children()
        .await
        .unwrap()
        .into_iter()
        .map(|c| c.id)
        .collect();
    let at = |id: &str| ids.iter().position(|i| i == id).unwrap();
    assert!(
        at(COLLECTOR) < at(REPORTER) && at(REPORTER) < at(TRANSPORTS),
        "{ids:?}"
    );

    rt.dispatch("echo", json!({"text": "x"})).await.unwrap();
    rt.dispatch("echo", json!({"text": "y"})).await.unwrap();
    let d = rt.export(ExportKind::Declared).await.unwrap();
    assert_eq!(
        d.bytes,
        declared_export(&live(&rt.server()), DigestAlgorithm::Sha384)
            .unwrap()
            .bytes
    );
    let o = rt.export(ExportKind::Observed).await.unwrap();
    assert_eq!(
        o.bytes,
        observed_export(&collector.snapshot(), DigestAlgorithm::Sha384)
            .unwrap()
            .bytes
    );
    assert_eq!(
        collector
            .snapshot()
            .edge(&EdgeKey::dispatch("echo"))
            .unwrap()
            .count,
        Some(2)
    );
    let diff = rt.export(ExportKind::Diff).await.unwrap();
    assert!(std::str::from_utf8(&diff.bytes)
        .unwrap()
        .contains("\"kind\":\"diff\""));
    let effective = rt.export(ExportKind::Effective).await.unwrap();
    assert_eq!(
        effective.bytes,
        effective_export(
            live(&rt.server()).graph(),
            &collector.snapshot(),
            DigestAlgorithm::Sha384
        )
        .unwrap()
        .bytes
    );

    let reporter = rt
        .root()
        .which_children()
        .await
        .unwrap()
        .into_iter()
        .find(|c| c.id == REPORTER)
        .unwrap()
        .cell
        .unwrap();
    reporter.stop(Some("injected crash".into()));
    host::exited(&reporter).await;
    assert_eq!(rt.root().restart_count(REPORTER).await.unwrap(), Some(1));
    assert!(rt.export(ExportKind::Declared).await.is_ok());
    // rest_for_one: what follows the reporter restarts with it; what precedes it does not.
    assert_eq!(rt.root().restart_count(COLLECTOR).await.unwrap(), Some(0));
    assert_eq!(
        rt.dispatch("echo", json!({"text": "z"}))
            .await
            .unwrap()
            .texts(),
        ["z"]
    );
    rt.stop(LIMIT).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_runtime_without_a_reporter_says_so() {
    let rt = Application::start(host::server(), ApplicationConfig::new())
        .await
        .unwrap();
    let e = rt.export(ExportKind::Declared).await.unwrap_err();
    assert!(
        matches!(e, beam_mcp::runtime::ApplicationError::NoReporter),
        "{e}"
    );
    rt.stop(LIMIT).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_declared_graph_follows_the_live_catalog() {
    use beam_mcp::catalog::CatalogChange;
    use beam_mcp::connectome::model::EdgeKind;
    let mut g = Graph::new();
    g.add_dispatch_edge("echo");
    g.add_dispatch_edge("slow");
    g.add_edge(EdgeKey::new(EdgeKind::Serves, "tool:slow", "fn:host::slow"));
    g.add_edge(EdgeKey::new(
        EdgeKind::Call,
        "fn:host::slow",
        "fn:host::sleep",
    ));
    let config = ApplicationConfig::new().reporter(
        Declared::from_parts(g, Default::default()),
        DigestAlgorithm::Sha256,
    );
    let rt = Application::start(host::server(), config).await.unwrap();
    rt.change(
        CatalogChange::new()
            .remove_tool("slow")
            .add_tool(beam_mcp::ToolSpec::new("plugin", "Added while serving.")),
    )
    .await
    .unwrap();
    let sealed = rt.export(ExportKind::Declared).await.unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&sealed.bytes).unwrap();
    let edges: Vec<(String, String, String)> = doc["body"]["graph"]["edges"]
        .as_array()
        .unwrap_or_else(|| panic!("{doc}"))
        .iter()
        .map(|e| {
            let s = |k: &str| e[k].as_str().unwrap().to_owned();
            (s("kind"), s("from"), s("to"))
        })
        .collect();
    let has = |kind: &str, from: &str, to: &str| {
        edges
            .iter()
            .any(|(k, f, t)| k == kind && f == from && t == to)
    };
    assert!(has("dispatch", "mcp:dispatch", "tool:plugin"), "{edges:?}");
    assert!(has("dispatch", "mcp:dispatch", "tool:echo"), "{edges:?}");
    assert!(
        !edges
            .iter()
            .any(|(_, f, t)| f == "tool:slow" || t == "tool:slow"),
        "{edges:?}"
    );
    // The source the graph was read from did not change: its call edges stay.
    assert!(has("call", "fn:host::slow", "fn:host::sleep"), "{edges:?}");
    rt.stop(LIMIT).await.unwrap();
}
