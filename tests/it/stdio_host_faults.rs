//! Host faults and peer faults over the stdio transport, driven through `stdio::serve` on
//! in-memory pipes: panicking tools (before and inside their future), a vanished reader of
//! the output, pathological template uris.

use beam_mcp::catalog::{ResourceContents, ResourceTemplateSpec, MAX_TEMPLATE_URI_BYTES};
use beam_mcp::transport::stdio::{serve, StdioOptions};
use beam_mcp::{
    Answer, BoxFuture, Carrier, Catalog, Server, ServerConfig, ToolCall, ToolError, ToolOutput,
    ToolSpec,
};
use serde_json::{json, Value};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

fn server() -> Server {
    let catalog = Catalog::new()
        .tool(ToolSpec::new(
            "sync_boom",
            "panics before its future exists",
        ))
        .tool(ToolSpec::new("async_boom", "panics while running"))
        .tool(ToolSpec::new("fine", "works"))
        .resource(ResourceTemplateSpec::new("x://{+a}/{+b}!", "t"))
        .reader(|uri: String| async move { Ok(vec![ResourceContents::text(uri, "r")]) });
    struct Host;
    impl beam_mcp::Dispatch for Host {
        fn call(&self, call: ToolCall) -> BoxFuture<Result<ToolOutput, ToolError>> {
            match &*call.tool {
                "sync_boom" => panic!("host bug before the future"),
                "async_boom" => Box::pin(async { panic!("host bug inside the future") }),
                _ => Box::pin(async { Ok(ToolOutput::text("fine")) }),
            }
        }
    }
    Server::new(ServerConfig::new(catalog).dispatch(Host)).unwrap()
}

fn call(id: i64, tool: &str) -> String {
    format!(
        "{}\n",
        json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":{"name":tool}})
    )
}

#[tokio::test]
async fn panicking_tools_answer_a_tool_error_and_the_connection_goes_on() {
    let (mut client, server_end) = tokio::io::duplex(1 << 16);
    let (r, w) = tokio::io::split(server_end);
    let task = tokio::spawn(serve(
        server(),
        BufReader::new(r),
        w,
        StdioOptions::default(),
    ));
    let input = format!(
        "{}{}{}",
        call(1, "sync_boom"),
        call(2, "async_boom"),
        call(3, "fine")
    );
    client.write_all(input.as_bytes()).await.unwrap();
    let (cr, mut cw) = tokio::io::split(client);
    let mut lines = BufReader::new(cr).lines();
    let mut got = std::collections::HashMap::new();
    for _ in 0..3 {
        let line = tokio::time::timeout(Duration::from_secs(10), lines.next_line())
            .await
            .unwrap()
            .unwrap()
            .unwrap();
        let v: Value = serde_json::from_str(&line).unwrap();
        got.insert(v["id"].as_i64().unwrap(), v);
    }
    for id in [1, 2] {
        assert_eq!(got[&id]["result"]["isError"], true, "{}", got[&id]);
    }
    assert_eq!(got[&3]["result"]["content"][0]["text"], "fine");
    cw.shutdown().await.unwrap();
    tokio::time::timeout(Duration::from_secs(10), task)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
}

#[tokio::test]
async fn a_vanished_output_ends_the_connection_while_input_stays_open() {
    let (mut input, server_in) = tokio::io::duplex(1 << 16);
    let (server_out, output) = tokio::io::duplex(64);
    drop(output);
    let task = tokio::spawn(serve(
        server(),
        BufReader::new(server_in),
        server_out,
        StdioOptions::default(),
    ));
    input.write_all(call(1, "fine").as_bytes()).await.unwrap();
    // Input stays open: the server must notice the output is gone by itself.
    let ended = tokio::time::timeout(Duration::from_secs(10), task)
        .await
        .expect("server hung")
        .unwrap();
    assert!(ended.unwrap_err().is_write());
    drop(input);
}

#[tokio::test]
async fn long_uris_are_matched_by_no_template_so_matching_stays_bounded() {
    let s = server();
    let read = |uri: String| {
        let s = s.clone();
        async move {
            let f = json!({"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":uri}});
            let Answer::Reply(r) = s
                .answer(&serde_json::to_vec(&f).unwrap(), Carrier::Stdio)
                .await
            else {
                panic!()
            };
            serde_json::from_slice::<Value>(r.bytes()).unwrap()
        }
    };
    assert_eq!(
        read("x://a/b!".into()).await["result"]["contents"][0]["text"],
        "r"
    );
    let long = format!("x://{}", "/".repeat(MAX_TEMPLATE_URI_BYTES));
    // A safety net, not a timing figure: matching past the cap grows quadratically when it is
    // wrong (hours at 1 MiB); a minute is beyond any machine's honest run.
    let matched = tokio::time::timeout(Duration::from_secs(60), async {
        assert_eq!(read(long).await["error"]["code"], -32002);
        let worst = format!("x://{}", "/".repeat(MAX_TEMPLATE_URI_BYTES - 8));
        assert_eq!(read(worst).await["error"]["code"], -32002);
    })
    .await;
    assert!(matched.is_ok(), "matching long uris did not end");
}

#[tokio::test]
async fn initialize_is_answered_on_every_carrier_and_null_top_level_meta_is_refused() {
    let s = server();
    let init = br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#;
    // HTTP serves 2025-11-25 by default (its 2026-07-28-only mode is the service's, tested in
    // tests/it/http_legacy.rs).
    for carrier in [Carrier::Http, Carrier::Stdio] {
        let Answer::Reply(r) = s.answer(init, carrier).await else {
            panic!()
        };
        assert_eq!(r.error_code(), None, "{carrier:?}");
    }
    let null_meta = br#"{"jsonrpc":"2.0","id":1,"method":"ping","_meta":null}"#;
    let Answer::Reply(r) = s.answer(null_meta, Carrier::Stdio).await else {
        panic!()
    };
    assert_eq!(r.error_code(), Some(-32602));
}
