//! Attacks on the live catalog and per-caller views (issue 27), kept as regressions: a hidden
//! item that is the last of its kind, host dispatch under a view, many writers and readers at
//! once, and changes racing a killed catalog actor.

use crate::support::http as rig;
use crate::support::tenant::{exchange, tenant_service, Tenant};

use beam_mcp::catalog::{
    CatalogChange, Completion, CompletionRequest, Item, PromptArgument, PromptSpec, RenderedPrompt,
    ResourceContents, ResourceSpec, ResourceTemplateSpec,
};
use beam_mcp::runtime::{Application, ApplicationConfig, ApplicationError};
use beam_mcp::{
    Answer, Arguments, Carrier, Catalog, Extensions, HeaderFaultPolicy, Server, ServerConfig,
    ToolCall, ToolOutput, ToolSpec,
};
use rig::{rpc, Proto};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// A safety net turning a hang into a failure; never a timing assertion.
const SAFETY: Duration = Duration::from_secs(60);

fn item_name<'a>(item: &Item<'a>) -> &'a str {
    match *item {
        Item::Tool(s) => s.name(),
        Item::Resource(s) => s.uri(),
        Item::ResourceTemplate(s) => s.uri_template(),
        Item::Prompt(s) => s.name(),
        _ => "",
    }
}

/// A view hides items, not kinds (docs/embedding.md, "Per-caller views"): alice's view shows
/// her nothing of a kind bob has one of, and the kind stays served — bob's prompt and resource
/// are answered to her as unknown items of a served kind (-32602, 200, an empty list), not as
/// an unserved method (-32601, 404) as they are once the last of their kind is removed.
#[tokio::test]
async fn a_view_hides_items_not_kinds() {
    let catalog = Catalog::new()
        .tool(ToolSpec::new("alice.ping", "Ping."))
        .prompt(PromptSpec::new("bob.greet").with_argument(PromptArgument::new("who")))
        .resource(ResourceSpec::new("bob://notes", "notes"))
        .reader(|_uri: String| async { Ok(vec![]) })
        .renderer(|_n: String, _a: Arguments| async { Ok(RenderedPrompt::default()) });
    let server = Server::new(
        ServerConfig::new(catalog)
            .dispatch(|_c: ToolCall| async { Ok(ToolOutput::text("ok")) })
            .view(|item: Item<'_>, caller: &Extensions| {
                caller
                    .get::<Tenant>()
                    .is_some_and(|t| item_name(&item).starts_with(&t.0))
            }),
    )
    .unwrap();
    let addr = rig::spawn(tenant_service(server.clone())).await;
    let probes = [
        rpc(
            "prompts/get",
            json!({"name": "bob.greet", "arguments": {"who": "x"}}),
        ),
        rpc("prompts/list", json!({})),
        rpc("resources/read", json!({"uri": "bob://notes"})),
    ];
    let mut hidden = Vec::new();
    for p in &probes {
        hidden.push(exchange(Proto::H1, addr, p, "alice").await.unwrap());
    }
    assert_eq!(hidden[0].0, 200);
    assert_eq!(hidden[0].1["error"]["message"], "Unknown prompt: bob.greet");
    assert_eq!(hidden[1].1["result"]["prompts"], json!([]));
    assert_eq!(hidden[2].1["error"]["code"], -32602);
    server
        .change(
            CatalogChange::new()
                .remove_prompt("bob.greet")
                .remove_resource("bob://notes"),
        )
        .unwrap();
    for p in &probes {
        let (status, v) = exchange(Proto::H1, addr, p, "alice").await.unwrap();
        assert_eq!((status, &v["error"]["code"]), (404, &json!(-32601)), "{v}");
    }
}

/// Host dispatch goes through the view: `dispatch` (no extensions) is a caller with no
/// principal, and sees what the view shows such a caller; `dispatch_with` the principal's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn host_dispatch_goes_through_the_view() {
    let catalog = Catalog::new().tool(ToolSpec::new("alice.ping", "Ping."));
    let server = Server::new(
        ServerConfig::new(catalog)
            .dispatch(|_c: ToolCall| async { Ok(ToolOutput::text("ok")) })
            .view(|item: Item<'_>, caller: &Extensions| {
                caller
                    .get::<Tenant>()
                    .is_some_and(|t| item_name(&item).starts_with(&t.0))
            }),
    )
    .unwrap();
    let rt = Application::start(server, ApplicationConfig::new())
        .await
        .unwrap();
    let anonymous = rt.dispatch("alice.ping", json!({})).await.unwrap_err();
    assert!(anonymous.is_unknown_tool(), "{anonymous}");
    let bob = rt
        .dispatch_with(
            "alice.ping",
            json!({}),
            Extensions::new().with(Tenant("bob".into())),
        )
        .await
        .unwrap_err();
    assert!(bob.is_unknown_tool(), "{bob}");
    let alice = rt
        .dispatch_with(
            "alice.ping",
            json!({}),
            Extensions::new().with(Tenant("alice".into())),
        )
        .await
        .unwrap();
    assert_eq!(alice.texts(), ["ok"]);
    rt.stop(SAFETY).await.unwrap();
}

/// Writers on threads add and remove pairs of tools (`a.N` and `b.N`, always together, in one
/// change) while readers on tasks list and call: no list ever holds one of a pair without the
/// other, and no change is lost.
#[test]
fn many_writers_and_readers_never_see_half_a_change() {
    const WRITERS: usize = 4;
    const CHANGES: usize = 60;
    let server = Server::new(
        ServerConfig::new(Catalog::new().tool(ToolSpec::new("anchor", "Always there.")))
            .page_size(10_000)
            .dispatch(|c: ToolCall| async move { Ok(ToolOutput::text(c.tool.to_string())) }),
    )
    .unwrap();
    let done = Arc::new(AtomicBool::new(false));
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    let readers: Vec<_> = (0..4)
        .map(|_| {
            let (server, done) = (server.clone(), done.clone());
            rt.spawn(async move {
                let mut seen = 0u64;
                let list = serde_json::to_vec(&rpc("tools/list", json!({}))).unwrap();
                while !done.load(Ordering::Acquire) || seen == 0 {
                    let Answer::Reply(r) = server.answer(&list, Carrier::Stdio).await else {
                        panic!("unanswered")
                    };
                    let v: Value = serde_json::from_slice(r.bytes()).unwrap();
                    let names: std::collections::BTreeSet<String> = v["result"]["tools"]
                        .as_array()
                        .unwrap_or_else(|| panic!("{v}"))
                        .iter()
                        .map(|t| t["name"].as_str().unwrap().to_owned())
                        .collect();
                    for n in &names {
                        if let Some(k) = n.strip_prefix("a.") {
                            assert!(
                                names.contains(&format!("b.{k}")),
                                "half a change: {names:?}"
                            );
                        }
                        if let Some(k) = n.strip_prefix("b.") {
                            assert!(
                                names.contains(&format!("a.{k}")),
                                "half a change: {names:?}"
                            );
                        }
                    }
                    seen += 1;
                    tokio::task::yield_now().await;
                }
                seen
            })
        })
        .collect();
    let writers: Vec<_> = (0..WRITERS)
        .map(|w| {
            let server = server.clone();
            std::thread::spawn(move || {
                for i in 0..CHANGES {
                    let k = format!("{w}_{i}");
                    server
                        .change(
                            CatalogChange::new()
                                .add_tool(ToolSpec::new(format!("a.{k}"), "a"))
                                .add_tool(ToolSpec::new(format!("b.{k}"), "b")),
                        )
                        .unwrap();
                    if i % 2 == 0 {
                        server
                            .change(
                                CatalogChange::new()
                                    .remove_tool(format!("a.{k}"))
                                    .remove_tool(format!("b.{k}")),
                            )
                            .unwrap();
                    }
                }
            })
        })
        .collect();
    for w in writers {
        w.join().unwrap();
    }
    done.store(true, Ordering::Release);
    for r in readers {
        assert!(rt.block_on(r).unwrap() > 0);
    }
    let per_writer = CHANGES + CHANGES.div_ceil(2);
    assert_eq!(server.generation(), (WRITERS * per_writer) as u64);
    // Every odd change survived: one anchor plus a pair per odd i per writer.
    assert_eq!(server.tool_names().len(), 1 + WRITERS * (CHANGES / 2) * 2);
}

/// Changes sent while the catalog actor is killed over and over: each is answered (never a
/// hang), and exactly the ones answered with a generation are in the catalog.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn changes_racing_a_killed_catalog_actor_are_answered_and_never_half_applied() {
    let server = Server::new(
        ServerConfig::new(Catalog::new().tool(ToolSpec::new("anchor", "Always there.")))
            .dispatch(|_c: ToolCall| async { Ok(ToolOutput::text("ok")) }),
    )
    .unwrap();
    let config = ApplicationConfig::new().intensity(1000, Duration::from_secs(60));
    let rt = Application::start(server.clone(), config).await.unwrap();
    let mut applied = Vec::new();
    let mut unavailable = 0;
    for round in 0..20 {
        let sends: Vec<_> = (0..8)
            .map(|i| {
                let rt = rt.clone();
                let k = format!("{round}_{i}");
                tokio::spawn(async move {
                    let change = CatalogChange::new()
                        .add_tool(ToolSpec::new(format!("a.{k}"), "a"))
                        .add_tool(ToolSpec::new(format!("b.{k}"), "b"));
                    (k, rt.change(change).await)
                })
            })
            .collect();
        if let Some(actor) = rt.dispatcher() {
            actor.kill();
        }
        for s in sends {
            let (k, got) = tokio::time::timeout(SAFETY, s)
                .await
                .expect("answered")
                .unwrap();
            match got {
                Ok(_) => applied.push(k),
                Err(ApplicationError::CatalogUnavailable) => unavailable += 1,
                Err(e) => panic!("{e}"),
            }
        }
    }
    let names = server.tool_names();
    for k in &applied {
        assert!(
            names.contains(&format!("a.{k}")) && names.contains(&format!("b.{k}")),
            "{k}"
        );
    }
    // Nothing answered unavailable was applied, and nothing half.
    assert_eq!(
        names.len(),
        1 + 2 * applied.len(),
        "{unavailable} unavailable"
    );
    assert_eq!(server.generation(), applied.len() as u64);
    rt.stop(SAFETY).await.unwrap();
}

/// Every tenant's items: tools of every shape a lookup can take a different path for (plain,
/// subset schema, general schema deferred to the pending work, a required client capability,
/// an `x-mcp-header` argument, a faulty `x-mcp-header` refused at call time), a resource, a
/// template and a prompt with a required argument.
fn tenant_items(t: &str) -> CatalogChange {
    let n = json!({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]});
    let general = json!({
        "type": "object",
        "properties": {"n": {"$ref": "#/$defs/n"}},
        "required": ["n"],
        "$defs": {"n": {"type": "integer"}}
    });
    CatalogChange::new()
        .add_tool(ToolSpec::new(format!("{t}.ping"), "Ping."))
        .add_tool(ToolSpec::new(format!("{t}.typed"), "Typed.").with_input_schema(n.clone()))
        .add_tool(ToolSpec::new(format!("{t}.general"), "General.").with_input_schema(general))
        .add_tool(
            ToolSpec::new(format!("{t}.caps"), "Needs sampling.")
                .with_required_client_capability("sampling"),
        )
        .add_tool(
            ToolSpec::new(format!("{t}.report"), "Report.").with_input_schema(json!({
                "type": "object",
                "properties": {"region": {"type": "string", "x-mcp-header": "Region"}}
            })),
        )
        .add_tool(
            ToolSpec::new(format!("{t}.faulty"), "Faulty header.").with_input_schema(json!({
                "type": "object",
                "properties": {"p": {"type": "object", "x-mcp-header": "P"}}
            })),
        )
        .add_resource(ResourceSpec::new(format!("{t}://notes"), "notes"))
        .add_resource(ResourceTemplateSpec::new(
            format!("{t}://doc/{{id}}"),
            "doc",
        ))
        .add_prompt(
            PromptSpec::new(format!("{t}.greet"))
                .with_argument(PromptArgument::new("who").with_required(true)),
        )
}

fn tenants_server() -> Server {
    let catalog = Catalog::new()
        .reader(|uri: String| async move { Ok(vec![ResourceContents::text(uri, "x")]) })
        .renderer(|_n: String, _a: Arguments| async { Ok(RenderedPrompt::default()) })
        .completer(|_r: CompletionRequest| async { Ok(Completion::new(["x"])) });
    let server = Server::new(
        ServerConfig::new(catalog)
            .page_size(1)
            .header_faults(HeaderFaultPolicy::RefuseCalls)
            .dispatch(|c: ToolCall| async move { Ok(ToolOutput::text(format!("ran {}", c.tool))) })
            .view(|item: Item<'_>, caller: &Extensions| {
                caller
                    .get::<Tenant>()
                    .is_some_and(|t| item_name(&item).starts_with(&t.0))
            }),
    )
    .unwrap();
    for t in ["alice", "bob"] {
        server.change(tenant_items(t)).unwrap();
    }
    server
}

/// Params of each lookup alice makes of bob's items, with the `Mcp-Param-*` headers a
/// well-behaved 2026-07-28 client adds.
/// A method, its params, and the extra headers sent with it.
type Lookup = (&'static str, Value, Vec<(&'static str, &'static str)>);

fn lookups(bob_cursor: &str) -> Vec<Lookup> {
    vec![
        (
            "tools/call",
            json!({"name": "bob.ping", "arguments": {}}),
            vec![],
        ),
        (
            "tools/call",
            json!({"name": "bob.ping", "arguments": [1]}),
            vec![],
        ),
        (
            "tools/call",
            json!({"name": "bob.typed", "arguments": {"n": "x"}}),
            vec![],
        ),
        (
            "tools/call",
            json!({"name": "bob.typed", "arguments": {}}),
            vec![],
        ),
        (
            "tools/call",
            json!({"name": "bob.general", "arguments": {"n": "x"}}),
            vec![],
        ),
        (
            "tools/call",
            json!({"name": "bob.general", "arguments": {"n": 1}}),
            vec![],
        ),
        (
            "tools/call",
            json!({"name": "bob.caps", "arguments": {}}),
            vec![],
        ),
        (
            "tools/call",
            json!({"name": "bob.report", "arguments": {"region": "eu"}}),
            vec![("Mcp-Param-Region", "eu")],
        ),
        (
            "tools/call",
            json!({"name": "bob.report", "arguments": {"region": "eu"}}),
            vec![],
        ),
        (
            "tools/call",
            json!({"name": "bob.faulty", "arguments": {}}),
            vec![],
        ),
        (
            "tools/call",
            json!({"name": "bob.faulty", "arguments": {"p": "x"}}),
            vec![("Mcp-Param-P", "x")],
        ),
        ("resources/read", json!({"uri": "bob://notes"}), vec![]),
        ("resources/read", json!({"uri": "bob://doc/7"}), vec![]),
        (
            "prompts/get",
            json!({"name": "bob.greet", "arguments": {}}),
            vec![],
        ),
        (
            "prompts/get",
            json!({"name": "bob.greet", "arguments": {"who": 3}}),
            vec![],
        ),
        (
            "prompts/get",
            json!({"name": "bob.greet", "arguments": {"who": "x"}}),
            vec![],
        ),
        (
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "bob.greet"}, "argument": {"name": "who", "value": ""}}),
            vec![],
        ),
        (
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "bob.greet"}, "argument": {"name": "nope", "value": ""}}),
            vec![],
        ),
        (
            "completion/complete",
            json!({"ref": {"type": "ref/resource", "uri": "bob://doc/{id}"}, "argument": {"name": "id", "value": ""}}),
            vec![],
        ),
        ("tools/list", json!({"cursor": bob_cursor}), vec![]),
    ]
}

/// Every answer alice gets, over HTTP/1.1 at both revisions and over stdio (a bare server's
/// `answer_with`, the stdio carrier) at both: (carrier, status, body).
async fn alice_answers(
    server: &Server,
    addr: std::net::SocketAddr,
    bob_cursor: &str,
) -> Vec<(String, u16, Value)> {
    let c = rig::Client::new(Proto::H1, addr);
    let alice = Extensions::new().with(Tenant("alice".into()));
    let mut out = Vec::new();
    for (method, params, extra) in lookups(bob_cursor) {
        let modern = rpc(method, params.clone());
        let r = c
            .post_with(&modern, |h| {
                h.push(("authorization".into(), "Bearer alice".into()));
                for (k, v) in &extra {
                    rig::set(h, k, v);
                }
            })
            .await;
        out.push((
            format!("http modern {method} {params}"),
            r.status.as_u16(),
            r.json(),
        ));
        let legacy = rig::lrpc(method, params.clone());
        let mut headers: Vec<(&str, &str)> = vec![("authorization", "Bearer alice")];
        headers.extend(extra.iter().copied());
        let r = c.post_plain(&legacy, &headers).await;
        out.push((
            format!("http legacy {method} {params}"),
            r.status.as_u16(),
            r.json(),
        ));
        for (era, body) in [("modern", &modern), ("legacy", &legacy)] {
            let frame = serde_json::to_vec(body).unwrap();
            let Answer::Reply(r) = server
                .answer_with(&frame, Carrier::Stdio, alice.clone())
                .await
            else {
                panic!("unanswered")
            };
            let v: Value = serde_json::from_slice(r.bytes()).unwrap();
            out.push((format!("stdio {era} {method} {params}"), 0, v));
        }
    }
    out
}

/// Every lookup alice can make of bob's items, at both revisions, over HTTP and stdio, is
/// answered exactly as the same lookup once bob's items are removed; none reaches bob's tool
/// (no `mcp_tool_calls_total` series of bob's is recorded).
#[tokio::test(flavor = "current_thread")]
async fn every_lookup_of_a_hidden_item_is_answered_as_a_missing_one_at_both_revisions() {
    let recorder = metrics_exporter_prometheus::PrometheusBuilder::new().build_recorder();
    let scrape = recorder.handle();
    let _local = metrics::set_default_local_recorder(&recorder);
    let server = tenants_server();
    let addr = rig::spawn(tenant_service(server.clone())).await;
    // A cursor bob was handed, after his first tool.
    let c = rig::Client::new(Proto::H1, addr);
    let bob_page = c
        .post_with(&rpc("tools/list", json!({})), |h| {
            h.push(("authorization".into(), "Bearer bob".into()))
        })
        .await
        .json();
    assert_eq!(
        bob_page["result"]["tools"][0]["name"], "bob.caps",
        "{bob_page}"
    );
    let bob_cursor = bob_page["result"]["nextCursor"]
        .as_str()
        .unwrap()
        .to_owned();

    let hidden = alice_answers(&server, addr, &bob_cursor).await;
    for (what, _, v) in &hidden {
        assert!(
            v.get("error").is_some() || what.contains("tools/list"),
            "{what}: {v}"
        );
    }
    let mut removal = CatalogChange::new();
    for t in ["ping", "typed", "general", "caps", "report", "faulty"] {
        removal = removal.remove_tool(format!("bob.{t}"));
    }
    server
        .change(
            removal
                .remove_resource("bob://notes")
                .remove_resource("bob://doc/{id}")
                .remove_prompt("bob.greet"),
        )
        .unwrap();
    let missing = alice_answers(&server, addr, &bob_cursor).await;
    for (h, m) in hidden.iter().zip(&missing) {
        assert_eq!(h, m);
    }
    // The recorder does see a call that runs: alice's own.
    let own = rpc(
        "tools/call",
        json!({"name": "alice.general", "arguments": {"n": 1}}),
    );
    let frame = serde_json::to_vec(&own).unwrap();
    let alice = Extensions::new().with(Tenant("alice".into()));
    let Answer::Reply(r) = server.answer_with(&frame, Carrier::Stdio, alice).await else {
        panic!("unanswered")
    };
    assert!(r.error_code().is_none());
    let rendered = scrape.render();
    assert!(rendered.contains("tool=\"alice.general\""), "{rendered}");
    assert!(!rendered.contains("tool=\"bob."), "{rendered}");
    if std::env::var_os("REVIEW_DUMP").is_some() {
        for (what, status, v) in &hidden {
            eprintln!("{what} => {status} {v}");
        }
    }
}

/// Alice pages every list one item at a time: she sees her own items, each once, every page
/// holds one, and the last page of hers advertises no next page though bob's items follow.
#[tokio::test]
async fn a_list_never_promises_a_page_of_hidden_items() {
    let server = tenants_server();
    let alice = Extensions::new().with(Tenant("alice".into()));
    for (method, member, key, want) in [
        ("tools/list", "tools", "name", 6),
        ("resources/list", "resources", "uri", 1),
        (
            "resources/templates/list",
            "resourceTemplates",
            "uriTemplate",
            1,
        ),
        ("prompts/list", "prompts", "name", 1),
    ] {
        let mut seen = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let params = cursor
                .as_ref()
                .map_or(json!({}), |c| json!({ "cursor": c }));
            let frame = serde_json::to_vec(&rpc(method, params)).unwrap();
            let Answer::Reply(r) = server
                .answer_with(&frame, Carrier::Stdio, alice.clone())
                .await
            else {
                panic!("unanswered")
            };
            let v: Value = serde_json::from_slice(r.bytes()).unwrap();
            let page = v["result"][member]
                .as_array()
                .unwrap_or_else(|| panic!("{v}"));
            assert_eq!(page.len(), 1, "{method}: an empty or short page: {v}");
            seen.extend(page.iter().map(|i| i[key].as_str().unwrap().to_owned()));
            match v["result"]["nextCursor"].as_str() {
                Some(c) => cursor = Some(c.to_owned()),
                None => break,
            }
            assert!(seen.len() <= want, "{method}: {seen:?}");
        }
        assert_eq!(seen.len(), want, "{method}: {seen:?}");
        assert!(
            seen.iter().all(|s| s.starts_with("alice")),
            "{method}: {seen:?}"
        );
    }
}

/// One refused item, in the two forms it can reach a server: in the startup catalog, and as
/// the step of a change.
struct Refused {
    name: &'static str,
    startup: Catalog,
    change: CatalogChange,
}

fn refused_items() -> Vec<Refused> {
    let bad_icon = || beam_mcp::catalog::Icon::new("ftp://example.com/i.png");
    let reserved = "io.modelcontextprotocol/x";
    let mut out = Vec::new();
    let mut tool = |name: &'static str, t: ToolSpec| {
        out.push(Refused {
            name,
            startup: Catalog::new().tool(t.clone()),
            change: CatalogChange::new().add_tool(t),
        })
    };
    tool(
        "ToolSchema",
        ToolSpec::new("t", "x").with_input_schema(json!({"type": "object", "minProperties": "x"})),
    );
    tool(
        "SchemaRootNotObject",
        ToolSpec::new("t", "x").with_input_schema(json!({"type": "string"})),
    );
    tool(
        "OutputSchema",
        ToolSpec::new("t", "x").with_output_schema(json!({"type": "object", "minimum": "x"})),
    );
    tool(
        "McpHeader",
        ToolSpec::new("t", "x").with_input_schema(json!({
            "type": "object", "properties": {"p": {"type": "object", "x-mcp-header": "P"}}
        })),
    );
    tool("ToolName", ToolSpec::new("bad name!", "x"));
    tool(
        "ContradictoryAnnotations",
        ToolSpec::new("t", "x")
            .with_mode(beam_mcp::catalog::Mode::ReadOnly)
            .with_destructive_hint(true),
    );
    tool("IconSource", ToolSpec::new("t", "x").with_icon(bad_icon()));
    tool(
        "MetaKey",
        ToolSpec::new("t", "x").with_meta(reserved, json!(1)),
    );
    tool(
        "HandlerReadsArgumentsTwice",
        ToolSpec::new("t", "x").with_handler(|_a: ToolCall, _b: ToolCall| async {
            Ok::<_, beam_mcp::ToolError>(ToolOutput::text("x"))
        }),
    );
    let mut resource = |name: &'static str, r: beam_mcp::catalog::ResourceEntry| {
        out.push(Refused {
            name,
            startup: Catalog::new().resource(r.clone()),
            change: CatalogChange::new().add_resource(r),
        })
    };
    resource(
        "IconSource",
        ResourceSpec::new("a://r", "r").with_icon(bad_icon()).into(),
    );
    resource(
        "MetaKey",
        ResourceSpec::new("a://r", "r")
            .with_meta(reserved, json!(1))
            .into(),
    );
    resource("Template", ResourceTemplateSpec::new("a://{", "t").into());
    resource(
        "IconSource",
        ResourceTemplateSpec::new("a://t/{id}", "t")
            .with_icon(bad_icon())
            .into(),
    );
    resource(
        "MetaKey",
        ResourceTemplateSpec::new("a://t/{id}", "t")
            .with_meta(reserved, json!(1))
            .into(),
    );
    let mut prompt = |name: &'static str, p: PromptSpec| {
        out.push(Refused {
            name,
            startup: Catalog::new().prompt(p.clone()),
            change: CatalogChange::new().add_prompt(p),
        })
    };
    prompt(
        "DuplicatePromptArgument",
        PromptSpec::new("p")
            .with_argument(PromptArgument::new("a"))
            .with_argument(PromptArgument::new("a")),
    );
    prompt("IconSource", PromptSpec::new("p").with_icon(bad_icon()));
    prompt(
        "MetaKey",
        PromptSpec::new("p").with_meta(reserved, json!(1)),
    );
    out.push(Refused {
        name: "DuplicateResource",
        startup: Catalog::new()
            .resource(ResourceSpec::new("a://x", "x"))
            .resource(ResourceTemplateSpec::new("a://x", "y")),
        change: CatalogChange::new()
            .add_resource(ResourceSpec::new("a://x", "x"))
            .add_resource(ResourceTemplateSpec::new("a://x", "y")),
    });
    out
}

fn with_host(catalog: Catalog) -> Catalog {
    catalog
        .reader(|uri: String| async move { Ok(vec![ResourceContents::text(uri, "x")]) })
        .renderer(|_n: String, _a: Arguments| async { Ok(RenderedPrompt::default()) })
}

fn dispatching(catalog: Catalog) -> ServerConfig {
    ServerConfig::new(catalog).dispatch(|_c: ToolCall| async { Ok(ToolOutput::text("ok")) })
}

/// Each refused item is refused by a change with the very error `Server::new` gives it, and
/// the change moves nothing; under `HeaderFaultPolicy::RefuseCalls` a faulty `x-mcp-header`
/// tool is taken by a change as by startup, and its calls are refused as internal.
#[tokio::test]
async fn a_change_refuses_exactly_what_startup_refuses() {
    for r in refused_items() {
        let at_startup = Server::new(dispatching(with_host(r.startup))).unwrap_err();
        let server = Server::new(dispatching(with_host(
            Catalog::new().tool(ToolSpec::new("keep", "k")),
        )))
        .unwrap();
        let in_change = server.change(r.change).unwrap_err();
        assert_eq!(at_startup, in_change, "{}", r.name);
        assert!(
            format!("{in_change:?}").starts_with(r.name),
            "{}: {in_change:?}",
            r.name
        );
        assert_eq!(
            (server.generation(), server.tool_names()),
            (0, vec!["keep".to_owned()])
        );
    }
    // Without a dispatch function, a tool with no handler; without a reader or a renderer, a
    // resource or a prompt.
    let s = Server::new(ServerConfig::new(Catalog::new())).unwrap();
    for (startup, change) in [
        (
            Catalog::new().tool(ToolSpec::new("t", "x")),
            CatalogChange::new().add_tool(ToolSpec::new("t", "x")),
        ),
        (
            Catalog::new().resource(ResourceSpec::new("a://r", "r")),
            CatalogChange::new().add_resource(ResourceSpec::new("a://r", "r")),
        ),
        (
            Catalog::new().resource(ResourceTemplateSpec::new("a://t/{id}", "t")),
            CatalogChange::new().add_resource(ResourceTemplateSpec::new("a://t/{id}", "t")),
        ),
        (
            Catalog::new().prompt(PromptSpec::new("p")),
            CatalogChange::new().add_prompt(PromptSpec::new("p")),
        ),
    ] {
        let at_startup = Server::new(ServerConfig::new(startup)).unwrap_err();
        assert_eq!(at_startup, s.change(change).unwrap_err());
        assert_eq!(s.generation(), 0);
    }
    // The reader can come in the same change, after the step that needs it.
    s.change(
        CatalogChange::new()
            .add_resource(ResourceSpec::new("a://r", "r"))
            .reader(|uri: String| async move { Ok(vec![ResourceContents::text(uri, "x")]) }),
    )
    .unwrap();

    let faulty = ToolSpec::new("faulty", "x").with_input_schema(json!({
        "type": "object", "properties": {"p": {"type": "object", "x-mcp-header": "P"}}
    }));
    let lenient = |c: Catalog| {
        Server::new(dispatching(c).header_faults(HeaderFaultPolicy::RefuseCalls)).unwrap()
    };
    let at_startup = lenient(Catalog::new().tool(faulty.clone()));
    let changed = lenient(Catalog::new().tool(ToolSpec::new("keep", "k")));
    changed
        .change(CatalogChange::new().add_tool(faulty))
        .unwrap();
    let call = serde_json::to_vec(&rpc(
        "tools/call",
        json!({"name": "faulty", "arguments": {}}),
    ))
    .unwrap();
    for s in [&at_startup, &changed] {
        let Answer::Reply(r) = s.answer(&call, Carrier::Stdio).await else {
            panic!("unanswered")
        };
        assert_eq!(r.error_code(), Some(-32603));
    }
    // Replaced by a fixed schema, it is called.
    changed
        .change(CatalogChange::new().replace_tool(ToolSpec::new("faulty", "fixed")))
        .unwrap();
    let Answer::Reply(r) = changed.answer(&call, Carrier::Stdio).await else {
        panic!("unanswered")
    };
    assert_eq!(r.error_code(), None);
}

/// A tool called and then removed by a change: the diff export the reporter builds (the
/// declared graph following the live catalog, against everything the collector observed since
/// startup) must not call its past calls drift (authority exercised without being declared):
/// the tool was declared when it was called.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_removed_tools_past_calls_are_not_drift() {
    use beam_mcp::connectome::canonical::DigestAlgorithm;
    use beam_mcp::connectome::declared::Declared;
    use beam_mcp::connectome::export::ExportKind;
    use beam_mcp::connectome::model::Graph;
    use beam_mcp::connectome::observed::Collector;
    let collector = Collector::new();
    collector.attach();
    let server = Server::new(
        dispatching(
            Catalog::new()
                .tool(ToolSpec::new("keep", "k"))
                .tool(ToolSpec::new("old", "o")),
        )
        .collector(collector.clone()),
    )
    .unwrap();
    let mut g = Graph::new();
    g.add_dispatch_edge("keep");
    g.add_dispatch_edge("old");
    let config = ApplicationConfig::new().reporter(
        Declared::from_parts(g, Default::default()),
        DigestAlgorithm::Sha256,
    );
    let rt = Application::start(server, config).await.unwrap();
    rt.dispatch("old", json!({})).await.unwrap();
    rt.change(CatalogChange::new().remove_tool("old"))
        .await
        .unwrap();
    let sealed = rt.export(ExportKind::Diff).await.unwrap();
    let doc: Value = serde_json::from_slice(&sealed.bytes).unwrap();
    let drift = &doc["body"]["classes"]["drift"];
    assert!(drift.as_array().is_some(), "{doc}");
    assert_eq!(drift, &json!([]), "{doc}");
    rt.stop(SAFETY).await.unwrap();
}

/// The view is the one host code a request runs before it is routed: one that lands a change
/// the first time it is asked (in the HTTP `Mcp-Param-*` check) shows the change landing
/// between the header checks and the routing. The request is routed, validated and run on the
/// catalog its header checks saw (the tool's first handler and schema); the next request sees
/// the change.
#[tokio::test]
async fn a_change_landing_between_the_header_checks_and_the_routing_is_not_seen() {
    let first = ToolSpec::new("report", "v1")
        .with_input_schema(json!({
            "type": "object",
            "properties": {"region": {"type": "string", "x-mcp-header": "Region"}},
            "required": ["region"]
        }))
        .with_handler(|| async { Ok::<_, beam_mcp::ToolError>(ToolOutput::text("v1")) });
    let second = ToolSpec::new("report", "v2")
        .with_input_schema(json!({"type": "object", "properties": {"region": {"type": "integer"}}}))
        .with_handler(|| async { Ok::<_, beam_mcp::ToolError>(ToolOutput::text("v2")) });
    let me: Arc<std::sync::OnceLock<Server>> = Arc::default();
    let pending = Arc::new(std::sync::Mutex::new(Some(
        CatalogChange::new().replace_tool(second),
    )));
    let (me2, pending2) = (me.clone(), pending.clone());
    let server = Server::new(ServerConfig::new(Catalog::new().tool(first)).view(
        move |_item: Item<'_>, _caller: &Extensions| {
            if let Some(change) = pending2.lock().unwrap().take() {
                me2.get().unwrap().change(change).unwrap();
            }
            true
        },
    ))
    .unwrap();
    me.set(server.clone()).ok().unwrap();
    let addr = rig::spawn(tenant_service(server.clone())).await;
    let c = rig::Client::new(Proto::H1, addr);
    let body = rpc(
        "tools/call",
        json!({"name": "report", "arguments": {"region": "eu"}}),
    );
    let send = |body: Value| {
        let c = &c;
        async move {
            c.post_with(&body, |h| {
                h.push(("authorization".into(), "Bearer a".into()));
                rig::set(h, "Mcp-Param-Region", "eu");
            })
            .await
        }
    };
    let r = send(body.clone()).await;
    assert_eq!(server.generation(), 1, "the view landed its change");
    let v = r.json();
    assert_eq!(
        (r.status.as_u16(), &v["result"]["content"][0]["text"]),
        (200, &json!("v1")),
        "{v}"
    );
    // The next request sees the change: no `x-mcp-header` any more, so the header is refused.
    let r = send(body).await;
    assert_eq!(r.status.as_u16(), 400, "{}", r.json());
}

/// What a read returns under a view depends on who asked (whether the uri is readable at all):
/// like a list, it is cached `private` whatever `cache_hint` says of its scope (its `ttlMs`
/// kept), or a shared cache holding it public would hand one caller's resource to another.
#[tokio::test]
async fn a_read_under_a_view_is_cached_private() {
    use beam_mcp::protocol::{CacheHint, Cacheable};
    let catalog = with_host(
        Catalog::new()
            .resource(ResourceSpec::new("alice://notes", "notes"))
            .resource(ResourceTemplateSpec::new("alice://doc/{id}", "doc")),
    );
    let config = |view: bool| {
        let c = ServerConfig::new(catalog.clone()).cache_hint(
            Cacheable::Resources,
            CacheHint::public(Duration::from_secs(60)),
        );
        if view {
            c.view(|item: Item<'_>, caller: &Extensions| {
                caller
                    .get::<Tenant>()
                    .is_some_and(|t| item_name(&item).starts_with(&t.0))
            })
        } else {
            c
        }
    };
    let alice = Extensions::new().with(Tenant("alice".into()));
    for (view, scope) in [(true, "private"), (false, "public")] {
        let server = Server::new(config(view)).unwrap();
        for uri in ["alice://notes", "alice://doc/1"] {
            let frame = serde_json::to_vec(&rpc("resources/read", json!({ "uri": uri }))).unwrap();
            let Answer::Reply(r) = server
                .answer_with(&frame, Carrier::Stdio, alice.clone())
                .await
            else {
                panic!("unanswered")
            };
            let v: Value = serde_json::from_slice(r.bytes()).unwrap();
            assert_eq!(v["result"]["cacheScope"], scope, "view {view}: {v}");
            assert_eq!(v["result"]["ttlMs"], 60_000, "view {view}: {v}");
        }
    }
}

/// Under the runtime's pool: a call whose host code is running when its tool is replaced (by a
/// version with a handler of its own) and another tool removed finishes on the catalog it was
/// routed on (the dispatch function it was routed to); the next call runs the replacement.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn under_the_pool_a_running_call_finishes_on_its_catalog() {
    use crate::support::runtime_host as host;
    let (config, mut gate) = host::gated_config();
    let rt = Application::start(
        Server::new(config).unwrap(),
        ApplicationConfig::new().workers(1).deadline(SAFETY),
    )
    .await
    .unwrap();
    let frame = host::call_frame(1, "gate", json!({"tag": "a"}));
    let rt2 = rt.clone();
    let running = tokio::spawn(async move { rt2.answer(&frame, Carrier::Stdio).await });
    let started = gate.started().await;
    let replacement = ToolSpec::new("gate", "v2")
        .with_handler(|| async { Ok::<_, beam_mcp::ToolError>(ToolOutput::text("v2")) });
    rt.change(
        CatalogChange::new()
            .replace_tool(replacement)
            .remove_tool("echo"),
    )
    .await
    .unwrap();
    started.release();
    let Answer::Reply(r) = tokio::time::timeout(SAFETY, running)
        .await
        .unwrap()
        .unwrap()
    else {
        panic!("unanswered")
    };
    let v: Value = serde_json::from_slice(r.bytes()).unwrap();
    assert_eq!(v["result"]["content"][0]["text"], "released a", "{v}");
    let next = rt.dispatch("gate", json!({})).await.unwrap();
    assert_eq!(next.texts(), ["v2"]);
    assert!(rt
        .dispatch("echo", json!({"text": "x"}))
        .await
        .unwrap_err()
        .is_unknown_tool());
    rt.stop(SAFETY).await.unwrap();
}
