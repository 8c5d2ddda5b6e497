//! The supervision tree: its shape, and what a crash of each part restarts.

use crate::support::runtime_host as host;

use beam_mcp::connectome::observed::Collector;
use beam_mcp::runtime::{
    Application, ApplicationConfig, ApplicationError, StdioIo, CATALOG, COLLECTOR, DISPATCH_POOL,
    STDIO, TRANSPORTS,
};
use beam_mcp::transport::stdio::StdioOptions;
use beam_mcp::ConfigError;
use serde_json::json;
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(5);

fn idle_stdio() -> StdioIo {
    // A connection whose peer never writes and never closes.
    let (client, server) = tokio::io::duplex(1024);
    std::mem::forget(client);
    let (r, w) = tokio::io::split(server);
    StdioIo::new(tokio::io::BufReader::new(r), w)
}

fn config() -> ApplicationConfig {
    ApplicationConfig::new()
        .workers(2)
        .stdio(idle_stdio, StdioOptions::default())
}

/// The test host with a collector: the runtime puts its actor under Root.
fn collecting() -> beam_mcp::Server {
    beam_mcp::Server::new(host::config().collector(Collector::new())).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_tree_has_the_design_shape() {
    let rt = Application::start(collecting(), config()).await.unwrap();
    let ids: Vec<String> = rt
        .root()
        .which_children()
        .await
        .unwrap()
        .into_iter()
        .map(|c| c.id)
        .collect();
    assert_eq!(ids, [CATALOG, DISPATCH_POOL, COLLECTOR, TRANSPORTS]);
    let transports = rt.transports().await.unwrap();
    let ids: Vec<String> = transports
        .which_children()
        .await
        .unwrap()
        .into_iter()
        .map(|c| c.id)
        .collect();
    assert_eq!(ids, [STDIO]);
    rt.stop(LIMIT).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_killed_pool_is_restarted_and_the_catalog_survives() {
    let rt = Application::start(collecting(), config()).await.unwrap();
    let catalog_actor = rt.dispatcher().unwrap().get_id();
    let pool = rt.pool_actor().unwrap();
    pool.kill();
    host::exited(&pool).await;
    assert_eq!(
        rt.root().restart_count(DISPATCH_POOL).await.unwrap(),
        Some(1)
    );
    assert_ne!(rt.pool_actor().unwrap().get_id(), pool.get_id());
    assert_eq!(rt.root().restart_count(CATALOG).await.unwrap(), Some(0));
    assert_eq!(rt.dispatcher().unwrap().get_id(), catalog_actor);
    // rest_for_one: the collector and the transports, started after the pool, restart too.
    assert_eq!(rt.root().restart_count(TRANSPORTS).await.unwrap(), Some(1));
    let reply = rt.dispatch("echo", json!({"text": "after"})).await.unwrap();
    assert_eq!(reply.texts(), ["after"]);
    assert!(rt.server().advertised_tool("echo").is_some());
    rt.stop(LIMIT).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_crashed_catalog_actor_restarts_what_follows_it() {
    use beam_mcp::catalog::CatalogChange;
    use beam_mcp::ToolSpec;
    let rt = Application::start(collecting(), config()).await.unwrap();
    // Three changes through the catalog actor, then the actor crashes.
    for change in [
        CatalogChange::new().add_tool(ToolSpec::new("first", "1")),
        CatalogChange::new().add_tool(ToolSpec::new("second", "2")),
        CatalogChange::new().remove_tool("first"),
    ] {
        rt.change(change).await.unwrap();
    }
    let refused = rt
        .change(CatalogChange::new().remove_tool("first"))
        .await
        .unwrap_err();
    let ApplicationError::Change(why) = &refused else {
        panic!("{refused}")
    };
    assert!(matches!(**why, ConfigError::NotInCatalog { .. }), "{why}");
    let old = rt.dispatcher().unwrap();
    old.stop(Some("injected crash".into()));
    host::exited(&old.get_cell()).await;
    assert_eq!(rt.root().restart_count(CATALOG).await.unwrap(), Some(1));
    let new = rt.dispatcher().unwrap();
    assert_ne!(new.get_id(), old.get_id());
    for id in [DISPATCH_POOL, COLLECTOR, TRANSPORTS] {
        assert_eq!(rt.root().restart_count(id).await.unwrap(), Some(1), "{id}");
    }
    // The third state is served, not the startup one: the catalog lives in the server's
    // shared cell, not in the actor.
    let server = rt.server();
    assert_eq!(server.generation(), 3);
    assert!(server.advertised_tool("slow").is_some());
    assert!(server.advertised_tool("second").is_some());
    assert!(server.advertised_tool("first").is_none());
    let reply = rt.dispatch("echo", json!({"text": "back"})).await.unwrap();
    assert_eq!(reply.texts(), ["back"]);
    let err = rt.dispatch("first", json!({})).await.unwrap_err();
    assert_eq!(err.message(), "Unknown tool: first");
    // The new actor takes changes on the latest state.
    assert_eq!(
        rt.change(CatalogChange::new().remove_tool("second"))
            .await
            .unwrap(),
        4
    );
    rt.stop(LIMIT).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn stopping_the_runtime_stops_every_actor() {
    let rt = Application::start(collecting(), config()).await.unwrap();
    let pool = rt.pool_actor().unwrap();
    let catalog = rt.dispatcher().unwrap();
    rt.stop(LIMIT).await.unwrap();
    assert_eq!(pool.get_status(), ractor::ActorStatus::Stopped);
    assert_eq!(catalog.get_status(), ractor::ActorStatus::Stopped);
    // A dispatch after the stop is refused, not left hanging.
    let err = tokio::time::timeout(LIMIT, rt.dispatch("echo", json!({"text": "x"})))
        .await
        .expect("answered")
        .unwrap_err();
    assert!(err.is_unavailable(), "{err}");
}

#[tokio::test]
async fn bad_options_are_refused_before_anything_starts() {
    let err = Application::start(host::server(), ApplicationConfig::new().workers(0))
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            ApplicationError::InvalidOption {
                option: "workers",
                ..
            }
        ),
        "{err}"
    );
    let err = Application::start(
        host::server(),
        ApplicationConfig::new().deadline(Duration::ZERO),
    )
    .await
    .unwrap_err();
    assert!(
        matches!(
            err,
            ApplicationError::InvalidOption {
                option: "deadline",
                ..
            }
        ),
        "{err}"
    );
}
