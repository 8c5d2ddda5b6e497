//! A host for the runtime tests: tools that answer, fail, panic, sleep and block.

use beam_mcp::{Catalog, Server, ServerConfig, ToolCall, ToolError, ToolOutput, ToolSpec};
use serde_json::json;
use std::future::Future;
use std::time::Duration;

/// The test host's configuration: echo, fail, boom, slow and block tools.
pub(crate) fn config() -> ServerConfig {
    let ms = json!({
        "type": "object",
        "properties": {"ms": {"type": "integer", "minimum": 0, "maximum": 60000}},
        "required": ["ms"]
    });
    let catalog = Catalog::new()
        .tool(
            ToolSpec::new("echo", "Echo the text.").with_input_schema(json!({
                "type": "object",
                "properties": {"text": {"type": "string", "maxLength": 64}},
                "required": ["text"],
                "additionalProperties": false
            })),
        )
        .tool(ToolSpec::new("fail", "A tool error."))
        .tool(ToolSpec::new("boom", "Panics."))
        .tool(ToolSpec::new("slow", "Sleeps ms, then answers.").with_input_schema(ms.clone()))
        .tool(ToolSpec::new("block", "Blocks its thread for ms.").with_input_schema(ms));
    ServerConfig::new(catalog).dispatch(|call: ToolCall| async move {
        let ms = call
            .arguments
            .get("ms")
            .and_then(|v| v.as_u64())
            .unwrap_or(0);
        match &*call.tool {
            "echo" => Ok(ToolOutput::text(
                call.arguments
                    .get("text")
                    .and_then(|v| v.as_str())
                    .unwrap_or(""),
            )),
            "fail" => Err(ToolError::new("it failed")),
            "boom" => panic!("injected host panic"),
            "slow" => {
                tokio::time::sleep(Duration::from_millis(ms)).await;
                Ok(ToolOutput::text(format!("slept {ms}")))
            }
            "block" => {
                std::thread::sleep(Duration::from_millis(ms));
                Ok(ToolOutput::text(format!("blocked {ms}")))
            }
            other => Err(ToolError::new(format!("no such tool {other}"))),
        }
    })
}

/// The test host's server.
pub(crate) fn server() -> Server {
    Server::new(config()).expect("the test catalog is valid")
}

/// Polls `check` every 5 ms until it holds, for at most `limit`.
pub(crate) async fn eventually<F, Fut>(limit: Duration, mut check: F) -> bool
where
    F: FnMut() -> Fut,
    Fut: Future<Output = bool>,
{
    let start = tokio::time::Instant::now();
    while start.elapsed() < limit {
        if check().await {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    false
}

/// A `tools/call` frame.
pub(crate) fn call_frame(id: u64, tool: &str, arguments: serde_json::Value) -> Vec<u8> {
    serde_json::to_vec(&json!({
        "jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": tool, "arguments": arguments}
    }))
    .expect("a JSON value encodes")
}

/// A stdio connector for the runtime: every (re)start of the stdio actor opens a new in-memory
/// connection, whose client end the test takes from the returned list.
pub(crate) fn connector() -> (
    impl Fn() -> beam_mcp::runtime::StdioIo + Send + Sync + 'static,
    std::sync::Arc<std::sync::Mutex<Vec<tokio::io::DuplexStream>>>,
) {
    let clients = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let sink = clients.clone();
    let connect = move || {
        let (client, server) = tokio::io::duplex(1 << 16);
        sink.lock().unwrap().push(client);
        let (r, w) = tokio::io::split(server);
        beam_mcp::runtime::StdioIo::new(tokio::io::BufReader::new(r), w)
    };
    (connect, clients)
}
