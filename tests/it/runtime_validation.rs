//! A general schema's validation counts against the runtime's admission (issue 23): it runs
//! where the host work runs, so with every worker busy and no queue a call to a tool with a
//! general schema is refused `overloaded` before any of its arguments are looked at, while a
//! subset schema's single-pass check still answers at once — in process and over a real HTTP
//! listener under the runtime. Waits on events (the gate), never on a clock.

use crate::support::adversarial;
use crate::support::http as rig;

use std::sync::Arc;
use std::time::Duration;

use beam_mcp::runtime::{Application, ApplicationConfig};
use beam_mcp::transport::http::{AllowedOrigins, HttpService, ServeOptions};
use beam_mcp::{Catalog, Server, ServerConfig, ToolCall, ToolOutput, ToolSpec};
use rig::{rpc, Client, BOTH};
use serde_json::json;
use tokio::sync::{Notify, Semaphore};

const LIMIT: Duration = Duration::from_secs(10);

/// A host with a `gate` tool (says it started, then waits to be released), a `tree` tool under
/// the recursive `oneOf` schema and an `echo` tool under a subset schema.
fn server(started: Arc<Semaphore>, release: Arc<Notify>) -> Server {
    let catalog = Catalog::new()
        .tool(ToolSpec::new("gate", "Waits for the test."))
        .tool(ToolSpec::new("tree", "A file tree.").with_input_schema(adversarial::tree("oneOf")))
        .tool(ToolSpec::new("echo", "Echo.").with_input_schema(json!({
            "type": "object",
            "properties": {"text": {"type": "string"}},
            "required": ["text"]
        })));
    let config = ServerConfig::new(catalog).dispatch(move |call: ToolCall| {
        let (started, release) = (started.clone(), release.clone());
        async move {
            if &*call.tool == "gate" {
                started.add_permits(1);
                release.notified().await;
            }
            Ok(ToolOutput::text(call.tool.to_string()))
        }
    });
    Server::new(config).expect("the catalog is valid")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_general_schemas_validation_waits_for_a_pool_slot() {
    let started = Arc::new(Semaphore::new(0));
    let release = Arc::new(Notify::new());
    let rt = Application::start(
        server(started.clone(), release.clone()),
        ApplicationConfig::new().workers(1).queue(0),
    )
    .await
    .expect("the runtime starts");
    let busy = {
        let rt = rt.clone();
        tokio::spawn(async move { rt.dispatch("gate", json!({})).await })
    };
    started.acquire().await.expect("the gate started").forget();

    // The one worker is busy: the costly check is not run on the caller's task meanwhile.
    let bad = adversarial::chain(20, adversarial::bad_leaf());
    let err = rt.dispatch("tree", bad.clone()).await.unwrap_err();
    assert!(err.is_overloaded(), "{err}");
    // A subset schema's check is a single pass and still answers at once.
    let err = rt.dispatch("echo", json!({"text": 1})).await.unwrap_err();
    assert!(err.is_invalid_arguments(), "{err}");

    release.notify_one();
    assert_eq!(busy.await.unwrap().unwrap().texts(), ["gate"]);
    // With the slot back, the same call is checked and refused for what it is.
    let err = rt.dispatch("tree", bad).await.unwrap_err();
    assert!(err.is_invalid_arguments(), "{err}");
    let ok = rt
        .dispatch(
            "tree",
            adversarial::chain(20, json!({"kind": "file", "size": 1})),
        )
        .await
        .expect("valid arguments are served");
    assert_eq!(ok.texts(), ["tree"]);
    assert_eq!(rt.pool_stats().overloaded, 1);
    rt.stop(LIMIT).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_http_a_full_pool_refuses_before_validating_and_a_free_one_validates() {
    let started = Arc::new(Semaphore::new(0));
    let release = Arc::new(Notify::new());
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let server = server(started.clone(), release.clone());
    let service = HttpService::new(server.clone(), |_| Ok(()), AllowedOrigins::Any).path("/mcp");
    let config = ApplicationConfig::new().workers(1).queue(0).http(
        listener,
        service,
        ServeOptions::default(),
    );
    let rt = Application::start(server, config)
        .await
        .expect("the runtime starts");
    let call = |tool: &str, arguments: serde_json::Value| {
        rpc("tools/call", json!({"name": tool, "arguments": arguments}))
    };
    for proto in BOTH {
        let client = Client::new(proto, addr);
        let busy = {
            let gate = call("gate", json!({}));
            tokio::spawn(async move { Client::new(proto, addr).post(&gate).await.json() })
        };
        started.acquire().await.expect("the gate started").forget();

        let bad = call("tree", adversarial::chain(20, adversarial::bad_leaf()));
        let full = tokio::time::timeout(LIMIT, client.post(&bad))
            .await
            .expect("answered");
        assert_eq!(full.status, 500, "{proto:?}");
        let v = full.json();
        assert_eq!(v["error"]["code"], -32603, "{v}");
        assert_eq!(v["error"]["data"]["reason"], "overloaded", "{v}");

        release.notify_one();
        assert_eq!(busy.await.unwrap()["result"]["content"][0]["text"], "gate");
        let checked = tokio::time::timeout(LIMIT, client.post(&bad))
            .await
            .expect("answered");
        assert_eq!(checked.status, 200, "{proto:?}");
        let v = checked.json();
        assert_eq!(v["error"]["code"], -32602, "{v}");
        assert_eq!(v["error"]["data"]["keyword"], "oneOf", "{v}");
    }
    rt.stop(LIMIT).await.unwrap();
}
