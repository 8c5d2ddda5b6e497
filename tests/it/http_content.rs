//! Content blocks, structured results held to their output schema, and `completion/complete`,
//! over a real HTTP listener on 127.0.0.1 (2026-07-28), with the server's log captured.

use crate::support::http as support;
use crate::support::log::Log;
use crate::support::spec;

use beam_mcp::catalog::{
    CompleteError, Completion, CompletionRef, CompletionRequest, PromptArgument, PromptMessage,
    PromptSpec, ReadError, RenderedPrompt, ResourceContents, ResourceTemplateSpec, Role,
    MAX_COMPLETION_VALUES,
};
use beam_mcp::content::{Annotations, ResourceLink};
use beam_mcp::transport::http::{AllowedOrigins, HttpService};
use beam_mcp::{Catalog, Content, Server, ServerConfig, ToolCall, ToolError, ToolOutput, ToolSpec};
use serde_json::{json, Value};
use spec::Spec;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use support::{lrpc, rpc, spawn, Client, BOTH, LEGACY, MODERN};

fn celsius_schema() -> Value {
    json!({
        "type": "object",
        "properties": {"celsius": {"type": "number"}},
        "required": ["celsius"]
    })
}

/// What the completer saw: the argument's `Arc` and the context's keys.
#[derive(Default)]
struct Seen {
    calls: AtomicUsize,
    requests: Mutex<Vec<CompletionRequest>>,
}

fn server(seen: Arc<Seen>) -> Server {
    let catalog = Catalog::new()
        .tool(
            ToolSpec::new("good", "Valid structured result.").with_output_schema(celsius_schema()),
        )
        .tool(ToolSpec::new("bad", "Breaks its own schema.").with_output_schema(celsius_schema()))
        .tool(
            ToolSpec::new("missing", "Declares a schema, returns text.")
                .with_output_schema(celsius_schema()),
        )
        .tool(ToolSpec::new(
            "not_object",
            "No schema; a structured array.",
        ))
        .tool(ToolSpec::new("plain", "No schema; a structured object."))
        .tool(ToolSpec::new("gallery", "Every block."))
        .prompt(
            PromptSpec::new("p")
                .with_argument(PromptArgument::new("a").with_required(true))
                .with_argument(PromptArgument::new("b")),
        )
        .resource(ResourceTemplateSpec::new("t://{x}/y", "t"))
        .reader(
            |uri: String| async move { Ok::<_, ReadError>(vec![ResourceContents::text(uri, "y")]) },
        )
        .renderer(|_name: String, _args| async move {
            Ok(RenderedPrompt::new(vec![
                PromptMessage::with_content(
                    Role::Assistant,
                    Content::resource_link(ResourceLink::new("t://1/y", "one")),
                ),
                PromptMessage::with_content(
                    Role::User,
                    Content::audio(vec![1u8, 2, 3], "audio/wav"),
                ),
            ]))
        })
        .completer(move |request: CompletionRequest| {
            let seen = seen.clone();
            async move {
                seen.calls.fetch_add(1, Ordering::SeqCst);
                seen.requests.lock().unwrap().push(request.clone());
                match (&request.target, &*request.argument) {
                    (CompletionRef::Prompt(_), "a") => {
                        Ok(Completion::new((0..150).map(|i| format!("v{i}"))))
                    }
                    (CompletionRef::Prompt(_), "b") => {
                        Err(CompleteError::new("no suggestions for b"))
                    }
                    _ => panic!("the completer fails"),
                }
            }
        });
    let dispatch = |call: ToolCall| async move {
        Ok::<_, ToolError>(match &*call.tool {
            "good" => ToolOutput::structured(json!({"celsius": 12.5})),
            "bad" => ToolOutput::text("warm").and_structured(json!({"celsius": "SECRET-warm"})),
            "missing" => ToolOutput::text("12.5"),
            "not_object" => ToolOutput::text("[1,2]").and_structured(json!([1, 2])),
            "plain" => ToolOutput::text("{}").and_structured(json!({"k": 1})),
            _ => ToolOutput::text("text")
                .and(Content::image(vec![0x89u8, b'P'], "image/png"))
                .and(Content::audio(vec![0u8; 4], "audio/wav"))
                .and(Content::resource_blob("t://1/y", vec![0xffu8]))
                .and(
                    Content::resource_link(
                        ResourceLink::new("t://2/y", "two").with_mime_type("text/plain"),
                    )
                    .with_annotations(
                        Annotations::new()
                            .with_audience([Role::User])
                            .with_priority(0.5)
                            .unwrap(),
                    ),
                ),
        })
    };
    Server::new(ServerConfig::new(catalog).dispatch(dispatch)).unwrap()
}

async fn serve(seen: Arc<Seen>) -> std::net::SocketAddr {
    spawn(
        HttpService::new(
            server(seen),
            |_| Ok(()),
            AllowedOrigins::list(["http://localhost"]),
        )
        .path("/mcp"),
    )
    .await
}

fn call(name: &str) -> Value {
    rpc("tools/call", json!({"name": name, "arguments": {}}))
}

fn complete(reference: Value, argument: &str, value: &str, context: Value) -> Value {
    rpc(
        "completion/complete",
        json!({"ref": reference, "argument": {"name": argument, "value": value},
               "context": {"arguments": context}}),
    )
}

#[tokio::test]
async fn structured_results_are_advertised_and_checked_on_the_way_out() {
    let log = Log::capture();
    let (m, l) = (Spec::load(MODERN), Spec::load(LEGACY));
    let addr = serve(Arc::default()).await;
    for proto in BOTH {
        let c = Client::new(proto, addr);
        let list = c.post(&rpc("tools/list", json!({}))).await.json();
        m.check_response("ListToolsResult", &list);
        let good = list["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == "good")
            .unwrap();
        assert_eq!(good["outputSchema"], celsius_schema());

        let r = c.post(&call("good")).await.json();
        m.check_response("CallToolResult", &r);
        assert_eq!(r["result"]["structuredContent"], json!({"celsius": 12.5}));
        assert_eq!(r["result"]["content"][0]["text"], r#"{"celsius":12.5}"#);
        let r = c.post(&call("plain")).await.json();
        assert_eq!(r["result"]["structuredContent"], json!({"k": 1}));
        // Without an output schema any value is sent at 2026-07-28 (SEP-2106); 2025-11-25
        // admits only an object, so there the text block alone carries it.
        let r = c.post(&call("not_object")).await.json();
        m.check_response("CallToolResult", &r);
        assert_eq!(r["result"]["structuredContent"], json!([1, 2]), "{r}");
        let legacy = c
            .post_plain(
                &lrpc("tools/call", json!({"name": "not_object", "arguments": {}})),
                &[("MCP-Protocol-Version", LEGACY)],
            )
            .await
            .json();
        l.check_response("CallToolResult", &legacy);
        assert!(
            legacy["result"].get("structuredContent").is_none(),
            "{legacy}"
        );
        assert_eq!(legacy["result"]["content"][0]["text"], "[1,2]");

        for (tool, reason) in [("bad", "/celsius"), ("missing", "no structured content")] {
            let resp = c.post(&call(tool)).await;
            assert_eq!(resp.status, 200, "{tool}");
            let r = resp.json();
            m.check_response("CallToolResult", &r);
            assert_eq!(r["result"]["isError"], true, "{tool}: {r}");
            assert_eq!(
                r["result"]["content"],
                json!([{"type": "text",
                        "text": "the tool's result did not conform to its output schema"}])
            );
            assert!(r["result"].get("structuredContent").is_none(), "{tool}");
            let body = String::from_utf8_lossy(&resp.body);
            assert!(!body.contains("SECRET") && !body.contains("warm"), "{body}");
            let logged = log.text();
            let line = logged
                .lines()
                .find(|l| l.contains("tool result refused") && l.contains(&format!("tool={tool}")))
                .unwrap_or_else(|| panic!("no log line for {tool} in:\n{logged}"));
            assert!(line.contains(reason), "{line}");
            assert!(
                !line.contains("SECRET"),
                "the log names the fault, not the value: {line}"
            );
        }
    }
}

#[tokio::test]
async fn every_block_travels_over_http() {
    let m = Spec::load(MODERN);
    let addr = serve(Arc::default()).await;
    for proto in BOTH {
        let c = Client::new(proto, addr);
        let r = c.post(&call("gallery")).await.json();
        m.check_response("CallToolResult", &r);
        let types: Vec<&str> = r["result"]["content"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b["type"].as_str().unwrap())
            .collect();
        assert_eq!(
            types,
            ["text", "image", "audio", "resource", "resource_link"]
        );
        assert_eq!(r["result"]["content"][3]["resource"]["blob"], "/w==");
        assert_eq!(
            r["result"]["content"][4]["annotations"],
            json!({"audience": ["user"], "priority": 0.5})
        );
        let p = c
            .post(&rpc(
                "prompts/get",
                json!({"name": "p", "arguments": {"a": "x"}}),
            ))
            .await
            .json();
        m.check_response("GetPromptResult", &p);
        assert_eq!(p["result"]["messages"][0]["role"], "assistant");
        assert_eq!(
            p["result"]["messages"][0]["content"]["type"],
            "resource_link"
        );
        assert_eq!(p["result"]["messages"][1]["content"]["data"], "AQID");
    }
}

#[tokio::test]
async fn completion_is_bounded_keyed_by_the_catalog_and_refused_before_the_completer() {
    let log = Log::capture();
    let m = Spec::load(MODERN);
    for proto in BOTH {
        let seen = Arc::new(Seen::default());
        let addr = serve(seen.clone()).await;
        let c = Client::new(proto, addr);
        let d = c.post(&rpc("server/discover", json!({}))).await.json();
        assert_eq!(d["result"]["capabilities"]["completions"], json!({}));

        let prompt = json!({"type": "ref/prompt", "name": "p"});
        for _ in 0..2 {
            let resp = c
                .post(&complete(
                    prompt.clone(),
                    "a",
                    "v1",
                    json!({"b": "x", "undeclared": "y"}),
                ))
                .await;
            assert_eq!(resp.status, 200);
            let r = resp.json();
            m.check_response("CompleteResult", &r);
            let completion = &r["result"]["completion"];
            assert_eq!(
                completion["values"].as_array().unwrap().len(),
                MAX_COMPLETION_VALUES
            );
            assert_eq!(completion["values"][99], "v99");
            assert_eq!(completion["total"], 150);
            assert_eq!(completion["hasMore"], true);
        }
        {
            let requests = seen.requests.lock().unwrap();
            let (one, two) = (&requests[0], &requests[1]);
            assert_eq!(one.value, "v1");
            // The argument and the context keys are the catalog's own Arcs, shared by every
            // request, never strings allocated from the caller's.
            assert!(Arc::ptr_eq(&one.argument, &two.argument));
            let keys = |r: &CompletionRequest| {
                r.arguments
                    .entries()
                    .map(|(k, _)| k.clone())
                    .collect::<Vec<_>>()
            };
            let (k1, k2) = (keys(one), keys(two));
            assert_eq!(k1.len(), 1, "undeclared context names are dropped");
            assert_eq!(&*k1[0], "b");
            assert!(Arc::ptr_eq(&k1[0], &k2[0]));
            assert_eq!(one.arguments.get("b"), Some(&json!("x")));
            assert!(one.arguments.get("undeclared").is_none());
            if let CompletionRef::Prompt(n) = &one.target {
                assert_eq!(&**n, "p");
            } else {
                panic!("{:?}", one.target);
            }
        }

        // The host's refusal travels as -32602 with its reason; a panic is -32603, logged.
        let r = c
            .post(&complete(prompt.clone(), "b", "", json!({})))
            .await
            .json();
        m.check_response("CompleteResult", &r);
        assert_eq!(r["error"]["code"], -32602);
        assert_eq!(
            r["error"]["data"],
            json!({"argument": "b", "reason": "no suggestions for b"})
        );
        let template = json!({"type": "ref/resource", "uri": "t://{x}/y"});
        let r = c
            .post(&complete(template.clone(), "x", "", json!({})))
            .await
            .json();
        assert_eq!(r["error"]["code"], -32603);
        assert!(log.text().contains("completer panicked"));
        let called = seen.calls.load(Ordering::SeqCst);
        assert_eq!(called, 4);

        // Refused before the completer runs: it is not called again.
        for (reference, argument) in [
            (prompt.clone(), "x"),
            (template.clone(), "a"),
            (json!({"type": "ref/prompt", "name": "q"}), "a"),
            (json!({"type": "ref/resource", "uri": "t://1/y"}), "x"),
        ] {
            let resp = c
                .post(&complete(reference.clone(), argument, "", json!({})))
                .await;
            assert_eq!(resp.status, 200, "{reference} {argument}");
            let r = resp.json();
            m.check_response("CompleteResult", &r);
            assert_eq!(r["error"]["code"], -32602, "{reference} {argument}: {r}");
        }
        assert_eq!(seen.calls.load(Ordering::SeqCst), called);
    }
}

#[tokio::test]
async fn without_a_completer_completion_is_not_advertised_and_not_served() {
    let addr = spawn(support::service()).await;
    for proto in BOTH {
        let c = Client::new(proto, addr);
        let d = c.post(&rpc("server/discover", json!({}))).await.json();
        assert!(
            d["result"]["capabilities"].get("completions").is_none(),
            "{d}"
        );
        let reference = json!({"type": "ref/prompt", "name": "p"});
        let resp = c.post(&complete(reference, "a", "", json!({}))).await;
        assert_eq!(resp.status, 404);
        assert_eq!(resp.code(), -32601);
    }
}
