//! Typed per-tool handlers reach the runtime unchanged: a host actor's `Dispatch` message (and
//! the handle's `dispatch_with`) finds the tool's own handler by name, through the same
//! validation and decoding; the pool isolates a typed handler's panic and replaces the worker;
//! its deadline stops a typed handler that hangs; a missing `Extension` is the host's bug
//! (-32603), invalid arguments the caller's (-32602).

use beam_mcp::runtime::{Application, ApplicationConfig, ApplicationMsg};
use beam_mcp::{Args, Catalog, Extension, Extensions, Json, Server, ServerConfig, ToolSpec};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(10);

#[derive(Debug, Clone)]
struct Principal(String);

/// Who to greet, how often.
#[derive(Deserialize, JsonSchema)]
struct Greet {
    name: String,
    times: u8,
}

/// The greeting.
#[derive(Serialize, JsonSchema)]
struct Greeting {
    text: String,
    by: String,
}

async fn greet(Extension(who): Extension<Principal>, Args(g): Args<Greet>) -> Json<Greeting> {
    Json(Greeting {
        text: vec![format!("hello {}", g.name); usize::from(g.times)].join(", "),
        by: who.0,
    })
}

fn server() -> Server {
    let catalog = Catalog::new()
        .tool(ToolSpec::new("greet", "Greet someone.").with_handler(greet))
        .tool(ToolSpec::new("boom", "Panics.").with_handler(|| async {
            if true {
                panic!("the typed tool panicked");
            }
            "unreachable"
        }))
        .tool(
            ToolSpec::new("hang", "Never answers.").with_handler(|| async {
                std::future::pending::<()>().await;
                "unreachable"
            }),
        );
    Server::new(ServerConfig::new(catalog)).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typed_handlers_run_in_the_pool_by_tool_name() {
    let config = ApplicationConfig::new()
        .workers(1)
        // Long enough that no call but `hang` meets it on a loaded machine (a replaced worker
        // included): the deadline is asserted by the one call that never answers.
        .deadline(Duration::from_secs(3));
    let rt = Application::start(server(), config).await.unwrap();
    let alice = Extensions::new().with(Principal("alice".into()));

    let reply = rt
        .dispatch_with("greet", json!({"name": "bob", "times": 2.0}), alice.clone())
        .await
        .unwrap();
    assert_eq!(
        reply.structured(),
        Some(&json!({"text": "hello bob, hello bob", "by": "alice"}))
    );

    // A host actor's message, by name.
    let answer = rt
        .dispatcher()
        .unwrap()
        .call(
            |reply| ApplicationMsg::Dispatch {
                tool: "greet".into(),
                arguments: json!({"name": "eve", "times": 1}),
                extensions: Extensions::new().with(Principal("an-actor".into())),
                reply,
            },
            Some(LIMIT),
        )
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert_eq!(answer.structured().unwrap()["by"], "an-actor");

    // The caller's fault, refused before the handler; the host's fault, said as -32603.
    let refused = rt
        .dispatch_with("greet", json!({"name": "bob", "times": 256}), alice.clone())
        .await
        .unwrap_err();
    assert!(refused.is_invalid_arguments(), "{refused}");
    let internal = rt
        .dispatch("greet", json!({"name": "bob", "times": 1}))
        .await
        .unwrap_err();
    assert_eq!(internal.code(), -32603, "{internal}");

    // A panic is the tool's failure to the caller; the one worker is replaced and serves on.
    let panicked = rt.dispatch("boom", json!({})).await.unwrap();
    assert!(panicked.is_error());
    let after = rt
        .dispatch_with("greet", json!({"name": "x", "times": 1}), alice.clone())
        .await
        .unwrap();
    assert_eq!(after.structured().unwrap()["text"], "hello x");

    // A typed handler that hangs is stopped at the pool's deadline.
    let hung = rt.dispatch("hang", json!({})).await.unwrap_err();
    assert!(hung.is_deadline(), "{hung}");
    let after = rt
        .dispatch_with("greet", json!({"name": "y", "times": 1}), alice)
        .await
        .unwrap();
    assert_eq!(after.structured().unwrap()["text"], "hello y");

    rt.stop(LIMIT).await.unwrap();
}
