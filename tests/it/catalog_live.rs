//! The live catalog on a bare `Server`: a change validated as startup validates and applied
//! whole or not at all, a request in flight finishing on the catalog it started with, every
//! kind of item added, replaced and removed, capabilities following the catalog, concurrent
//! changes none of which is lost, and a paging client across random changes seeing every
//! surviving item exactly once.

use beam_mcp::catalog::{
    CatalogChange, PromptSpec, ReadError, RenderedPrompt, ResourceContents, ResourceSpec,
    ResourceTemplateSpec,
};
use beam_mcp::{
    Answer, Arguments, Carrier, Catalog, ConfigError, ConfigItem, Server, ServerConfig, Step,
    ToolCall, ToolOutput, ToolSpec,
};
use proptest::prelude::*;
use serde_json::{json, Value};
use std::collections::BTreeSet;

fn echo_server(catalog: Catalog) -> Server {
    Server::new(
        ServerConfig::new(catalog)
            .page_size(3)
            .cursor_key([5; 32])
            .dispatch(|call: ToolCall| async move {
                Ok(ToolOutput::text(format!("ran {}", call.tool)))
            }),
    )
    .unwrap()
}

fn tool(name: &str) -> ToolSpec {
    ToolSpec::new(name, "t").with_input_schema(json!({
        "type": "object", "properties": {"n": {"type": "integer"}}
    }))
}

fn frame(method: &str, params: Value) -> Vec<u8> {
    serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}))
        .unwrap()
}

async fn ask(s: &Server, method: &str, params: Value) -> Value {
    let Answer::Reply(r) = s.answer(&frame(method, params), Carrier::Stdio).await else {
        panic!("{method} was not answered")
    };
    serde_json::from_slice(r.bytes()).unwrap()
}

async fn tool_names(s: &Server) -> Vec<String> {
    let mut names = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..1000 {
        let params = cursor
            .as_ref()
            .map_or(json!({}), |c| json!({ "cursor": c }));
        let r = ask(s, "tools/list", params).await;
        let page = r["result"]["tools"]
            .as_array()
            .unwrap_or_else(|| panic!("{r}"));
        names.extend(page.iter().map(|t| t["name"].as_str().unwrap().to_owned()));
        match r["result"]["nextCursor"].as_str() {
            Some(c) => cursor = Some(c.to_owned()),
            None => return names,
        }
    }
    panic!("the list never ended")
}

async fn call(s: &Server, name: &str) -> Value {
    ask(s, "tools/call", json!({"name": name, "arguments": {}})).await
}

#[tokio::test]
async fn an_added_tool_is_listed_and_called_and_a_removed_one_is_unknown() {
    let s = echo_server(Catalog::new().tool(tool("a")));
    assert_eq!(s.generation(), 0);
    let g = s.change(CatalogChange::new().add_tool(tool("b"))).unwrap();
    assert_eq!((g, s.generation()), (1, 1));
    assert_eq!(tool_names(&s).await, ["a", "b"]);
    assert_eq!(call(&s, "b").await["result"]["content"][0]["text"], "ran b");

    s.change(CatalogChange::new().remove_tool("a")).unwrap();
    assert_eq!(tool_names(&s).await, ["b"]);
    let gone = call(&s, "a").await;
    assert_eq!(gone["error"]["code"], -32602, "{gone}");
    assert_eq!(gone["error"]["message"], "Unknown tool: a");
    assert_eq!(gone["error"]["data"], json!({"tool": "a"}));
    assert!(s.advertised_tool("a").is_none());
}

#[tokio::test]
async fn a_replaced_tool_is_served_with_its_new_schema() {
    let s = echo_server(Catalog::new().tool(tool("a")));
    let strict = ToolSpec::new("a", "t2").with_input_schema(json!({
        "type": "object", "properties": {"n": {"type": "string"}}, "additionalProperties": false
    }));
    s.change(CatalogChange::new().replace_tool(strict)).unwrap();
    assert_eq!(s.advertised_tool("a").unwrap()["description"], "t2");
    let r = ask(
        &s,
        "tools/call",
        json!({"name": "a", "arguments": {"n": 1}}),
    )
    .await;
    assert_eq!(
        r["result"]["isError"], true,
        "2025-era refusal as content: {r}"
    );
}

#[tokio::test]
async fn a_change_with_one_bad_step_changes_nothing() {
    let s = echo_server(Catalog::new().tool(tool("a")));
    let bad_schema =
        ToolSpec::new("c", "t").with_input_schema(json!({"type": "object", "minProperties": "x"}));
    let refusals = [
        (
            CatalogChange::new()
                .add_tool(tool("b"))
                .add_tool(bad_schema),
            "ToolSchema",
        ),
        (
            CatalogChange::new().add_tool(tool("b")).add_tool(tool("a")),
            "DuplicateTool",
        ),
        (
            CatalogChange::new().remove_tool("a").remove_tool("zzz"),
            "NotInCatalog",
        ),
        (
            CatalogChange::new()
                .add_tool(tool("b"))
                .replace_tool(tool("nope")),
            "NotInCatalog",
        ),
        (CatalogChange::new().add_tool(tool("bad name!")), "ToolName"),
        (
            CatalogChange::new()
                .add_tool(tool("b").with_meta("io.modelcontextprotocol/x", json!(1))),
            "MetaKey",
        ),
        (
            CatalogChange::new().add_resource(ResourceSpec::new("mem://x", "x")),
            "MissingReader",
        ),
        (
            CatalogChange::new().add_prompt(PromptSpec::new("p")),
            "MissingRenderer",
        ),
    ];
    for (change, want) in refusals {
        let e = s.change(change).unwrap_err();
        assert!(format!("{e:?}").starts_with(want), "{want}: {e:?}");
        assert_eq!(s.generation(), 0, "{want}: the generation moved");
        assert_eq!(tool_names(&s).await, ["a"], "{want}: the catalog moved");
    }
    let e = s
        .change(CatalogChange::new().remove_tool("zzz"))
        .unwrap_err();
    assert_eq!(
        e,
        ConfigError::NotInCatalog {
            item: ConfigItem::Tool("zzz".into())
        }
    );
}

#[tokio::test]
async fn steps_see_the_steps_before_them() {
    let s = echo_server(Catalog::new().tool(tool("a")));
    s.change(
        CatalogChange::new()
            .remove_tool("a")
            .add_tool(ToolSpec::new("a", "again"))
            .add_tool(tool("b"))
            .remove_tool("b"),
    )
    .unwrap();
    assert_eq!(tool_names(&s).await, ["a"]);
    assert_eq!(s.advertised_tool("a").unwrap()["description"], "again");
}

#[tokio::test]
async fn a_call_in_flight_finishes_on_the_catalog_it_started_with() {
    let s = echo_server(Catalog::new().tool(tool("a")).tool(tool("keep")));
    let Step::Pending(routed) = s.handle(
        &frame("tools/call", json!({"name": "a", "arguments": {"n": 1}})),
        Carrier::Stdio,
    ) else {
        panic!("a tools/call is host work")
    };
    s.change(CatalogChange::new().remove_tool("a")).unwrap();
    let reply: Value = serde_json::from_slice(routed.run().await.bytes()).unwrap();
    assert_eq!(reply["result"]["content"][0]["text"], "ran a", "{reply}");
    assert_eq!(call(&s, "a").await["error"]["code"], -32602);
}

#[tokio::test]
async fn capabilities_follow_the_catalog() {
    let s = echo_server(Catalog::new());
    let caps = |v: Value| v["result"]["capabilities"].clone();
    let init = json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}});
    let before = caps(ask(&s, "initialize", init.clone()).await);
    assert!(before.get("tools").is_none(), "{before}");
    assert_eq!(
        ask(&s, "tools/list", json!({})).await["error"]["code"],
        -32601
    );

    s.change(
        CatalogChange::new()
            .add_tool(tool("a"))
            .add_resource(ResourceSpec::new("mem://r", "r"))
            .add_resource(ResourceTemplateSpec::new("mem://t/{id}", "t"))
            .reader(|uri: String| async move {
                Ok::<_, ReadError>(vec![ResourceContents::text(uri, "body")])
            })
            .add_prompt(PromptSpec::new("p"))
            .renderer(|_n: String, _a: Arguments| async { Ok(RenderedPrompt::default()) }),
    )
    .unwrap();
    let after = caps(ask(&s, "initialize", init.clone()).await);
    assert_eq!(after["tools"], json!({"listChanged": false}), "{after}");
    assert_eq!(after["resources"]["listChanged"], false, "{after}");
    assert_eq!(after["prompts"], json!({"listChanged": false}), "{after}");
    let read = ask(&s, "resources/read", json!({"uri": "mem://t/7"})).await;
    assert_eq!(read["result"]["contents"][0]["text"], "body", "{read}");

    s.change(
        CatalogChange::new()
            .remove_tool("a")
            .remove_resource("mem://r")
            .remove_resource("mem://t/{id}")
            .remove_prompt("p"),
    )
    .unwrap();
    let emptied = caps(ask(&s, "initialize", init).await);
    assert_eq!(emptied, before);
    let read = ask(&s, "resources/read", json!({"uri": "mem://t/7"})).await;
    assert_eq!(read["error"]["code"], -32601, "{read}");
}

#[test]
fn concurrent_changes_are_applied_one_on_the_other_and_none_is_lost() {
    let s = echo_server(Catalog::new());
    std::thread::scope(|scope| {
        for t in 0..4 {
            let s = s.clone();
            scope.spawn(move || {
                for i in 0..50 {
                    s.change(CatalogChange::new().add_tool(tool(&format!("t{t}_{i:02}"))))
                        .unwrap();
                }
            });
        }
    });
    assert_eq!(s.generation(), 200);
    let names = futures_lite_block_on(tool_names(&s));
    assert_eq!(names.len(), 200);
}

/// Runs a future to its end on a fresh current-thread runtime (the scoped threads above are
/// plain threads).
fn futures_lite_block_on<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(f)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    /// Between every two pages the live catalog gains and loses tools: every tool there at the
    /// start and never removed is served exactly once, nothing twice, in order.
    #[test]
    fn a_paging_client_across_changes_sees_every_surviving_tool_once(
        initial in prop::collection::btree_set("[a-z]{1,3}", 1..40),
        edits in prop::collection::vec(
            (prop::collection::vec("[a-z]{1,3}", 0..3), prop::collection::vec(0usize..100, 0..3)),
            0..30,
        ),
    ) {
        let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
        let mut catalog = Catalog::new();
        for name in &initial {
            catalog = catalog.tool(tool(name));
        }
        let s = echo_server(catalog);
        let mut present: BTreeSet<String> = initial.clone();
        let mut removed = BTreeSet::new();
        let mut served = Vec::new();
        let mut cursor: Option<String> = None;
        for round in 0..10_000 {
            let params = cursor.as_ref().map_or(json!({}), |c| json!({ "cursor": c }));
            let r = runtime.block_on(ask(&s, "tools/list", params));
            let page = r["result"]["tools"].as_array().unwrap();
            served.extend(page.iter().map(|t| t["name"].as_str().unwrap().to_owned()));
            let Some(next) = r["result"]["nextCursor"].as_str() else { break };
            cursor = Some(next.to_owned());
            if let Some((adds, removes)) = edits.get(round) {
                let mut change = CatalogChange::new();
                let mut adding = BTreeSet::new();
                for a in adds {
                    if !present.contains(a) && adding.insert(a.clone()) {
                        change = change.add_tool(tool(a));
                    }
                }
                for r in removes {
                    let victim = present.iter().nth(r % present.len().max(1)).cloned();
                    if let Some(v) = victim {
                        present.remove(&v);
                        removed.insert(v.clone());
                        change = change.remove_tool(v);
                    }
                }
                present.extend(adding);
                s.change(change).unwrap();
            }
        }
        for name in initial.difference(&removed) {
            prop_assert_eq!(served.iter().filter(|s| *s == name).count(), 1, "{} not served once", name);
        }
        let mut sorted = served.clone();
        sorted.sort();
        sorted.dedup();
        prop_assert_eq!(sorted, served, "served out of order or twice");
    }
}
