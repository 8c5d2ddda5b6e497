//! Typed tools (`examples/typed_tools.rs`) run as a real subprocess and driven over stdio and
//! over HTTP/1.1 and h2c on 127.0.0.1: what the derived schema admits is what the handler's
//! types decode (a `#[serde(flatten)]` map gets the undeclared keys, `3.0` reaches a `u8`), the
//! context reaches the handler, and a value that passes a hand-set schema but not the type is
//! the host's bug: -32603 with nothing of the value, logged with the tool's name. A result
//! whose schema is not an object is listed and sent at 2026-07-28, and at 2025-11-25 listed
//! without its schema and sent as text (SEP-2106), each checked against the vendored schemas.

use crate::support::child;
use crate::support::http as http_rig;
use crate::support::spec;

use std::net::SocketAddr;

use child::{spawn_http_example, ChildClient, WAIT};
use http_rig::{Client, BOTH};
use serde_json::{json, Value};
use spec::Spec;
use tokio::io::{AsyncBufReadExt, BufReader};

const MODERN: &str = "2026-07-28";
const LEGACY: &str = "2025-11-25";

fn modern(id: i64, method: &str, mut params: Value) -> Value {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {}
    });
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

fn call(id: i64, tool: &str, args: Value) -> Value {
    modern(id, "tools/call", json!({"name": tool, "arguments": args}))
}

/// Each call and what must come back: `Ok(structuredContent or text)` or `Err((code, keyword))`.
enum Want {
    Structured(Value),
    Text(&'static str),
    Refused(&'static str, &'static str),
    Internal,
}

fn cases() -> Vec<(&'static str, Value, Want)> {
    vec![
        (
            "label",
            json!({"name": "crate", "level": 3.0, "color": "red", "size": "L"}),
            Want::Structured(json!({
                "name": "crate", "level": 3, "labels": {"color": "red", "size": "L"}
            })),
        ),
        (
            "label",
            json!({"name": "crate", "level": 255}),
            Want::Structured(json!({"name": "crate", "level": 255, "labels": {}})),
        ),
        (
            "label",
            json!({"name": "crate", "level": 2.5e2}),
            Want::Structured(json!({"name": "crate", "level": 250, "labels": {}})),
        ),
        (
            "label",
            json!({"name": "crate", "level": 256}),
            Want::Refused("/level", "maximum"),
        ),
        (
            "label",
            json!({"name": "crate", "level": 3.5}),
            Want::Refused("/level", "type"),
        ),
        (
            "label",
            json!({"name": "crate", "level": 1, "color": 5}),
            Want::Refused("/color", "type"),
        ),
        ("strict_count", json!({"n": 7.0}), Want::Text("counted 7")),
        ("strict_count", json!({"n": 300}), Want::Internal),
    ]
}

fn check(spec: &Spec, tool: &str, args: &Value, want: &Want, reply: &Value, how: &str) {
    match want {
        Want::Structured(value) => {
            spec.check_response("CallToolResult", reply);
            let result = &reply["result"];
            assert_eq!(&result["structuredContent"], value, "{how} {tool} {args}");
            let text: Value =
                serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap();
            assert_eq!(&text, value, "{how}: the text block is the same JSON");
        }
        Want::Text(text) => {
            spec.check_response("CallToolResult", reply);
            assert_eq!(reply["result"]["content"][0]["text"], *text, "{how} {args}");
        }
        Want::Refused(path, keyword) => {
            assert_eq!(reply["error"]["code"], -32602, "{how} {args}: {reply}");
            assert_eq!(reply["error"]["data"]["path"], *path, "{how} {args}");
            assert_eq!(reply["error"]["data"]["keyword"], *keyword, "{how} {args}");
            assert_eq!(reply["error"]["data"]["tool"], tool, "{how} {args}");
        }
        Want::Internal => {
            assert_eq!(reply["error"]["code"], -32603, "{how} {args}: {reply}");
            let text = reply.to_string();
            assert!(
                !text.contains("300") && !text.contains("u8"),
                "{how}: the reply says nothing of the value or the type: {text}"
            );
        }
    }
}

#[tokio::test]
async fn over_stdio_what_the_schema_admits_the_types_decode() {
    let m = Spec::load(MODERN);
    let mut c = ChildClient::spawn("typed_tools", &[]);
    for (i, (tool, args, want)) in cases().into_iter().enumerate() {
        let reply = c.request(call(i as i64 + 1, tool, args.clone())).await;
        check(&m, tool, &args, &want, &reply, "stdio");
    }
    let who = c.request(call(100, "whoami", json!({}))).await;
    m.check_response("CallToolResult", &who);
    assert_eq!(
        who["result"]["structuredContent"],
        json!({"revision": MODERN, "carrier": "stdio"})
    );
    c.close_stdin();
    assert!(c.wait_exit().await.success());
}

/// Starts the host on a free loopback port and reads the address it prints.
async fn spawn_http() -> (tokio::process::Child, SocketAddr) {
    spawn_http_example("typed_tools", true).await
}

#[tokio::test]
async fn over_http_what_the_schema_admits_the_types_decode_and_a_mismatch_is_logged() {
    let m = Spec::load(MODERN);
    let (mut child, addr) = spawn_http().await;
    for proto in BOTH {
        let client = Client::new(proto, addr);
        for (i, (tool, args, want)) in cases().into_iter().enumerate() {
            let r = client.post(&call(i as i64 + 1, tool, args.clone())).await;
            // Invalid arguments are an answer about the call (200); the host's bug is the
            // server's failure (500), as every -32603 is.
            let status = if matches!(want, Want::Internal) {
                500
            } else {
                200
            };
            assert_eq!(r.status, status, "{proto:?} {tool} {args}");
            check(&m, tool, &args, &want, &r.json(), &format!("{proto:?}"));
        }
        let who = client.post(&call(100, "whoami", json!({}))).await.json();
        assert_eq!(
            who["result"]["structuredContent"],
            json!({"revision": MODERN, "carrier": "http"}),
            "{proto:?}"
        );
    }
    // The host's bug is in the host's log, named by tool.
    let stderr = child.stderr.take().unwrap();
    let mut lines = BufReader::new(stderr).lines();
    let logged = tokio::time::timeout(WAIT, async {
        while let Some(line) = lines.next_line().await.unwrap() {
            if line.contains("strict_count") && line.contains("did not decode") {
                return line;
            }
        }
        panic!("the log ended without the decode failure");
    })
    .await
    .expect("the decode failure was not logged within the wait");
    assert!(logged.contains("ERROR"), "{logged}");
}

/// Checks `list` (a `tools/list` reply) and `call` (`hourly` with `{"hours": 3}`) as
/// `revision` must see them: against its vendored schema, and with `hourly`'s array schema and
/// value present at 2026-07-28 and absent at 2025-11-25, where only the text carries it.
fn check_non_object_result(how: &str, revision: &str, list: &Value, call: &Value) {
    let spec = Spec::load(revision);
    spec.check_response("ListToolsResult", list);
    spec.check_response("CallToolResult", call);
    let tools = list["result"]["tools"].as_array().unwrap();
    let entry = |name: &str| tools.iter().find(|t| t["name"] == name).unwrap().clone();
    let hourly = entry("hourly");
    let expected = json!([12, 11, 10]);
    let text: Value =
        serde_json::from_str(call["result"]["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(
        text, expected,
        "{how} {revision}: the text block carries the value"
    );
    // An object-rooted output schema is listed at both.
    assert_eq!(
        entry("label")["outputSchema"]["type"],
        "object",
        "{how} {revision}"
    );
    if revision == MODERN {
        assert_eq!(hourly["outputSchema"]["type"], "array", "{how}: {hourly}");
        assert_eq!(
            hourly["outputSchema"]["items"]["maximum"], 32767,
            "{how}: {hourly}"
        );
        assert_eq!(
            call["result"]["structuredContent"], expected,
            "{how}: {call}"
        );
    } else {
        assert!(hourly.get("outputSchema").is_none(), "{how}: {hourly}");
        assert!(
            call["result"].get("structuredContent").is_none(),
            "{how}: {call}"
        );
    }
}

fn legacy(id: i64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

#[tokio::test]
async fn a_result_whose_schema_is_not_an_object_over_stdio_at_each_revision() {
    let mut c = ChildClient::spawn("typed_tools", &[]);
    let hours = json!({"name": "hourly", "arguments": {"hours": 3}});
    let list = c.request(modern(1, "tools/list", json!({}))).await;
    let call = c.request(modern(2, "tools/call", hours.clone())).await;
    check_non_object_result("stdio", MODERN, &list, &call);

    let init = c
        .request(legacy(
            3,
            "initialize",
            json!({"protocolVersion": LEGACY, "capabilities": {},
                   "clientInfo": {"name": "t", "version": "1"}}),
        ))
        .await;
    assert_eq!(init["result"]["protocolVersion"], LEGACY, "{init}");
    c.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await;
    let list = c.request(legacy(4, "tools/list", json!({}))).await;
    let call = c.request(legacy(5, "tools/call", hours)).await;
    check_non_object_result("stdio", LEGACY, &list, &call);
    // An object result still travels structured at 2025-11-25.
    let who = c
        .request(legacy(
            6,
            "tools/call",
            json!({"name": "whoami", "arguments": {}}),
        ))
        .await;
    assert_eq!(
        who["result"]["structuredContent"],
        json!({"revision": LEGACY, "carrier": "stdio"})
    );
    c.close_stdin();
    assert!(c.wait_exit().await.success());
}

#[tokio::test]
async fn a_result_whose_schema_is_not_an_object_over_http_at_each_revision() {
    let (_child, addr) = spawn_http().await;
    let hours = json!({"name": "hourly", "arguments": {"hours": 3}});
    for proto in BOTH {
        let how = format!("{proto:?}");
        let client = Client::new(proto, addr);
        let list = client
            .post(&modern(1, "tools/list", json!({})))
            .await
            .json();
        let call = client
            .post(&modern(2, "tools/call", hours.clone()))
            .await
            .json();
        check_non_object_result(&how, MODERN, &list, &call);

        let v = [("MCP-Protocol-Version", LEGACY)];
        let list = client
            .post_plain(&legacy(3, "tools/list", json!({})), &v)
            .await
            .json();
        let call = client
            .post_plain(&legacy(4, "tools/call", hours.clone()), &v)
            .await
            .json();
        check_non_object_result(&how, LEGACY, &list, &call);
    }
}
