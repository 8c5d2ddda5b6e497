//! a host dispatch's `DispatchError` carries the JSON-RPC error the same call earns over
//! a wire — its message and data as they are sent, every string cut to `MAX_ECHO_BYTES` — as
//! it did when it was read back from the bytes (the CHANGELOG: `code()`, `message()` and
//! `data()` unchanged). A caller-chosen tool name or argument key of 5,000 bytes is echoed
//! bounded, by the runtime as by a wire.

use beam_mcp::protocol::MAX_ECHO_BYTES;
use beam_mcp::runtime::{Application, ApplicationConfig};
use beam_mcp::{Answer, Carrier, Catalog, Server, ServerConfig, ToolCall, ToolOutput, ToolSpec};
use serde_json::{json, Value};
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(10);

fn server() -> Server {
    let catalog = Catalog::new().tool(ToolSpec::new("strict", "closed schema").with_input_schema(
        json!({"type": "object", "properties": {}, "additionalProperties": false}),
    ));
    let config =
        ServerConfig::new(catalog).dispatch(|_c: ToolCall| async { Ok(ToolOutput::text("ok")) });
    Server::new(config).unwrap()
}

/// The error object the same call earns over stdio at 2026-07-28 (a refusal, not a tool error).
async fn over_the_wire(server: &Server, tool: &str, arguments: &Value) -> Value {
    let frame = json!({"jsonrpc": "2.0", "id": 0, "method": "tools/call",
        "params": {"name": tool, "arguments": arguments, "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}}}});
    let Answer::Reply(r) = server
        .answer(&serde_json::to_vec(&frame).unwrap(), Carrier::Stdio)
        .await
    else {
        panic!("answered")
    };
    let v: Value = serde_json::from_slice(r.bytes()).unwrap();
    v["error"].clone()
}

fn longest_string(v: &Value) -> usize {
    match v {
        Value::String(s) => s.len(),
        Value::Array(a) => a.iter().map(longest_string).max().unwrap_or(0),
        Value::Object(m) => m
            .iter()
            .map(|(k, v)| k.len().max(longest_string(v)))
            .max()
            .unwrap_or(0),
        _ => 0,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dispatch_error_is_the_error_the_wire_carries_bounded_echoes_included() {
    let wire_server = server();
    let rt = Application::start(server(), ApplicationConfig::new())
        .await
        .unwrap();
    let long = "x".repeat(5000);
    let cases = [
        (long.clone(), json!({})),
        ("strict".to_owned(), json!({ long.clone(): 1 })),
    ];
    for (tool, arguments) in cases {
        let e = tokio::time::timeout(LIMIT, rt.dispatch(&tool, arguments.clone()))
            .await
            .unwrap()
            .unwrap_err();
        let wire = over_the_wire(&wire_server, &tool, &arguments).await;
        assert!(
            longest_string(&wire) <= MAX_ECHO_BYTES + 3,
            "the wire is bounded"
        );
        assert_eq!(e.code(), wire["code"].as_i64().unwrap());
        assert!(
            e.message().len() <= MAX_ECHO_BYTES + 3,
            "message of {} bytes",
            e.message().len()
        );
        assert_eq!(e.message(), wire["message"].as_str().unwrap());
        assert_eq!(e.data(), &wire["data"], "data as sent");
        assert!(
            e.to_string().len() < 4 * 1024,
            "{} bytes",
            e.to_string().len()
        );
        // The typed kind survives the bounding.
        assert!(e.is_unknown_tool() || e.is_invalid_arguments(), "{e:?}");
    }
    rt.stop(LIMIT).await.unwrap();
}
