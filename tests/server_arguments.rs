//! Arguments reach the host keyed by the schema's own names, values untouched; what the
//! schema admits without declaring reaches the host apart (a typed handler's flattened map
//! included) and is dropped with the call, so memory does not grow with distinct caller keys.
//!
//! A binary of its own, not a module of `tests/it`: its `#[global_allocator]` counts every
//! allocation of the process, so it is one per binary and no other test may allocate beside it.
#![allow(unsafe_code)] // the counting allocator below; test-only

use beam_mcp::{
    Answer, Args, Carrier, Catalog, HeaderFaultPolicy, Json, Server, ServerConfig, ToolCall,
    ToolOutput, ToolSpec,
};
use serde_json::{json, Value};
use std::alloc::{GlobalAlloc, Layout, System};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicIsize, Ordering};
use std::sync::{Arc, Mutex};

struct Counting;
static LIVE: AtomicIsize = AtomicIsize::new(0);

// SAFETY: forwards to the system allocator unchanged, only counting bytes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        LIVE.fetch_add(l.size() as isize, Ordering::Relaxed);
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        LIVE.fetch_sub(l.size() as isize, Ordering::Relaxed);
        unsafe { System.dealloc(p, l) }
    }
}

#[global_allocator]
static A: Counting = Counting;

type Seen = Arc<Mutex<Vec<ToolCall>>>;

/// A typed tool's arguments: one declared field and every other key, as labels.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Labels {
    place: String,
    #[serde(flatten)]
    labels: BTreeMap<String, i64>,
}

/// Answers with how many labels the handler decoded, so a test sees they arrived.
async fn count_labels(Args(l): Args<Labels>) -> Json<BTreeMap<String, usize>> {
    Json(BTreeMap::from([(l.place, l.labels.len())]))
}

fn server(seen: Seen, keep: bool) -> Server {
    let catalog = Catalog::new()
        .tool(
            ToolSpec::new("open", "additional properties allowed").with_input_schema(json!({
                "type":"object","properties":{"place":{"type":"string"},"n":{"type":"number"}}
            })),
        )
        .tool(
            ToolSpec::new("general", "2020-12 beyond the subset").with_input_schema(json!({
                "type": "object",
                "properties": {"place": {"type": "string", "enum": ["Oslo", "Bergen"]}},
                "patternProperties": {"^tag-": {"type": "string"}},
                "additionalProperties": {"type": "integer"},
                "propertyNames": {"maxLength": 80}
            })),
        )
        .tool(ToolSpec::new("bare", "no schema"))
        .tool(ToolSpec::new("labels", "a typed flattened map").with_handler(count_labels))
        .tool(
            ToolSpec::new("faulty", "misconfigured").with_input_schema(json!({
                "type":"object","properties":{"p":{"type":"object","x-mcp-header":"P"}}
            })),
        );
    let config = ServerConfig::new(catalog)
        .header_faults(HeaderFaultPolicy::RefuseCalls)
        .dispatch(move |call: ToolCall| {
            let seen = seen.clone();
            async move {
                if keep {
                    seen.lock().unwrap().push(call);
                }
                Ok(ToolOutput::text("ok"))
            }
        });
    Server::new(config).unwrap()
}

async fn call(s: &Server, tool: &str, args: Value) -> Value {
    let frame = json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":tool,"arguments":args}});
    let Answer::Reply(r) = s
        .answer(&serde_json::to_vec(&frame).unwrap(), Carrier::Stdio)
        .await
    else {
        panic!()
    };
    serde_json::from_slice(r.bytes()).unwrap()
}

/// As `call`, at 2026-07-28 (where a schema refusal is -32602 rather than an `isError` result).
async fn call_modern(s: &Server, tool: &str, args: Value) -> Value {
    let frame = json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{
        "name":tool,"arguments":args,"_meta":{
            "io.modelcontextprotocol/protocolVersion":"2026-07-28",
            "io.modelcontextprotocol/clientCapabilities":{}}}});
    let Answer::Reply(r) = s
        .answer(&serde_json::to_vec(&frame).unwrap(), Carrier::Stdio)
        .await
    else {
        panic!()
    };
    serde_json::from_slice(r.bytes()).unwrap()
}

#[tokio::test(flavor = "current_thread")]
async fn arguments_are_keyed_by_the_schema_and_values_untouched() {
    let seen: Seen = Arc::default();
    let s = server(seen.clone(), true);
    call(
        &s,
        "open",
        json!({"place":"Oslo","n":1.50,"undeclared":{"deep":[1]}}),
    )
    .await;
    call(&s, "bare", json!({"anything":"at all"})).await;
    call(
        &s,
        "general",
        json!({"place":"Bergen","tag-a":"x","other":3}),
    )
    .await;
    let calls = seen.lock().unwrap();
    let a = &calls[0].arguments;
    assert_eq!(a.get("place"), Some(&json!("Oslo")));
    assert_eq!(a.get("n"), Some(&json!(1.5)));
    assert_eq!(
        a.get("undeclared"),
        Some(&json!({"deep": [1]})),
        "keys the schema admits undeclared reach the host too"
    );
    assert_eq!(
        a.entries().map(|(k, _)| &**k).collect::<Vec<_>>(),
        ["n", "place"],
        "declared keys are the schema's own, in its order"
    );
    assert_eq!(
        a.undeclared().keys().collect::<Vec<_>>(),
        ["undeclared"],
        "the undeclared ones apart, as the caller spelled them"
    );
    assert_eq!(a.len(), 3);
    assert!(
        calls[1].arguments.is_empty(),
        "a tool without a schema is dispatched empty arguments"
    );
    let g = &calls[2].arguments;
    assert_eq!(g.get("place"), Some(&json!("Bergen")));
    assert_eq!(
        (g.get("tag-a"), g.get("other"), g.len()),
        (Some(&json!("x")), Some(&json!(3)), 3),
        "keys matched by patternProperties or additionalProperties are validated and forwarded"
    );
}

#[tokio::test(flavor = "current_thread")]
async fn a_general_schema_refusal_names_the_callers_path_not_its_value() {
    let s = server(Arc::default(), false);
    let r = call_modern(&s, "general", json!({"place":"Oslo","tag-x":7})).await;
    assert_eq!(r["error"]["code"], -32602, "{r}");
    assert_eq!(r["error"]["data"]["path"], "/tag-x", "{r}");
    assert_eq!(r["error"]["data"]["keyword"], "type", "{r}");
    assert_eq!(r["error"]["data"]["tool"], "general", "{r}");
    let r = call_modern(&s, "general", json!({"place":"SECRET-PLACE"})).await;
    assert_eq!(
        (&r["error"]["data"]["path"], &r["error"]["data"]["keyword"]),
        (&json!("/place"), &json!("enum")),
        "{r}"
    );
    assert!(!r.to_string().contains("SECRET-PLACE"), "{r}");
    // At 2025-11-25 the same refusal is a tool error whose text names the path, not the value.
    let r = call(&s, "general", json!({"place":"SECRET-PLACE"})).await;
    assert_eq!(r["result"]["isError"], true, "{r}");
    let text = r["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("/place"), "{r}");
    assert!(!text.contains("SECRET-PLACE"), "{r}");
}

#[tokio::test(flavor = "current_thread")]
async fn a_deferred_header_fault_refuses_the_tools_calls_as_internal() {
    let s = server(Arc::default(), false);
    let r = call(&s, "faulty", json!({})).await;
    assert_eq!(r["error"]["code"], -32603);
    assert!(
        r["error"].get("data").is_none(),
        "the diagnosis is logged, not sent: {r}"
    );
}

#[tokio::test(flavor = "current_thread")]
async fn memory_does_not_grow_with_ten_thousand_distinct_caller_keys() {
    let s = server(Arc::default(), false);
    for i in 0..1_000 {
        call(&s, "open", json!({"place":"Oslo", format!("warm{i}"): i})).await;
        call(&s, "general", json!({ format!("tag-warm{i}"): "v" })).await;
        call(&s, "general", json!({ format!("warm{i}"): "v" })).await;
        call(
            &s,
            "labels",
            json!({"place": "Oslo", format!("warm{i}"): i}),
        )
        .await;
    }
    let before = LIVE.load(Ordering::SeqCst);
    for i in 0..10_000 {
        let key = format!("caller-chosen-key-{i:06}-{}", "x".repeat(32));
        let r = call(&s, "open", json!({"place":"Oslo", key.clone(): i})).await;
        assert_eq!(r["result"]["content"][0]["text"], "ok");
        // The general validator: a key matched by patternProperties, one matched by the
        // additionalProperties schema, and one refused (its path names the caller's key).
        let tag = format!("tag-{i:06}-{}", "y".repeat(32));
        let r = call(
            &s,
            "general",
            json!({"place":"Oslo", tag: "v", key.clone(): i}),
        )
        .await;
        assert_eq!(r["result"]["content"][0]["text"], "ok", "{r}");
        // A typed handler's flattened map gets the key, and drops it with the call.
        let r = call(&s, "labels", json!({"place": "Oslo", key.clone(): i})).await;
        assert_eq!(r["result"]["structuredContent"], json!({"Oslo": 1}), "{r}");
        let r = call_modern(&s, "general", json!({ key: "not an integer" })).await;
        assert_eq!(r["error"]["code"], -32602, "{r}");
    }
    let after = LIVE.load(Ordering::SeqCst);
    // 50,000 keys of ~57 bytes would be over 2.5 MB if any were kept; allow noise far below.
    let grown = after - before;
    assert!(
        grown < 16 * 1024,
        "live heap grew by {grown} bytes over 50,000 distinct keys"
    );
}
