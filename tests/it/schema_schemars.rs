//! A host whose schema `schemars` derives from Rust types (`examples/typed_tools.rs`), run as
//! a real subprocess and driven over stdio and over HTTP on 127.0.0.1: the schema has `$defs`,
//! `$ref`, `enum`, `anyOf` and `format`, is advertised exactly as derived, and is enforced,
//! each refusal -32602 with the failing path.

use crate::support::child;
use crate::support::http as http_rig;
use crate::support::spec;

use std::net::SocketAddr;

use child::{example_path, spawn_http_example, ChildClient};
use http_rig::{Client, BOTH};
use serde_json::{json, Value};
use spec::Spec;

const MODERN: &str = "2026-07-28";

fn modern(id: i64, method: &str, mut params: Value) -> Value {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {}
    });
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

fn call(id: i64, args: Value) -> Value {
    modern(
        id,
        "tools/call",
        json!({"name": "forecast", "arguments": args}),
    )
}

/// What the host hands to `ToolSpec::input_schema`, printed by the host itself.
fn derived_schema() -> Value {
    let out = std::process::Command::new(example_path("typed_tools"))
        .arg("--print-schema")
        .output()
        .expect("run typed_tools --print-schema (cargo test builds examples)");
    assert!(out.status.success());
    let schema: Value = serde_json::from_slice(&out.stdout).unwrap();
    let text = schema.to_string();
    for keyword in [
        "\"$defs\"",
        "\"$ref\"",
        "\"enum\"",
        "\"anyOf\"",
        "\"format\"",
    ] {
        assert!(
            text.contains(keyword),
            "the derived schema lacks {keyword}: {text}"
        );
    }
    assert_eq!(
        schema.get("$schema"),
        None,
        "2020-12 is MCP's default: the derived schema does not say it"
    );
    schema
}

fn valid() -> Value {
    json!({
        "place": {"name": "Oslo", "country": "NO"},
        "days": 3,
        "units": "fahrenheit",
        "alerts": [{"kind": "storm", "notify": "ops@example.com"}]
    })
}

/// Invalid arguments and the (path, keyword) each is refused with.
fn invalid() -> Vec<(Value, &'static str, &'static str)> {
    vec![
        (json!({"days": 3}), "", "required"),
        (
            json!({"place": {"name": "Oslo"}, "days": 3, "units": "kelvin"}),
            "/units",
            "anyOf",
        ),
        (
            json!({"place": {"name": ""}, "days": 3}),
            "/place/name",
            "minLength",
        ),
        (
            json!({"place": {"name": "Oslo", "country": "Norway"}, "days": 3}),
            "/place/country",
            "pattern",
        ),
        (
            json!({"place": {"name": "Oslo"}, "days": 15}),
            "/days",
            "maximum",
        ),
        (
            json!({"place": {"name": "Oslo"}, "days": 2.5}),
            "/days",
            "type",
        ),
        (
            json!({"place": {"name": "Oslo"}, "days": 1, "alerts": [{"kind": "flood", "notify": "x"}]}),
            "/alerts/0/kind",
            "enum",
        ),
        (
            json!({"place": {"name": "Oslo"}, "days": 1, "alerts": [{"kind": "heat"}]}),
            "/alerts/0",
            "required",
        ),
        (
            json!({"place": {"name": "Oslo", "zip": "0150"}, "days": 1}),
            "/place/zip",
            "additionalProperties",
        ),
        (
            json!({"place": {"name": "Oslo"}, "days": 1, "hourly": true}),
            "/hourly",
            "additionalProperties",
        ),
    ]
}

fn assert_refused(r: &Value, path: &str, keyword: &str, args: &Value) {
    assert_eq!(r["error"]["code"], -32602, "{args}: {r}");
    assert_eq!(r["error"]["data"]["path"], path, "{args}: {r}");
    assert_eq!(r["error"]["data"]["keyword"], keyword, "{args}: {r}");
    assert_eq!(r["error"]["data"]["tool"], "forecast", "{args}: {r}");
}

#[tokio::test]
async fn over_stdio_the_derived_schema_is_advertised_unchanged_and_enforced() {
    let schema = derived_schema();
    let m = Spec::load(MODERN);
    let mut c = ChildClient::spawn("typed_tools", &[]);

    let list = c.request(modern(1, "tools/list", json!({}))).await;
    m.check_response("ListToolsResult", &list);
    assert_eq!(list["result"]["tools"][0]["inputSchema"], schema);

    let ok = c.request(call(2, valid())).await;
    m.check_response("CallToolResult", &ok);
    assert_eq!(
        ok["result"]["content"][0]["text"],
        "Oslo (NO): 3 days of 12°F; alerts: [Storm to ops@example.com]",
        "{ok}"
    );
    // `format: email` is an annotation (2020-12 format-annotation): not asserted.
    let loose = c
        .request(call(
            3,
            json!({"place": {"name": "Lima"}, "days": 1, "units": null,
                   "alerts": [{"kind": "frost", "notify": "not an address"}]}),
        ))
        .await;
    assert_eq!(
        loose["result"]["content"][0]["text"],
        "Lima (--): 1 days of 12°C; alerts: [Frost to not an address]",
        "{loose}"
    );

    for (i, (args, path, keyword)) in invalid().into_iter().enumerate() {
        let r = c.request(call(10 + i as i64, args.clone())).await;
        assert_refused(&r, path, keyword, &args);
    }
}

/// Starts the host on a free loopback port and reads the address it prints.
async fn spawn_http() -> (tokio::process::Child, SocketAddr) {
    spawn_http_example("typed_tools", false).await
}

#[tokio::test]
async fn over_http_the_derived_schema_is_advertised_unchanged_and_enforced() {
    let schema = derived_schema();
    let m = Spec::load(MODERN);
    let (_child, addr) = spawn_http().await;
    for proto in BOTH {
        let client = Client::new(proto, addr);
        let list = client.post(&modern(1, "tools/list", json!({}))).await;
        assert_eq!(list.status, 200, "{proto:?}");
        let list = list.json();
        m.check_response("ListToolsResult", &list);
        assert_eq!(
            list["result"]["tools"][0]["inputSchema"], schema,
            "{proto:?}"
        );

        let ok = client.post(&call(2, valid())).await.json();
        m.check_response("CallToolResult", &ok);
        assert_eq!(
            ok["result"]["content"][0]["text"],
            "Oslo (NO): 3 days of 12°F; alerts: [Storm to ops@example.com]"
        );
        for (args, path, keyword) in invalid() {
            let r = client.post(&call(3, args.clone())).await;
            assert_eq!(r.status, 200, "{proto:?} {args}");
            assert_refused(&r.json(), path, keyword, &args);
        }
    }
}
