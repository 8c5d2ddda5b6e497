//! Per-caller views over a real listener, HTTP/1.1 and h2c: two principals (a bearer token the
//! host's async authorize hook turns into a tenant) each list and use only their own tools,
//! resources, templates and prompts; a lookup of the other's item is answered byte for byte as
//! the same lookup once that item has been removed from the catalog, headers included; lists
//! served under a view are cached `private` at the configured ttl.

use crate::support::http as rig;
use crate::support::tenant::{tenant_service, Tenant};

use beam_mcp::catalog::{
    CatalogChange, Completion, CompletionRequest, Item, PromptArgument, PromptSpec, ReadError,
    RenderedPrompt, ResourceContents, ResourceSpec, ResourceTemplateSpec,
};
use beam_mcp::protocol::{CacheHint, Cacheable};
use beam_mcp::{
    Arguments, Catalog, Extensions, Server, ServerConfig, ToolCall, ToolOutput, ToolSpec,
};
use rig::{rpc, spawn, Client, Resp, BOTH};
use serde_json::{json, Value};
use std::time::Duration;

fn owner(name: &str) -> &str {
    name.split(['.', ':']).next().unwrap_or("")
}

fn server() -> Server {
    // Each tenant's items are added while serving, as `tenant_items` puts them back below.
    let catalog = Catalog::new()
        .reader(|uri: String| async move {
            Ok::<_, ReadError>(vec![ResourceContents::text(
                uri.clone(),
                format!("read {uri}"),
            )])
        })
        .renderer(|_n: String, _a: Arguments| async { Ok(RenderedPrompt::default()) })
        .completer(|_r: CompletionRequest| async { Ok(Completion::new(["x"])) });
    let config = ServerConfig::new(catalog)
        .cache_hint(Cacheable::Tools, CacheHint::public(Duration::from_secs(60)))
        .dispatch(
            |call: ToolCall| async move { Ok(ToolOutput::text(format!("ran {}", call.tool))) },
        )
        .view(|item: Item<'_>, caller: &Extensions| {
            let Some(Tenant(t)) = caller.get::<Tenant>() else {
                return false;
            };
            let name = match item {
                Item::Tool(s) => s.name(),
                Item::Resource(s) => s.uri(),
                Item::ResourceTemplate(s) => s.uri_template(),
                Item::Prompt(s) => s.name(),
                _ => return false,
            };
            owner(name) == t
        });
    let server = Server::new(config).unwrap();
    for t in ["alice", "bob"] {
        server.change(tenant_items(t)).unwrap();
    }
    server
}

async fn post(c: &Client, tenant: &str, body: &Value, extra: &[(&str, &str)]) -> Resp {
    let extra: Vec<(String, String)> = extra
        .iter()
        .map(|(k, v)| ((*k).into(), (*v).into()))
        .collect();
    c.post_with(body, move |h| {
        h.push(("authorization".into(), format!("Bearer {tenant}")));
        for (k, v) in extra {
            rig::set(h, &k, &v);
        }
    })
    .await
}

async fn listed(c: &Client, tenant: &str, method: &str, member: &str, key: &str) -> Vec<String> {
    let v = post(c, tenant, &rpc(method, json!({})), &[]).await.json();
    v["result"][member]
        .as_array()
        .unwrap_or_else(|| panic!("{v}"))
        .iter()
        .map(|i| i[key].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn each_principal_lists_and_calls_only_its_own() {
    let addr = spawn(tenant_service(server())).await;
    for proto in BOTH {
        let c = Client::new(proto, addr);
        for t in ["alice", "bob"] {
            assert_eq!(
                listed(&c, t, "tools/list", "tools", "name").await,
                [format!("{t}.ping"), format!("{t}.report")],
                "{proto:?}"
            );
            assert_eq!(
                listed(&c, t, "resources/list", "resources", "uri").await,
                [format!("{t}://notes")]
            );
            assert_eq!(
                listed(
                    &c,
                    t,
                    "resources/templates/list",
                    "resourceTemplates",
                    "uriTemplate"
                )
                .await,
                [format!("{t}://doc/{{id}}")]
            );
            assert_eq!(
                listed(&c, t, "prompts/list", "prompts", "name").await,
                [format!("{t}.greet")]
            );
            let call = rpc(
                "tools/call",
                json!({"name": format!("{t}.ping"), "arguments": {}}),
            );
            let v = post(&c, t, &call, &[]).await.json();
            assert_eq!(
                v["result"]["content"][0]["text"],
                format!("ran {t}.ping"),
                "{v}"
            );
            let read = rpc("resources/read", json!({"uri": format!("{t}://doc/9")}));
            let v = post(&c, t, &read, &[]).await.json();
            assert_eq!(
                v["result"]["contents"][0]["text"],
                format!("read {t}://doc/9"),
                "{v}"
            );
        }
    }
}

#[tokio::test]
async fn a_list_under_a_view_is_cached_private_at_the_configured_ttl() {
    let addr = spawn(tenant_service(server())).await;
    let c = Client::new(rig::Proto::H1, addr);
    let v = post(&c, "alice", &rpc("tools/list", json!({})), &[])
        .await
        .json();
    assert_eq!(v["result"]["cacheScope"], "private", "{v}");
    assert_eq!(v["result"]["ttlMs"], 60_000, "{v}");
}

/// What alice is answered for each lookup of bob's items (and of a name nobody has).
fn probes() -> Vec<(Value, Vec<(&'static str, &'static str)>)> {
    vec![
        (
            rpc("tools/call", json!({"name": "bob.ping", "arguments": {}})),
            vec![],
        ),
        (
            rpc(
                "tools/call",
                json!({"name": "bob.report", "arguments": {"region": "eu"}}),
            ),
            vec![("Mcp-Param-Region", "eu")],
        ),
        (
            rpc("tools/call", json!({"name": "bob.report", "arguments": {}})),
            vec![],
        ),
        (rpc("resources/read", json!({"uri": "bob://notes"})), vec![]),
        (rpc("resources/read", json!({"uri": "bob://doc/9"})), vec![]),
        (
            rpc(
                "prompts/get",
                json!({"name": "bob.greet", "arguments": {"who": "x"}}),
            ),
            vec![],
        ),
        (
            rpc(
                "completion/complete",
                json!({"ref": {"type": "ref/prompt", "name": "bob.greet"}, "argument": {"name": "who", "value": ""}}),
            ),
            vec![],
        ),
        (
            rpc(
                "completion/complete",
                json!({"ref": {"type": "ref/resource", "uri": "bob://doc/{id}"}, "argument": {"name": "id", "value": ""}}),
            ),
            vec![],
        ),
    ]
}

async fn answers(c: &Client) -> Vec<(u16, Value)> {
    let mut out = Vec::new();
    for (body, headers) in probes() {
        let r = post(c, "alice", &body, &headers).await;
        out.push((r.status.as_u16(), r.json()));
    }
    out
}

#[tokio::test]
async fn the_other_principals_item_is_answered_as_one_that_does_not_exist() {
    let server = server();
    let addr = spawn(tenant_service(server.clone())).await;
    for proto in BOTH {
        let c = Client::new(proto, addr);
        let hidden = answers(&c).await;
        // A hidden item is never reached: every answer is a refusal.
        for (status, v) in &hidden {
            assert!(v.get("error").is_some(), "{proto:?} {status}: {v}");
        }
        // Bob's items removed from the catalog: what alice was answered for them hidden is
        // what she is answered for them missing.
        let generation = server.generation();
        server
            .change(
                CatalogChange::new()
                    .remove_tool("bob.ping")
                    .remove_tool("bob.report")
                    .remove_resource("bob://notes")
                    .remove_resource("bob://doc/{id}")
                    .remove_prompt("bob.greet"),
            )
            .unwrap();
        let missing = answers(&c).await;
        assert_eq!(hidden, missing, "{proto:?}");
        // Bob's own view shows them gone too; put them back for the next protocol.
        assert_eq!(
            listed(&c, "bob", "tools/list", "tools", "name").await,
            Vec::<String>::new()
        );
        let restore = tenant_items("bob");
        server.change(restore).unwrap();
        assert_eq!(server.generation(), generation + 2);
    }
}

fn tenant_items(t: &str) -> CatalogChange {
    CatalogChange::new()
        .add_tool(
            ToolSpec::new(format!("{t}.report"), "A report.").with_input_schema(json!({
                "type": "object",
                "properties": {"region": {"type": "string", "x-mcp-header": "Region"}}
            })),
        )
        .add_tool(ToolSpec::new(format!("{t}.ping"), "Ping."))
        .add_resource(ResourceSpec::new(format!("{t}://notes"), "notes"))
        .add_resource(ResourceTemplateSpec::new(
            format!("{t}://doc/{{id}}"),
            "doc",
        ))
        .add_prompt(PromptSpec::new(format!("{t}.greet")).with_argument(PromptArgument::new("who")))
}

#[tokio::test]
async fn a_view_that_panics_hides_the_item_and_the_connection_serves_on() {
    let catalog = Catalog::new()
        .tool(ToolSpec::new("fine", "Shown."))
        .tool(ToolSpec::new("cursed", "The view panics on it."));
    let server = Server::new(
        ServerConfig::new(catalog)
            .dispatch(
                |call: ToolCall| async move { Ok(ToolOutput::text(format!("ran {}", call.tool))) },
            )
            .view(|item: Item<'_>, _caller: &Extensions| match item {
                Item::Tool(t) if t.name() == "cursed" => panic!("a host bug in the view"),
                _ => true,
            }),
    )
    .unwrap();
    let addr = spawn(tenant_service(server.clone())).await;
    for proto in BOTH {
        let c = Client::new(proto, addr);
        assert_eq!(
            listed(&c, "alice", "tools/list", "tools", "name").await,
            ["fine"]
        );
        let call = rpc("tools/call", json!({"name": "cursed", "arguments": {}}));
        let hidden = post(&c, "alice", &call, &[]).await;
        assert_eq!(hidden.status.as_u16(), 200, "{proto:?}");
        assert_eq!(hidden.json()["error"]["message"], "Unknown tool: cursed");
        let call = rpc("tools/call", json!({"name": "fine", "arguments": {}}));
        let v = post(&c, "alice", &call, &[]).await.json();
        assert_eq!(
            v["result"]["content"][0]["text"], "ran fine",
            "{proto:?}: {v}"
        );
    }
}
