//! every typed `Outcome` agrees with the bytes sent beside it, through the real entry
//! points (`Server::answer` on stdio at both revisions, `ApplicationRef::answer` through the
//! dispatch pool, `ApplicationRef::dispatch`): a result, a tool's own error, a panicking tool,
//! a nonconforming structured result, invalid arguments at either revision, an unknown tool, a
//! resource not found, a reader that panics, a renderer that refuses, a deadline, overload.
//! The pool's refusals are ordered by events: the tool that takes the only worker reports that
//! it runs, and never ends by itself, so only the deadline answers it.

use beam_mcp::catalog::{
    PromptSpec, ReadError, RenderError, RenderedPrompt, ResourceContents, ResourceSpec,
};
use beam_mcp::runtime::{Application, ApplicationConfig};
use beam_mcp::{
    Answer, Carrier, Catalog, Outcome, Reply, Server, ServerConfig, ToolCall, ToolError,
    ToolOutput, ToolSpec, Unserved,
};
use serde_json::{json, Value};
use std::time::Duration;
use tokio::sync::mpsc;

const LIMIT: Duration = Duration::from_secs(10);

fn server() -> Server {
    server_reporting(mpsc::unbounded_channel().0)
}

/// The server, its `slow` tool reporting on `started` when it runs; `slow` never ends by
/// itself.
fn server_reporting(started: mpsc::UnboundedSender<()>) -> Server {
    let catalog =
        Catalog::new()
            .tool(ToolSpec::new("echo", "ok").with_input_schema(
                json!({"type": "object", "properties": {"n": {"type": "integer"}}}),
            ))
            .tool(ToolSpec::new("fails", "tool error"))
            .tool(ToolSpec::new("panics", "panics"))
            .tool(ToolSpec::new("slow", "sleeps"))
            .tool(
                ToolSpec::new("bad_shape", "nonconforming").with_output_schema(json!({
                    "type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]
                })),
            )
            .resource(ResourceSpec::new("mine://ok", "ok"))
            .resource(ResourceSpec::new("mine://refused", "refused"))
            .resource(ResourceSpec::new("mine://boom", "boom"))
            .reader(|uri: String| async move {
                match uri.as_str() {
                    "mine://ok" => Ok(vec![ResourceContents::text(uri, "hi")]),
                    "mine://boom" => panic!("reader panicked"),
                    _ => Err(ReadError::new("no")),
                }
            })
            .prompt(PromptSpec::new("greet"))
            .renderer(|_name: String, _args| async move {
                Err::<RenderedPrompt, _>(RenderError::new("cannot"))
            });
    let config = ServerConfig::new(catalog).dispatch(move |call: ToolCall| {
        let started = started.clone();
        async move {
            match &*call.tool {
                "echo" => Ok(ToolOutput::text("ok")),
                "fails" => Err(ToolError::new("it failed")),
                "panics" => panic!("tool panicked"),
                "slow" => {
                    let _ = started.send(());
                    std::future::pending::<()>().await;
                    Ok(ToolOutput::text("late"))
                }
                "bad_shape" => Ok(ToolOutput::structured(json!({"x": "not an integer"}))),
                _ => Err(ToolError::new("?")),
            }
        }
    });
    Server::new(config).unwrap()
}

const MODERN_META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

fn frame(method: &str, params: Value, modern: bool) -> Vec<u8> {
    let mut p = params.to_string();
    if modern {
        p.pop();
        if p.len() > 1 {
            p.push(',');
        }
        p.push_str(MODERN_META);
        p.push('}');
    }
    format!(r#"{{"jsonrpc":"2.0","id":7,"method":"{method}","params":{p}}}"#).into_bytes()
}

/// The outcome a reply's bytes say, read the way a client reads them.
fn said(reply: &Reply) -> Outcome {
    let v: Value = serde_json::from_slice(reply.bytes()).unwrap();
    if let Some(code) = v["error"]["code"].as_i64() {
        let Outcome::Refused(r) = reply.outcome() else {
            panic!("bytes are an error {v}, outcome {:?}", reply.outcome())
        };
        assert_eq!(r.code(), code, "{v}");
        let reason = v["error"]["data"]["reason"].as_str();
        if let Some(typed) = r.reason() {
            assert_eq!(Some(typed.as_str()), reason, "{v}");
        }
        return reply.outcome();
    }
    if v["result"]["isError"] == json!(true) {
        Outcome::ToolError
    } else {
        assert!(v.get("result").is_some(), "{v}");
        Outcome::Result
    }
}

fn check(reply: &Reply) -> Outcome {
    let said = said(reply);
    assert_eq!(
        said,
        reply.outcome(),
        "{}",
        String::from_utf8_lossy(reply.bytes())
    );
    assert_eq!(reply.error_code(), reply.outcome().error_code());
    said
}

async fn one(server: &Server, f: &[u8]) -> Reply {
    match server.answer(f, Carrier::Stdio).await {
        Answer::Reply(r) => r,
        other => panic!("no reply: {other:?}"),
    }
}

#[tokio::test]
async fn stdio_outcomes_agree_with_their_bytes_at_both_revisions() {
    let server = server();
    for modern in [false, true] {
        let call = |name: &str, args: Value| {
            frame(
                "tools/call",
                json!({"name": name, "arguments": args}),
                modern,
            )
        };
        assert_eq!(
            check(&one(&server, &call("echo", json!({}))).await),
            Outcome::Result
        );
        assert_eq!(
            check(&one(&server, &call("fails", json!({}))).await),
            Outcome::ToolError
        );
        assert_eq!(
            check(&one(&server, &call("panics", json!({}))).await),
            Outcome::ToolError
        );
        assert_eq!(
            check(&one(&server, &call("bad_shape", json!({}))).await),
            Outcome::ToolError
        );
        let invalid = check(&one(&server, &call("echo", json!({"n": "x"}))).await);
        if modern {
            assert!(
                invalid.refused().unwrap().is_invalid_arguments(),
                "{invalid:?}"
            );
        } else {
            assert_eq!(invalid, Outcome::ToolError);
        }
        let unknown = check(&one(&server, &call("nope", json!({}))).await);
        assert!(unknown.refused().unwrap().is_unknown_tool());
        let read = |uri: &str| frame("resources/read", json!({ "uri": uri }), modern);
        assert_eq!(
            check(&one(&server, &read("mine://ok")).await),
            Outcome::Result
        );
        for uri in ["mine://refused", "mine://unlisted"] {
            let nf = check(&one(&server, &read(uri)).await);
            assert!(
                nf.refused().unwrap().is_resource_not_found(),
                "{uri}: {nf:?}"
            );
        }
        let boom = check(&one(&server, &read("mine://boom")).await);
        assert!(boom.refused().unwrap().is_internal(), "{boom:?}");
        let get = frame("prompts/get", json!({"name": "greet"}), modern);
        let g = check(&one(&server, &get).await);
        assert!(g.refused().unwrap().is_invalid_params(), "{g:?}");
        let unknown_prompt = frame("prompts/get", json!({"name": "nope"}), modern);
        let u = check(&one(&server, &unknown_prompt).await);
        assert!(u.refused().unwrap().is_unknown_prompt(), "{u:?}");
        let nm = check(&one(&server, &frame("nope/nope", json!({}), modern)).await);
        assert!(nm.refused().unwrap().is_method_not_found());
    }
    for bad in [&b"{"[..], b"[]", br#"{"jsonrpc":"2.0","id":1}"#] {
        let r = one(&server, bad).await;
        let o = check(&r);
        let r = o.refused().unwrap();
        assert!(r.is_parse_error() || r.is_invalid_request(), "{r:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pool_refusals_agree_with_their_bytes_and_predicates() {
    let (started, mut running) = mpsc::unbounded_channel();
    let rt = Application::start(
        server_reporting(started),
        ApplicationConfig::new()
            .workers(1)
            .queue(0)
            .deadline(Duration::from_millis(300)),
    )
    .await
    .unwrap();
    let slow = frame("tools/call", json!({"name": "slow", "arguments": {}}), true);
    // One call takes the only worker; the next, with no queue, is shed.
    let first = {
        let rt = rt.clone();
        let slow = slow.clone();
        tokio::spawn(async move { rt.answer(&slow, Carrier::Stdio).await })
    };
    tokio::time::timeout(LIMIT, running.recv())
        .await
        .expect("the first call runs")
        .unwrap();
    let Answer::Reply(shed) = rt.answer(&slow, Carrier::Stdio).await else {
        panic!()
    };
    let o = check(&shed);
    let r = o.refused().unwrap();
    assert!(r.is_overloaded() && !r.is_deadline() && !r.is_unavailable() && !r.is_internal());
    assert_eq!(r.reason(), Some(Unserved::Overloaded));
    // `slow` never ends: only the deadline answers it.
    let Answer::Reply(late) = tokio::time::timeout(LIMIT, first).await.unwrap().unwrap() else {
        panic!()
    };
    let o = check(&late);
    let r = o.refused().unwrap();
    assert!(r.is_deadline() && !r.is_overloaded() && !r.is_unavailable() && !r.is_internal());
    rt.stop(LIMIT).await.unwrap();

    // The same through a host dispatch: the predicates of `DispatchError`. A queue this time:
    // a call that comes while the worker a deadline or a panic cost is being replaced waits
    // for it (its deadline counts the wait) rather than being shed.
    let rt = Application::start(
        server(),
        ApplicationConfig::new()
            .workers(1)
            .queue(4)
            // Room for a replacement worker to come on a loaded machine.
            .deadline(Duration::from_secs(1)),
    )
    .await
    .unwrap();
    let e = tokio::time::timeout(LIMIT, rt.dispatch("slow", json!({})))
        .await
        .unwrap()
        .unwrap_err();
    assert!(
        e.is_deadline() && !e.is_overloaded() && !e.is_unavailable(),
        "{e}"
    );
    assert_eq!(e.data()["reason"], "deadline");
    let panicked = rt.dispatch("panics", json!({})).await.unwrap();
    assert!(panicked.is_error());
    assert_eq!(panicked.texts(), ["the tool failed"]);
    let nonconforming = rt.dispatch("bad_shape", json!({})).await.unwrap();
    assert!(nonconforming.is_error());
    assert_eq!(nonconforming.structured(), None);
    rt.stop(LIMIT).await.unwrap();
}
