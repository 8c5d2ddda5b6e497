//! The weather example driven as a real subprocess over stdio, at both revisions; every
//! response is checked against the MCP schema of the revision it answers at.

use crate::support::child;
use crate::support::spec;

use child::ChildClient;
use serde_json::{json, Value};
use spec::Spec;

const MODERN: &str = "2026-07-28";
const LEGACY: &str = "2025-11-25";

fn modern_meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "1"}
    })
}

fn req(id: i64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

fn modern(id: i64, method: &str, mut params: Value) -> Value {
    params["_meta"] = modern_meta();
    req(id, method, params)
}

fn legacy_meta(id: i64, method: &str, mut params: Value) -> Value {
    params["_meta"] = json!({"io.modelcontextprotocol/protocolVersion": LEGACY});
    req(id, method, params)
}

fn code(v: &Value) -> i64 {
    v["error"]["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("not an error: {v}"))
}

fn weather() -> ChildClient {
    ChildClient::spawn("weather", &[])
}

#[tokio::test]
async fn discover_is_answered_bare_with_the_full_modern_result() {
    let (m, l) = (Spec::load(MODERN), Spec::load(LEGACY));
    let mut c = weather();
    let r = c
        .request(json!({"jsonrpc":"2.0","id":1,"method":"server/discover"}))
        .await;
    m.check_response("DiscoverResult", &r);
    assert_eq!(r["result"]["supportedVersions"], json!([MODERN, LEGACY]));
    assert_eq!(r["result"]["resultType"], "complete");
    assert_eq!(
        r["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "weather"
    );
    assert!(r["result"]["capabilities"]["tools"].is_object());
    assert_eq!(
        r["result"]["capabilities"]["resources"],
        json!({"listChanged": false, "subscribe": false})
    );
    // The example gives a completer: completion is advertised.
    assert_eq!(r["result"]["capabilities"]["completions"], json!({}));
    // Matched before the revision switch: a _meta naming anything does not change it.
    let r2 = c
        .request(json!({"jsonrpc":"2.0","id":2,"method":"server/discover",
            "params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2024-11-05"}}}))
        .await;
    assert_eq!(r2["result"], r["result"]);
    let _ = l;
}

#[tokio::test]
async fn legacy_session_initialize_ping_and_envelope() {
    let l = Spec::load(LEGACY);
    let mut c = weather();
    let r = c
        .request(req(
            1,
            "initialize",
            json!({"protocolVersion": LEGACY, "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}),
        ))
        .await;
    l.check_response("InitializeResult", &r);
    assert_eq!(r["result"]["protocolVersion"], LEGACY);
    assert_eq!(r["result"]["serverInfo"]["name"], "weather");
    assert!(r["result"].get("resultType").is_none());
    c.send(&json!({"jsonrpc":"2.0","method":"notifications/initialized"}))
        .await;
    let p = c.request(req(2, "ping", json!({}))).await;
    l.check_response("EmptyResult", &p);
    assert_eq!(p["result"], json!({}));
    // A ping declaring 2025-11-25 through _meta is answered, with no envelope.
    let p = c.request(legacy_meta(3, "ping", json!({}))).await;
    assert_eq!(p["result"], json!({}));
    let t = c.request(req(4, "tools/list", json!({}))).await;
    l.check_response("ListToolsResult", &t);
    assert!(t["result"].get("ttlMs").is_none() && t["result"].get("resultType").is_none());
    let call = c
        .request(req(
            5,
            "tools/call",
            json!({"name":"get_weather","arguments":{"place":"Lima"}}),
        ))
        .await;
    l.check_response("CallToolResult", &call);
    assert_eq!(
        call["result"]["content"][0]["text"],
        "{\"celsius\":19,\"conditions\":\"overcast\",\"place\":\"Lima\"}"
    );
    assert!(
        c.unsolicited.is_empty(),
        "a notification was answered: {:?}",
        c.unsolicited
    );
}

/// `initialize` params that break the 2025-11-25 `InitializeRequest` schema, each with the
/// member a refusal names.
fn malformed_initialize_params() -> Vec<(Option<Value>, &'static str)> {
    let info = json!({"name": "t", "version": "1"});
    let with = |edit: &dyn Fn(&mut Value)| {
        let mut p = json!({"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": info});
        edit(&mut p);
        Some(p)
    };
    vec![
        (None, "params"),
        (Some(json!({})), "params.protocolVersion"),
        (
            with(&|p| p["protocolVersion"] = Value::Null),
            "params.protocolVersion",
        ),
        (
            with(&|p| p["protocolVersion"] = json!(20251125)),
            "params.protocolVersion",
        ),
        (
            with(&|p| {
                p.as_object_mut().unwrap().remove("protocolVersion");
            }),
            "params.protocolVersion",
        ),
        (
            with(&|p| {
                p.as_object_mut().unwrap().remove("capabilities");
            }),
            "params.capabilities",
        ),
        (
            with(&|p| p["capabilities"] = json!("all")),
            "params.capabilities",
        ),
        (
            with(&|p| p["capabilities"] = json!({"roots": true})),
            "params.capabilities.roots",
        ),
        (
            with(&|p| {
                p.as_object_mut().unwrap().remove("clientInfo");
            }),
            "params.clientInfo",
        ),
        (
            with(&|p| p["clientInfo"] = json!("t 1")),
            "params.clientInfo",
        ),
        (
            with(&|p| p["clientInfo"] = json!({"name": "t"})),
            "params.clientInfo.version",
        ),
        (
            with(&|p| p["clientInfo"] = json!({"name": 7, "version": "1"})),
            "params.clientInfo.name",
        ),
    ]
}

#[tokio::test]
async fn initialize_is_held_to_its_schema_and_the_stream_goes_on() {
    let l = Spec::load(LEGACY);
    let mut c = weather();
    for (i, (params, field)) in malformed_initialize_params().into_iter().enumerate() {
        let id = 100 + i as i64;
        let mut msg = json!({"jsonrpc": "2.0", "id": id, "method": "initialize"});
        if let Some(p) = params {
            msg["params"] = p;
        }
        let r = c.request(msg).await;
        assert_eq!(code(&r), -32602, "{field}: {r}");
        assert_eq!(r["error"]["data"]["field"], field, "{r}");
        l.check("JSONRPCErrorResponse", &r);
    }
    // A huge protocolVersion of the wrong type: refused, and not echoed.
    let huge = "9".repeat(512 * 1024);
    let wrong = req(
        200,
        "initialize",
        json!({"protocolVersion": [huge], "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}),
    );
    let r = c.request(wrong).await;
    assert_eq!(code(&r), -32602);
    assert!(r.to_string().len() < 4096, "{}", r.to_string().len());
    // A huge string is a revision this server does not know: answered with the one it speaks,
    // the string not echoed.
    let unknown = req(
        201,
        "initialize",
        json!({"protocolVersion": huge, "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}),
    );
    let r = c.request(unknown).await;
    l.check_response("InitializeResult", &r);
    assert_eq!(r["result"]["protocolVersion"], LEGACY);
    assert!(r.to_string().len() < 4096, "{}", r.to_string().len());
    // What real clients send is answered: members the schema names but does not require,
    // capabilities of the client's own, members no schema names.
    let rich = req(
        202,
        "initialize",
        json!({"protocolVersion": LEGACY,
            "capabilities": {"roots": {"listChanged": true}, "sampling": {},
                "elicitation": {"form": {}}, "experimental": {}, "x-own": true},
            "clientInfo": {"name": "inspector", "version": "2.12.0", "title": "Inspector",
                "websiteUrl": "https://example.com", "extra": 1},
            "_meta": {"progressToken": 1},
            "extra": [1]}),
    );
    let r = c.request(rich).await;
    l.check_response("InitializeResult", &r);
    assert_eq!(r["result"]["protocolVersion"], LEGACY);
    // The stream went on through every refusal.
    let t = c.request(req(203, "tools/list", json!({}))).await;
    l.check_response("ListToolsResult", &t);
    assert!(c.unsolicited.is_empty(), "{:?}", c.unsolicited);
}

#[tokio::test]
async fn modern_requests_carry_the_envelope_and_cache_hints() {
    let m = Spec::load(MODERN);
    let mut c = weather();
    let t = c.request(modern(1, "tools/list", json!({}))).await;
    m.check_response("ListToolsResult", &t);
    assert_eq!(t["result"]["ttlMs"], 0);
    assert_eq!(t["result"]["cacheScope"], "private");
    assert_eq!(t["result"]["resultType"], "complete");
    assert_eq!(
        t["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "weather"
    );
    let tool = &t["result"]["tools"][0];
    assert_eq!(tool["name"], "get_weather");
    assert_eq!(tool["inputSchema"]["required"], json!(["place"]));
    let ok = c
        .request(modern(
            2,
            "tools/call",
            json!({"name":"get_weather","arguments":{"place":"Oslo"}}),
        ))
        .await;
    m.check_response("CallToolResult", &ok);
    assert_eq!(
        ok["result"]["content"][0],
        json!({"type":"text","text":"{\"celsius\":12,\"conditions\":\"light rain\",\"place\":\"Oslo\"}"})
    );
    let host_err = c
        .request(modern(
            3,
            "tools/call",
            json!({"name":"get_weather","arguments":{"place":"Mars"}}),
        ))
        .await;
    m.check_response("CallToolResult", &host_err);
    assert_eq!(host_err["result"]["isError"], true);
    assert_eq!(host_err["result"]["content"][0]["type"], "text");
    let p = c.request(modern(4, "ping", json!({}))).await;
    assert_eq!(code(&p), -32601, "ping is removed at 2026-07-28");
    m.check_response("JSONRPCErrorResponse", &p);
    let s = c.request(modern(5, "shutdown", json!({}))).await;
    assert_eq!(s["result"]["resultType"], "complete");
    assert_eq!(c.wait_exit().await.code(), Some(0));
}

#[tokio::test]
async fn tools_call_refusals_at_both_revisions() {
    let (m, l) = (Spec::load(MODERN), Spec::load(LEGACY));
    let mut c = weather();
    for (spec, mk, modern_era) in [
        (&m, modern as fn(i64, &str, Value) -> Value, true),
        (&l, req, false),
    ] {
        // Arguments that fail the schema: -32602 at 2026-07-28; at 2025-11-25 a tool execution
        // error (isError, the failing path in its text). The tool runs in neither case.
        let refused = |v: &Value, path: &str, keyword: &str| {
            spec.check_response("CallToolResult", v);
            if modern_era {
                assert_eq!(code(v), -32602, "{v}");
                assert_eq!(v["error"]["data"]["path"], path, "{v}");
                assert_eq!(v["error"]["data"]["keyword"], keyword, "{v}");
                assert_eq!(v["error"]["data"]["tool"], "get_weather");
            } else {
                assert_eq!(v["result"]["isError"], true, "{v}");
                let text = v["result"]["content"][0]["text"].as_str().unwrap();
                assert!(
                    text.starts_with("Invalid arguments for tool get_weather: "),
                    "{text}"
                );
                assert!(path.is_empty() || text.contains(path), "{text}");
            }
        };
        let unknown = c
            .request(mk(10, "tools/call", json!({"name":"nope","arguments":{}})))
            .await;
        assert_eq!(
            code(&unknown),
            -32602,
            "an unknown tool is a protocol error at both"
        );
        assert_eq!(unknown["error"]["data"]["tool"], "nope");
        spec.check_response("CallToolResult", &unknown);
        let bad = c
            .request(mk(
                11,
                "tools/call",
                json!({"name":"get_weather","arguments":{"place":5}}),
            ))
            .await;
        refused(&bad, "/place", "type");
        let extra = c
            .request(mk(
                12,
                "tools/call",
                json!({"name":"get_weather","arguments":{"place":"Oslo","x":1}}),
            ))
            .await;
        refused(&extra, "/x", "additionalProperties");
        // No `arguments` member is validated as {}: `place` is required.
        let missing = c
            .request(mk(13, "tools/call", json!({"name":"get_weather"})))
            .await;
        refused(&missing, "", "required");
        let long = c
            .request(mk(
                14,
                "tools/call",
                json!({"name":"get_weather","arguments":{"place":"x".repeat(65)}}),
            ))
            .await;
        refused(&long, "/place", "maxLength");
        // A request that does not satisfy CallToolRequest itself is a protocol error at both.
        let noname = c
            .request(mk(15, "tools/call", json!({"arguments":{}})))
            .await;
        assert_eq!(code(&noname), -32602);
        let not_object = c
            .request(mk(
                16,
                "tools/call",
                json!({"name":"get_weather","arguments":[1]}),
            ))
            .await;
        assert_eq!(code(&not_object), -32602);
    }
}

#[tokio::test]
async fn meta_rules() {
    let m = Spec::load(MODERN);
    let mut c = weather();
    let top = c
        .request(
            json!({"jsonrpc":"2.0","id":1,"method":"tools/list","_meta":modern_meta(),"params":{}}),
        )
        .await;
    assert_eq!(
        code(&top),
        -32602,
        "top-level _meta is refused, not read as a fallback"
    );
    let old = c
        .request(req(
            2,
            "tools/list",
            json!({"_meta":{"io.modelcontextprotocol/protocolVersion":"2024-11-05"}}),
        ))
        .await;
    assert_eq!(code(&old), -32022);
    assert_eq!(
        old["error"]["data"],
        json!({"supported":[MODERN, LEGACY], "requested":"2024-11-05"})
    );
    m.check("UnsupportedProtocolVersionError", &old);
    let no_caps = c
        .request(req(
            3,
            "tools/list",
            json!({"_meta":{"io.modelcontextprotocol/protocolVersion":MODERN}}),
        ))
        .await;
    assert_eq!(code(&no_caps), -32602);
    assert!(no_caps["error"]["message"]
        .as_str()
        .unwrap()
        .contains("clientCapabilities"));
    let no_version = c
        .request(req(
            4,
            "tools/list",
            json!({"_meta":{"io.modelcontextprotocol/clientCapabilities":{}}}),
        ))
        .await;
    assert_eq!(code(&no_version), -32602);
    assert!(no_version["error"]["data"]["field"]
        .as_str()
        .unwrap()
        .ends_with("protocolVersion"));
    let bad_meta = c.request(req(5, "tools/list", json!({"_meta": 3}))).await;
    assert_eq!(code(&bad_meta), -32602);
    // A legacy-only _meta (progressToken) is a legacy request.
    let progress = c
        .request(req(6, "ping", json!({"_meta":{"progressToken":"p"}})))
        .await;
    assert_eq!(progress["result"], json!({}));
    let mut bad_caps = json!({"_meta": modern_meta()});
    bad_caps["_meta"]["io.modelcontextprotocol/clientCapabilities"] = json!({"roots": 5});
    assert_eq!(
        code(&c.request(req(8, "tools/list", bad_caps)).await),
        -32602
    );
    let mut bad_level = json!({"_meta": modern_meta()});
    bad_level["_meta"]["io.modelcontextprotocol/logLevel"] = json!("loud");
    assert_eq!(
        code(&c.request(req(9, "tools/list", bad_level)).await),
        -32602
    );
    let mut own_caps = json!({"_meta": modern_meta()});
    own_caps["_meta"]["io.modelcontextprotocol/clientCapabilities"] =
        json!({"x-vendor": 5, "roots": {}});
    assert!(c
        .request(req(10, "tools/list", own_caps))
        .await
        .get("result")
        .is_some());
    // An integral id written as 1.0 is an integer to JSON Schema, and echoed as written.
    c.send_raw(b"{\"jsonrpc\":\"2.0\",\"id\":1.0,\"method\":\"ping\"}\n")
        .await;
    let echoed = c.next_line().await.unwrap();
    assert_eq!(echoed["id"], json!(1.0));
    assert_eq!(echoed["result"], json!({}));
    // clientInfo is optional.
    let mut p = json!({"_meta": modern_meta()});
    p["_meta"]
        .as_object_mut()
        .unwrap()
        .remove("io.modelcontextprotocol/clientInfo");
    let served = c.request(req(7, "tools/list", p)).await;
    assert!(served.get("result").is_some());
}

#[tokio::test]
async fn framing_refusals_and_the_stream_goes_on() {
    let m = Spec::load(MODERN);
    let mut c = weather();
    c.send_raw(b"{not json\n").await;
    let e = c.next_line().await.unwrap();
    assert_eq!(code(&e), -32700);
    assert!(e.get("id").is_none());
    m.check("JSONRPCErrorResponse", &e);
    // Not UTF-8, even inside a member nobody reads: not JSON text (RFC 8259).
    c.send_raw(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"z\":\"\xff\"}\n")
        .await;
    let e = c.next_line().await.unwrap();
    assert_eq!(code(&e), -32700);
    assert!(e.get("id").is_none());
    c.send_raw(b"[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]\n")
        .await;
    assert_eq!(code(&c.next_line().await.unwrap()), -32600);
    let deep = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{{\"a\":{}{}}}}}\n",
        "[".repeat(63),
        "]".repeat(63)
    );
    c.send_raw(deep.as_bytes()).await;
    let e = c.next_line().await.unwrap();
    assert_eq!(code(&e), -32600, "65 levels: {e}");
    let at_limit = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\",\"params\":{{\"a\":{}{}}}}}\n",
        "[".repeat(62),
        "]".repeat(62)
    );
    c.send_raw(at_limit.as_bytes()).await;
    assert_eq!(
        c.next_line().await.unwrap()["result"],
        json!({}),
        "64 levels are accepted"
    );
    let unknown = c.request(req(3, "tools/frobnicate", json!({}))).await;
    assert_eq!(code(&unknown), -32601);
    // Notifications get no response, even unknown ones, even malformed params.
    c.send(&json!({"jsonrpc":"2.0","method":"notifications/whatever","params":{}}))
        .await;
    // A line over 1 MiB is refused and the stream continues.
    let mut big =
        b"{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\",\"params\":{\"pad\":\"".to_vec();
    big.extend(std::iter::repeat_n(b'x', 1024 * 1024));
    big.extend_from_slice(b"\"}}\n");
    c.send_raw(&big).await;
    let e = c.next_line().await.unwrap();
    assert_eq!(code(&e), -32600);
    assert_eq!(e["error"]["data"]["limit"], 1024 * 1024);
    let after = c.request(req(10, "ping", json!({}))).await;
    assert_eq!(after["result"], json!({}));
    assert!(c.unsolicited.is_empty(), "{:?}", c.unsolicited);
}

#[tokio::test]
async fn requests_are_served_concurrently_each_on_its_own_line() {
    let mut c = weather();
    let mut burst = Vec::new();
    for i in 0..200 {
        let place = if i % 2 == 0 { "Oslo" } else { "Lima" };
        let mut line = serde_json::to_vec(&modern(
            i,
            "tools/call",
            json!({"name":"get_weather","arguments":{"place":place}}),
        ))
        .unwrap();
        line.push(b'\n');
        burst.extend(line);
    }
    c.send_raw(&burst).await;
    let mut seen = std::collections::HashSet::new();
    for _ in 0..200 {
        let v = c.next_line().await.unwrap();
        let id = v["id"].as_i64().unwrap();
        let want = if id % 2 == 0 {
            "{\"celsius\":12,\"conditions\":\"light rain\",\"place\":\"Oslo\"}"
        } else {
            "{\"celsius\":19,\"conditions\":\"overcast\",\"place\":\"Lima\"}"
        };
        assert_eq!(v["result"]["content"][0]["text"], want);
        assert!(seen.insert(id));
    }
    c.close_stdin();
    assert_eq!(
        c.wait_exit().await.code(),
        Some(0),
        "EOF ends the connection cleanly"
    );
}

#[tokio::test]
async fn exit_notification_and_exit_request_end_the_connection() {
    let mut c = weather();
    c.send(&json!({"jsonrpc":"2.0","method":"exit"})).await;
    assert_eq!(c.wait_exit().await.code(), Some(0));
    let mut c = weather();
    c.send(&json!({"jsonrpc":"2.0","method":"shutdown"})).await;
    assert_eq!(
        c.wait_exit().await.code(),
        Some(0),
        "a shutdown notification ends it too"
    );
    let mut c = weather();
    let r = c.request(req(1, "exit", json!({}))).await;
    assert_eq!(r["result"], json!({}));
    assert_eq!(c.wait_exit().await.code(), Some(0));
}

#[tokio::test]
async fn resources_and_prompts_at_both_revisions() {
    let (m, l) = (Spec::load(MODERN), Spec::load(LEGACY));
    let mut c = weather();
    let list = c.request(modern(1, "resources/list", json!({}))).await;
    m.check_response("ListResourcesResult", &list);
    assert_eq!(list["result"]["resources"][0]["uri"], "weather://places");
    let tl = c
        .request(modern(2, "resources/templates/list", json!({})))
        .await;
    m.check_response("ListResourceTemplatesResult", &tl);
    assert_eq!(
        tl["result"]["resourceTemplates"][0]["uriTemplate"],
        "weather://place/{name}"
    );
    let read = c
        .request(modern(
            3,
            "resources/read",
            json!({"uri":"weather://place/Oslo"}),
        ))
        .await;
    m.check_response("ReadResourceResult", &read);
    assert_eq!(read["result"]["contents"][0]["text"], "12°C, light rain");
    assert_eq!(read["result"]["ttlMs"], 0);
    let unlisted = c
        .request(modern(
            4,
            "resources/read",
            json!({"uri":"file:///etc/passwd"}),
        ))
        .await;
    assert_eq!(code(&unlisted), -32602);
    assert_eq!(unlisted["error"]["data"]["uri"], "file:///etc/passwd");
    let unlisted = c
        .request(req(
            5,
            "resources/read",
            json!({"uri":"file:///etc/passwd"}),
        ))
        .await;
    assert_eq!(code(&unlisted), -32002, "2025-11-25's code for not found");
    l.check("JSONRPCErrorResponse", &unlisted);
    let refused = c
        .request(modern(
            6,
            "resources/read",
            json!({"uri":"weather://place/Mars"}),
        ))
        .await;
    assert_eq!(code(&refused), -32602);
    assert_eq!(refused["error"]["data"]["reason"], "no such place: Mars");
    let pl = c.request(req(7, "prompts/list", json!({}))).await;
    l.check_response("ListPromptsResult", &pl);
    assert_eq!(pl["result"]["prompts"][0]["name"], "forecast");
    let got = c
        .request(modern(
            8,
            "prompts/get",
            json!({"name":"forecast","arguments":{"place":"Oslo"}}),
        ))
        .await;
    m.check_response("GetPromptResult", &got);
    assert_eq!(
        got["result"]["messages"][0]["content"]["text"],
        "What is the forecast for Oslo?"
    );
    assert!(
        got["result"].get("ttlMs").is_none(),
        "prompts/get is not cacheable"
    );
    let unknown = c
        .request(modern(9, "prompts/get", json!({"name":"nope"})))
        .await;
    assert_eq!(code(&unknown), -32602);
    assert_eq!(unknown["error"]["data"]["name"], "nope");
    let missing = c
        .request(modern(10, "prompts/get", json!({"name":"forecast"})))
        .await;
    assert_eq!(code(&missing), -32602);
    let undeclared = c
        .request(modern(
            11,
            "prompts/get",
            json!({"name":"forecast","arguments":{"place":"x","y":"z"}}),
        ))
        .await;
    assert_eq!(code(&undeclared), -32602);
}

#[tokio::test]
async fn structured_results_and_completion_at_both_revisions() {
    let (m, l) = (Spec::load(MODERN), Spec::load(LEGACY));
    let mut c = weather();
    for (spec, mk) in [(&m, modern as fn(i64, &str, Value) -> Value), (&l, req)] {
        let list = c.request(mk(20, "tools/list", json!({}))).await;
        spec.check_response("ListToolsResult", &list);
        let schema = &list["result"]["tools"][0]["outputSchema"];
        assert_eq!(
            schema["required"],
            json!(["place", "celsius", "conditions"])
        );
        let ok = c
            .request(mk(
                21,
                "tools/call",
                json!({"name":"get_weather","arguments":{"place":"lima"}}),
            ))
            .await;
        spec.check_response("CallToolResult", &ok);
        assert_eq!(
            ok["result"]["structuredContent"],
            json!({"place": "Lima", "celsius": 19, "conditions": "overcast"})
        );
        assert_eq!(
            ok["result"]["content"][0]["text"],
            "{\"celsius\":19,\"conditions\":\"overcast\",\"place\":\"Lima\"}"
        );
        // A tool error carries no structured result, and needs none.
        let err = c
            .request(mk(
                22,
                "tools/call",
                json!({"name":"get_weather","arguments":{"place":"Mars"}}),
            ))
            .await;
        spec.check_response("CallToolResult", &err);
        assert_eq!(err["result"]["isError"], true);
        assert!(err["result"].get("structuredContent").is_none());

        let prompt = c
            .request(mk(
                23,
                "completion/complete",
                json!({"ref": {"type": "ref/prompt", "name": "forecast"},
                       "argument": {"name": "place", "value": "o"}}),
            ))
            .await;
        spec.check_response("CompleteResult", &prompt);
        assert_eq!(
            prompt["result"]["completion"],
            json!({"values": ["Oslo"], "total": 1, "hasMore": false})
        );
        let template = c
            .request(mk(
                24,
                "completion/complete",
                json!({"ref": {"type": "ref/resource", "uri": "weather://place/{name}"},
                       "argument": {"name": "name", "value": ""}}),
            ))
            .await;
        spec.check_response("CompleteResult", &template);
        assert_eq!(
            template["result"]["completion"]["values"],
            json!(["Oslo", "Lima"])
        );
        let wrong = c
            .request(mk(
                25,
                "completion/complete",
                json!({"ref": {"type": "ref/prompt", "name": "forecast"},
                       "argument": {"name": "name", "value": ""}}),
            ))
            .await;
        assert_eq!(
            code(&wrong),
            -32602,
            "`name` is the template's, not the prompt's"
        );
        assert_eq!(wrong["error"]["data"]["argument"], "name");
    }
}
