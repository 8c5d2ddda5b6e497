//! Bounded validation through a real listener, over HTTP/1.1 and h2c (issue 23): a request of
//! under 1 KiB against a recursive schema, which took the `jsonschema`-backed validator a
//! minute and 13 GB, is one -32602 naming the failing keyword; past the host's validation budget
//! a request is refused naming `budget`; and costly requests running beside a good call leave it
//! answered. A bounded wait guards every exchange; nothing asserts wall time.

use crate::support::adversarial;
use crate::support::http as support;

use std::time::Duration;

use beam_mcp::transport::http::{AllowedOrigins, HttpService};
use beam_mcp::{Catalog, Server, ServerConfig, ToolCall, ToolOutput, ToolSpec};
use serde_json::{json, Value};
use support::{lrpc, rpc, spawn, Client, Proto, BOTH, LEGACY};

const LIMIT: Duration = Duration::from_secs(30);

fn service(budget: Option<u64>) -> HttpService {
    let catalog = Catalog::new()
        .tool(ToolSpec::new("tree_one_of", "Tree.").with_input_schema(adversarial::tree("oneOf")))
        .tool(ToolSpec::new("tree_any_of", "Tree.").with_input_schema(adversarial::tree("anyOf")))
        .tool(ToolSpec::new("filter", "Filter.").with_input_schema(adversarial::filter()))
        .tool(ToolSpec::new("unique", "Unique.").with_input_schema(adversarial::unique()))
        .tool(ToolSpec::new("ping", "Ping."));
    let mut config = ServerConfig::new(catalog)
        .dispatch(|call: ToolCall| async move { Ok(ToolOutput::text(call.tool.to_string())) });
    if let Some(steps) = budget {
        config = config.validation_budget(steps);
    }
    HttpService::new(
        Server::new(config).unwrap(),
        |_| Ok(()),
        AllowedOrigins::list(["http://localhost"]),
    )
    .path("/mcp")
}

fn call(tool: &str, arguments: Value) -> Value {
    rpc("tools/call", json!({"name": tool, "arguments": arguments}))
}

async fn post(client: &Client, body: &Value) -> support::Resp {
    tokio::time::timeout(LIMIT, client.post(body))
        .await
        .expect("answered within the bound")
}

#[tokio::test]
async fn a_failing_recursive_tree_is_one_violation_over_http() {
    let addr = spawn(service(None)).await;
    for proto in BOTH {
        let client = Client::new(proto, addr);
        for (tool, keyword) in [("tree_one_of", "oneOf"), ("tree_any_of", "anyOf")] {
            for leaf in [adversarial::bad_leaf(), adversarial::typo_leaf()] {
                let body = call(tool, adversarial::chain(20, leaf.clone()));
                assert!(body.to_string().len() < 1024, "the issue's sub-KiB input");
                let resp = post(&client, &body).await;
                assert_eq!(resp.status, 200, "{proto:?} {tool} {leaf}");
                let v = resp.json();
                assert_eq!(v["error"]["code"], -32602, "{v}");
                assert_eq!(v["error"]["data"]["path"], "/root", "{v}");
                assert_eq!(v["error"]["data"]["keyword"], keyword, "{v}");
                assert_eq!(v["error"]["data"]["tool"], tool, "{v}");
                // At 2025-11-25 the same refusal is a tool error, for the model to correct.
                let legacy = lrpc(
                    "tools/call",
                    json!({"name": tool, "arguments": adversarial::chain(20, leaf.clone())}),
                );
                let resp = tokio::time::timeout(
                    LIMIT,
                    client.post_plain(&legacy, &[("MCP-Protocol-Version", LEGACY)]),
                )
                .await
                .expect("answered within the bound");
                let v = resp.json();
                assert_eq!(v["result"]["isError"], true, "{v}");
                let text = v["result"]["content"][0]["text"].as_str().unwrap();
                assert!(text.contains("/root"), "{text}");
            }
        }
    }
}

#[tokio::test]
async fn past_the_validation_budget_a_request_is_refused_naming_budget() {
    let addr = spawn(service(Some(10_000))).await;
    for proto in BOTH {
        let client = Client::new(proto, addr);
        let resp = post(
            &client,
            &call("filter", adversarial::valid_filter(256 << 10)),
        )
        .await;
        assert_eq!(resp.status, 200);
        let v = resp.json();
        assert_eq!(v["error"]["code"], -32602, "{v}");
        assert_eq!(v["error"]["data"]["keyword"], "budget", "{v}");
        assert_eq!(v["error"]["data"]["path"], "", "{v}");
        assert!(
            v["error"]["data"]["message"]
                .as_str()
                .unwrap()
                .contains("10000"),
            "{v}"
        );
        // Under the budget, the same server serves.
        let ok = post(&client, &call("unique", json!({"items": [1, 2, 3]}))).await;
        assert_eq!(ok.json()["result"]["content"][0]["text"], "unique");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn costly_requests_beside_a_good_call_leave_it_answered() {
    let addr = spawn(service(None)).await;
    let mut costly = Vec::new();
    for i in 0..8 {
        let proto = if i % 2 == 0 { Proto::H1 } else { Proto::H2 };
        let body = match i % 4 {
            0 => call(
                "tree_one_of",
                adversarial::chain(20, adversarial::bad_leaf()),
            ),
            1 => call(
                "tree_any_of",
                adversarial::chain(20, adversarial::typo_leaf()),
            ),
            2 => call("filter", adversarial::wide_filter(512 << 10)),
            _ => call("unique", adversarial::colliding_pairs(512 << 10)),
        };
        costly.push(tokio::spawn(async move {
            post(&Client::new(proto, addr), &body).await.json()
        }));
    }
    for proto in BOTH {
        let good = post(&Client::new(proto, addr), &call("ping", json!({}))).await;
        assert_eq!(good.json()["result"]["content"][0]["text"], "ping");
    }
    for (i, c) in costly.into_iter().enumerate() {
        let v = c.await.unwrap();
        if i % 4 == 3 {
            assert_eq!(v["result"]["content"][0]["text"], "unique", "{v}");
        } else {
            assert_eq!(v["error"]["code"], -32602, "{v}");
            assert_ne!(v["error"]["data"]["keyword"], "budget", "{v}");
        }
    }
}
