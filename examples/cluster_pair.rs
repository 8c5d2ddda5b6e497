//! Two OS processes, one cluster (feature `cluster`): node A serves MCP over HTTP and its
//! runtime to the cluster; node B is a host actor that dispatches through A, and runs a small
//! runtime of its own. Both feed one federated observed export and one effective export.
//!
//! ```text
//! # terminal 1 (cluster on 127.0.0.1:7401, MCP over HTTP on 127.0.0.1:8401)
//! cargo run --features cluster --example cluster_pair -- a 127.0.0.1:7401 127.0.0.1:8401
//! # terminal 2 (joins A, dispatches, prints the federated exports, exits)
//! cargo run --features cluster --example cluster_pair -- b 127.0.0.1:7401
//! ```
//!
//! Both sides share the cookie in `BEAM_MCP_COOKIE` (a demo default otherwise). Node A stops
//! by itself after `BEAM_MCP_SERVE_SECS` seconds (default 120). Everything binds 127.0.0.1.

use beam_mcp::connectome::canonical::DigestAlgorithm;
use beam_mcp::connectome::declared::Declared;
use beam_mcp::connectome::export::ExportKind;
use beam_mcp::connectome::model::Graph;
use beam_mcp::connectome::observed::Collector;
use beam_mcp::runtime::cluster::observed::federate;
use beam_mcp::runtime::cluster::{
    dispatch_to, wait_for_remote_dispatcher, ClusterNode, NodeConfig,
};
use beam_mcp::runtime::{Application, ApplicationConfig, ApplicationRef};
use beam_mcp::transport::http::{AllowedOrigins, HttpService, ServeOptions};
use beam_mcp::{Catalog, Server, ServerConfig, ToolCall, ToolError, ToolOutput, ToolSpec};
use serde_json::json;
use std::error::Error;
use std::net::SocketAddr;
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(10);

/// The catalog both nodes serve: `get_weather(place)`.
fn server(collector: &Collector) -> Result<Server, Box<dyn Error>> {
    let catalog = Catalog::new().tool(
        ToolSpec::new("get_weather", "The weather at a place.").with_input_schema(json!({
            "type": "object",
            "properties": {"place": {"type": "string", "maxLength": 64}},
            "required": ["place"],
            "additionalProperties": false
        })),
    );
    let config = ServerConfig::new(catalog)
        .collector(collector.clone())
        .dispatch(|call: ToolCall| async move {
            let place = call.arguments.get("place").and_then(|v| v.as_str());
            match place {
                Some(p) => Ok(ToolOutput::text(format!("sunny in {p}"))),
                None => Err(ToolError::new("no place")),
            }
        });
    Ok(Server::new(config)?)
}

/// The declared graph both nodes weigh their observations against.
fn declared() -> Graph {
    let mut g = Graph::new();
    g.add_dispatch_edge("get_weather");
    g.add_dispatch_edge("get_forecast");
    g
}

fn cookie() -> String {
    std::env::var("BEAM_MCP_COOKIE").unwrap_or_else(|_| "beam-mcp-demo-cookie".to_owned())
}

async fn start(
    collector: &Collector,
    config: ApplicationConfig,
) -> Result<ApplicationRef, Box<dyn Error>> {
    collector.attach();
    Ok(Application::start(server(collector)?, config).await?)
}

async fn node_a(cluster: SocketAddr, http: SocketAddr) -> Result<(), Box<dyn Error>> {
    let collector = Collector::new();
    let listener = std::net::TcpListener::bind(http)?;
    let http = listener.local_addr()?;
    let service =
        HttpService::new(server(&collector)?, |_| Ok(()), AllowedOrigins::Any).path("/mcp");
    let config =
        ApplicationConfig::new()
            .workers(2)
            .http(listener, service, ServeOptions::default());
    let runtime = start(&collector, config).await?;
    let node = ClusterNode::start(NodeConfig::new("node_a", cookie()).bind(cluster)).await?;
    let peer = node.observe(collector.clone()).await?;
    println!(
        "node_a: cluster on {}, MCP on http://{http}/mcp",
        node.addr()
    );
    let secs = std::env::var("BEAM_MCP_SERVE_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(120u64);
    tokio::time::sleep(Duration::from_secs(secs)).await;
    let observed = runtime
        .federated_export(ExportKind::Observed, node.name(), LIMIT)
        .await?;
    println!(
        "node_a federated observed: {}",
        String::from_utf8_lossy(&observed.bytes)
    );
    peer.stop(None);
    node.stop(LIMIT).await;
    runtime.stop(LIMIT).await?;
    Ok(())
}

async fn node_b(peer_addr: SocketAddr) -> Result<(), Box<dyn Error>> {
    let collector = Collector::new();
    let config = ApplicationConfig::new().workers(1).reporter(
        Declared::from_parts(declared(), Default::default()),
        DigestAlgorithm::Sha256,
    );
    let runtime = start(&collector, config).await?;
    let node = ClusterNode::start(NodeConfig::new("node_b", cookie())).await?;
    let peer = node.observe(collector.clone()).await?;
    node.connect(peer_addr).await?;
    let a = wait_for_remote_dispatcher(LIMIT)
        .await
        .ok_or("node A's runtime did not appear in the dispatch group")?;
    for place in ["Oslo", "Lima", "Pune"] {
        let reply = dispatch_to(&a, "get_weather", json!({"place": place}), LIMIT).await?;
        println!("node_b -> node_a get_weather({place}): {:?}", reply.texts());
    }
    let refused = dispatch_to(&a, "get_weather", json!({}), LIMIT).await;
    println!(
        "node_b -> node_a get_weather({{}}): invalid arguments = {}",
        refused
            .as_ref()
            .err()
            .is_some_and(|e| e.is_invalid_arguments())
    );
    runtime
        .dispatch("get_weather", json!({"place": "Quito"}))
        .await?;
    // Node A's observed peer is announced shortly after the session is ready.
    let deadline = tokio::time::Instant::now() + LIMIT;
    while federate((node.name(), &collector.snapshot()), LIMIT)
        .await
        .contributors()
        .count()
        < 2
        && tokio::time::Instant::now() < deadline
    {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    for kind in [ExportKind::Observed, ExportKind::Effective] {
        let sealed = runtime.federated_export(kind, node.name(), LIMIT).await?;
        println!(
            "federated {}: {}",
            kind.as_str(),
            String::from_utf8_lossy(&sealed.bytes)
        );
    }
    peer.stop(None);
    node.stop(LIMIT).await;
    runtime.stop(LIMIT).await?;
    Ok(())
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> Result<(), Box<dyn Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["a", cluster, http] => node_a(cluster.parse()?, http.parse()?).await,
        ["b", peer] => node_b(peer.parse()?).await,
        _ => Err(
            "usage: cluster_pair a <cluster addr> <http addr> | b <node A's cluster addr>".into(),
        ),
    }
}
