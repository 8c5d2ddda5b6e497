//! The observed graph from the real dispatch site, and the declared graph of the README's host.

use beam_mcp::connectome::declared::{Declared, DeclaredInput};
use beam_mcp::connectome::diff::Diff;
use beam_mcp::connectome::model::{EdgeKey, EdgeKind};
use beam_mcp::connectome::observed::Collector;
use beam_mcp::{Answer, Carrier, Catalog, Server, ServerConfig, ToolOutput, ToolSpec};
use serde_json::json;

fn server(collector: &Collector) -> Server {
    let catalog = Catalog::new()
        .tool(ToolSpec::new("get_weather", "w").with_input_schema(json!({
            "type":"object","properties":{"place":{"type":"string"}},"required":["place"]})))
        .tool(ToolSpec::new("never_called", "n"));
    Server::new(
        ServerConfig::new(catalog)
            .collector(collector.clone())
            .dispatch(|_c| async { Ok(ToolOutput::text("ok")) }),
    )
    .unwrap()
}

async fn call(s: &Server, tool: &str, args: serde_json::Value) {
    let f = json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":tool,"arguments":args}});
    let Answer::Reply(_) = s
        .answer(&serde_json::to_vec(&f).unwrap(), Carrier::Stdio)
        .await
    else {
        panic!()
    };
}

#[tokio::test]
async fn the_dispatch_site_records_validated_calls_by_name_only_while_attached() {
    let collector = Collector::new();
    let s = server(&collector);
    call(&s, "get_weather", json!({"place":"Oslo"})).await;
    assert_eq!(
        collector.snapshot().edge_count(),
        0,
        "a detached collector records nothing"
    );
    collector.attach();
    for _ in 0..3 {
        call(&s, "get_weather", json!({"place":"Oslo"})).await;
    }
    call(&s, "get_weather", json!({"place": 5})).await; // refused before dispatch
    call(&s, "no_such_tool_chosen_by_a_caller", json!({})).await; // unknown: never an edge
    let g = collector.snapshot();
    assert_eq!(g.edge_count(), 1, "{g:?}");
    assert_eq!(
        g.edge(&EdgeKey::dispatch("get_weather")).unwrap().count,
        Some(3)
    );
}

#[test]
fn the_declared_graph_of_the_weather_example_has_its_tool_and_a_non_empty_bound() {
    let catalog = Catalog::new().tool(ToolSpec::new("get_weather", "w"));
    let input = DeclaredInput {
        packages: vec!["beam-mcp".into()],
        target_kinds: vec!["example".into()],
        ..DeclaredInput::new(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml"))
    }
    .with_catalog(&catalog, |_| Some("weather::get_weather".into()));
    let declared = Declared::build(&input).unwrap();
    let g = declared.graph();
    let serves = g
        .edges()
        .find(|(k, _)| k.kind == EdgeKind::Serves && k.to.ends_with("weather::get_weather"))
        .unwrap_or_else(|| {
            panic!(
                "no serves edge to weather::get_weather: {:?}",
                g.edges().collect::<Vec<_>>()
            )
        });
    assert!(serves.0.from.contains("get_weather"));
    assert!(g
        .edges()
        .any(|(k, _)| k.kind == EdgeKind::Call && k.from.ends_with("weather::main")));
    // Method calls on values (`.find`, `.and_then`) resolve to no known function: the bound says
    // so rather than guessing.
    assert!(
        !declared.bound().dynamic_dispatch.is_empty() || !declared.bound().outside_scope.is_empty()
    );
    // Declared against observed: the one dispatched tool matches, nothing drifts.
    let collector = Collector::new();
    collector.attach();
    collector.record_dispatch("get_weather");
    let diff = Diff::run(g, &collector.snapshot());
    assert!(diff.drift().is_empty(), "{:?}", diff.drift());
}
