//! Scaling out the stateless HTTP endpoint: two nodes, each a runtime serving the same catalog
//! over HTTP on 127.0.0.1. A `tools/list` cursor issued by node A pages on node B when both
//! were configured with the same cursor key, and is refused there, as any foreign cursor, when
//! they were not. Needs no cluster session: the cursor is all the state there is.

use crate::support::http as rig;

use beam_mcp::runtime::{Application, ApplicationConfig, ApplicationRef};
use beam_mcp::transport::http::{AllowedOrigins, HttpService, ServeOptions};
use beam_mcp::{Catalog, Server, ServerConfig, ToolOutput, ToolSpec};
use rig::{rpc, Client, Proto};
use serde_json::{json, Value};
use std::net::SocketAddr;
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(10);

/// 120 tools: three pages of the default 50.
fn server(key: [u8; 32]) -> Server {
    let mut catalog = Catalog::new();
    for i in 0..120 {
        catalog = catalog.tool(ToolSpec::new(format!("tool_{i:03}"), "t"));
    }
    Server::new(
        ServerConfig::new(catalog)
            .cursor_key(key)
            .dispatch(|_c| async { Ok(ToolOutput::text("")) }),
    )
    .expect("the catalog is valid")
}

async fn node(key: [u8; 32]) -> (ApplicationRef, SocketAddr) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind loopback");
    let addr = listener.local_addr().expect("local addr");
    let service = HttpService::new(server(key), |_| Ok(()), AllowedOrigins::Any).path("/mcp");
    let config =
        ApplicationConfig::new()
            .workers(1)
            .http(listener, service, ServeOptions::default());
    let runtime = Application::start(server(key), config)
        .await
        .expect("runtime starts");
    (runtime, addr)
}

async fn list(addr: SocketAddr, cursor: Option<&str>) -> Value {
    let params = match cursor {
        Some(c) => json!({"cursor": c}),
        None => json!({}),
    };
    Client::new(Proto::H1, addr)
        .post(&rpc("tools/list", params))
        .await
        .json()
}

fn names(page: &Value) -> Vec<String> {
    page["result"]["tools"]
        .as_array()
        .map(|tools| {
            tools
                .iter()
                .filter_map(|t| t["name"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cursor_from_node_a_pages_on_node_b_only_with_a_shared_key() {
    let shared = [42; 32];
    let (a, addr_a) = node(shared).await;
    let (b, addr_b) = node(shared).await;
    let (c, addr_c) = node([7; 32]).await;

    // Alternate nodes page by page: A, then B, then A.
    let first = list(addr_a, None).await;
    let cursor = first["result"]["nextCursor"]
        .as_str()
        .expect("a next cursor")
        .to_owned();
    let second = list(addr_b, Some(&cursor)).await;
    assert!(second.get("error").is_none(), "{second}");
    let cursor2 = second["result"]["nextCursor"]
        .as_str()
        .expect("a next cursor")
        .to_owned();
    let third = list(addr_a, Some(&cursor2)).await;
    assert!(third["result"].get("nextCursor").is_none());
    let mut all = names(&first);
    all.extend(names(&second));
    all.extend(names(&third));
    let want: Vec<String> = (0..120).map(|i| format!("tool_{i:03}")).collect();
    assert_eq!(all, want, "every tool once, in order, across the two nodes");
    // The same cursor on either shared-key node gives the same page.
    assert_eq!(
        list(addr_a, Some(&cursor)).await["result"],
        second["result"]
    );

    // A node with another key refuses it, as any foreign cursor.
    let refused = list(addr_c, Some(&cursor)).await;
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    let forged = list(addr_c, Some("not-a-cursor")).await;
    assert_eq!(refused["error"]["data"]["reason"], "invalid cursor");
    assert_eq!(
        refused["error"]["data"]["reason"], forged["error"]["data"]["reason"],
        "refused for the same reason as a forged one"
    );

    for rt in [a, b, c] {
        rt.stop(LIMIT).await.expect("runtime stops");
    }
}
