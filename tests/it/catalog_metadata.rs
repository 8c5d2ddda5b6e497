//! Every piece of metadata the MCP schemas define on listed items and on the server — tool
//! annotations, icons, `_meta`, the server's `title`, `description`, `websiteUrl` and `icons`,
//! and `capabilities.extensions` — listed at both revisions through `Server::answer`, each
//! result checked against the vendored schema of its revision and against its exact shape.

use crate::support::spec;

use beam_mcp::catalog::{
    Icon, IconTheme, Mode, PromptArgument, PromptSpec, RenderedPrompt, ResourceContents,
    ResourceSpec, ResourceTemplateSpec,
};
use beam_mcp::{Answer, Arguments, Carrier, Catalog, Server, ServerConfig, ToolOutput, ToolSpec};
use serde_json::{json, Value};
use spec::Spec;

const MODERN: &str = "2026-07-28";
const LEGACY: &str = "2025-11-25";

fn full_icon() -> Icon {
    Icon::new("https://example.com/notes-48.png")
        .with_mime_type("image/png")
        .with_sizes(["48x48", "96x96"])
        .with_theme(IconTheme::Dark)
}

fn full_icon_json() -> Value {
    json!({"src": "https://example.com/notes-48.png", "mimeType": "image/png",
           "sizes": ["48x48", "96x96"], "theme": "dark"})
}

fn data_icon() -> Icon {
    Icon::new("data:image/svg+xml;base64,PHN2Zy8+").with_theme(IconTheme::Light)
}

fn data_icon_json() -> Value {
    json!({"src": "data:image/svg+xml;base64,PHN2Zy8+", "theme": "light"})
}

fn input() -> Value {
    json!({"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]})
}

fn server() -> Server {
    let catalog = Catalog::new()
        .tool(
            ToolSpec::new("delete_note", "Delete a note.")
                .with_title("Delete note")
                .with_mode(Mode::ReadWrite)
                .with_input_schema(input())
                .with_annotation_title("Delete a note for good")
                .with_destructive_hint(true)
                .with_idempotent_hint(true)
                .with_open_world_hint(false)
                .with_icon(full_icon())
                .with_icon(data_icon())
                .with_meta("com.example/audit", json!({"log": true}))
                .with_meta("ui", json!({"resourceUri": "ui://notes/view.html"})),
        )
        .tool(
            ToolSpec::new("read_note", "Read a note.")
                .with_mode(Mode::ReadOnly)
                .with_input_schema(input()),
        )
        .tool(
            // A read-only tool may say it is not destructive: no contradiction.
            ToolSpec::new("count_notes", "Count the notes.")
                .with_mode(Mode::ReadOnly)
                .with_destructive_hint(false)
                .with_input_schema(json!({"type": "object"})),
        )
        .resource(
            ResourceSpec::new("note://index", "index")
                .with_title("Index")
                .with_description("Every note.")
                .with_mime_type("text/plain")
                .with_icon(full_icon())
                .with_meta("com.example/rank", json!(1)),
        )
        .resource(
            ResourceTemplateSpec::new("note://{id}", "note")
                .with_mime_type("text/plain")
                .with_icon(data_icon())
                .with_meta("com.example/kind", json!("note")),
        )
        .reader(|uri: String| async move { Ok(vec![ResourceContents::text(uri, "a note")]) })
        .prompt(
            PromptSpec::new("summarise")
                .with_title("Summarise")
                .with_argument(PromptArgument::new("id").with_required(true))
                .with_icon(full_icon())
                .with_meta("com.example/cost", json!({"tokens": 200})),
        )
        .renderer(|_n: String, _a: Arguments| async { Ok(RenderedPrompt::default()) });
    let config = ServerConfig::new(catalog)
        .server_name("notes")
        .server_version("1.2.3")
        .server_title("Notes")
        .server_description("Keeps notes.")
        .server_website_url("https://example.com/notes")
        .server_icon(full_icon())
        .server_icon(data_icon())
        .extension(
            "io.modelcontextprotocol/ui",
            json!({"mimeTypes": ["text/html;profile=mcp-app"]}),
        )
        .extension("com.example/search", json!({}))
        .dispatch(|_c| async { Ok(ToolOutput::text("ok")) });
    Server::new(config).expect("every field is valid")
}

fn server_info() -> Value {
    json!({
        "name": "notes",
        "version": "1.2.3",
        "title": "Notes",
        "description": "Keeps notes.",
        "websiteUrl": "https://example.com/notes",
        "icons": [full_icon_json(), data_icon_json()]
    })
}

fn tools() -> Value {
    json!([
        {
            "name": "count_notes",
            "description": "Count the notes.",
            "inputSchema": {"type": "object"},
            "annotations": {"readOnlyHint": true, "destructiveHint": false}
        },
        {
            "name": "delete_note",
            "title": "Delete note",
            "description": "Delete a note.",
            "inputSchema": input(),
            "annotations": {
                "title": "Delete a note for good",
                "readOnlyHint": false,
                "destructiveHint": true,
                "idempotentHint": true,
                "openWorldHint": false
            },
            "icons": [full_icon_json(), data_icon_json()],
            "_meta": {
                "com.example/audit": {"log": true},
                "ui": {"resourceUri": "ui://notes/view.html"}
            }
        },
        {
            "name": "read_note",
            "description": "Read a note.",
            "inputSchema": input(),
            "annotations": {"readOnlyHint": true}
        }
    ])
}

fn resources() -> Value {
    json!([{
        "uri": "note://index",
        "name": "index",
        "title": "Index",
        "description": "Every note.",
        "mimeType": "text/plain",
        "icons": [full_icon_json()],
        "_meta": {"com.example/rank": 1}
    }])
}

fn templates() -> Value {
    json!([{
        "uriTemplate": "note://{id}",
        "name": "note",
        "mimeType": "text/plain",
        "icons": [data_icon_json()],
        "_meta": {"com.example/kind": "note"}
    }])
}

fn prompts() -> Value {
    json!([{
        "name": "summarise",
        "title": "Summarise",
        "arguments": [{"name": "id", "required": true}],
        "icons": [full_icon_json()],
        "_meta": {"com.example/cost": {"tokens": 200}}
    }])
}

/// The capabilities both revisions share.
fn base_capabilities() -> Value {
    json!({
        "tools": {"listChanged": false},
        "resources": {"listChanged": false, "subscribe": false},
        "prompts": {"listChanged": false}
    })
}

async fn ask(server: &Server, revision: &str, method: &str, mut params: Value) -> Value {
    if revision == MODERN {
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientCapabilities": {}
        });
    }
    let frame = json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": params});
    match server
        .answer(&serde_json::to_vec(&frame).unwrap(), Carrier::Stdio)
        .await
    {
        Answer::Reply(r) => serde_json::from_slice(r.bytes()).unwrap(),
        other => panic!("{method}: no reply: {other:?}"),
    }
}

/// The four lists, with the schema definition of each result and the member holding items.
const LISTS: [(&str, &str, &str); 4] = [
    ("tools/list", "ListToolsResult", "tools"),
    ("resources/list", "ListResourcesResult", "resources"),
    (
        "resources/templates/list",
        "ListResourceTemplatesResult",
        "resourceTemplates",
    ),
    ("prompts/list", "ListPromptsResult", "prompts"),
];

fn expected_items(member: &str) -> Value {
    match member {
        "tools" => tools(),
        "resources" => resources(),
        "resourceTemplates" => templates(),
        "prompts" => prompts(),
        other => panic!("{other}"),
    }
}

#[tokio::test]
async fn at_2025_11_25_initialize_carries_the_full_server_info_and_no_extensions() {
    let spec = Spec::load(LEGACY);
    let s = server();
    let r = ask(
        &s,
        LEGACY,
        "initialize",
        json!({"protocolVersion": LEGACY, "capabilities": {},
               "clientInfo": {"name": "t", "version": "1"}}),
    )
    .await;
    spec.check_response("InitializeResult", &r);
    assert_eq!(
        r["result"],
        json!({
            "protocolVersion": LEGACY,
            "capabilities": base_capabilities(),
            "serverInfo": server_info()
        })
    );
    // The 2025-11-25 shapes of what the server reports, one by one.
    spec.check("Implementation", &r["result"]["serverInfo"]);
    for icon in r["result"]["serverInfo"]["icons"].as_array().unwrap() {
        spec.check("Icon", icon);
    }
}

#[tokio::test]
async fn at_2025_11_25_every_list_carries_every_field_set() {
    let spec = Spec::load(LEGACY);
    let s = server();
    for (method, def, member) in LISTS {
        let r = ask(&s, LEGACY, method, json!({})).await;
        spec.check_response(def, &r);
        assert_eq!(
            r["result"],
            json!({ member: expected_items(member) }),
            "{method}"
        );
    }
}

#[tokio::test]
async fn at_2026_07_28_discover_carries_the_extensions_and_the_full_server_info() {
    let spec = Spec::load(MODERN);
    let s = server();
    let r = ask(&s, MODERN, "server/discover", json!({})).await;
    spec.check_response("DiscoverResult", &r);
    let mut capabilities = base_capabilities();
    capabilities["extensions"] = json!({
        "com.example/search": {},
        "io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}
    });
    assert_eq!(
        r["result"],
        json!({
            "resultType": "complete",
            "_meta": {"io.modelcontextprotocol/serverInfo": server_info()},
            "supportedVersions": [MODERN, LEGACY],
            "capabilities": capabilities,
            "ttlMs": 0,
            "cacheScope": "private"
        })
    );
    spec.check("ResultMetaObject", &r["result"]["_meta"]);
}

/// What every 2026-07-28 result but `server/discover` names the server by.
fn brief_server_info() -> Value {
    json!({"name": "notes", "version": "1.2.3"})
}

#[tokio::test]
async fn at_2026_07_28_every_list_carries_every_field_set_and_the_servers_name() {
    let spec = Spec::load(MODERN);
    let s = server();
    for (method, def, member) in LISTS {
        let r = ask(&s, MODERN, method, json!({})).await;
        spec.check_response(def, &r);
        assert_eq!(
            r["result"],
            json!({
                "resultType": "complete",
                "_meta": {"io.modelcontextprotocol/serverInfo": brief_server_info()},
                member: expected_items(member),
                "ttlMs": 0,
                "cacheScope": "private"
            }),
            "{method}"
        );
    }
    // A result that is not a list carries the same: the whole identity (title, description,
    // website, icons) is discover's, not repeated on every answer.
    let read = ask(&s, MODERN, "resources/read", json!({"uri": "note://index"})).await;
    spec.check_response("ReadResourceResult", &read);
    assert_eq!(
        read["result"]["_meta"],
        json!({"io.modelcontextprotocol/serverInfo": brief_server_info()})
    );
}

#[tokio::test]
async fn a_server_that_sets_nothing_lists_what_it_always_did() {
    let s = Server::new(
        ServerConfig::new(
            Catalog::new()
                .tool(ToolSpec::new("t", "x"))
                .resource(ResourceSpec::new("a://r", "r"))
                .reader(|uri: String| async move { Ok(vec![ResourceContents::text(uri, "")]) }),
        )
        .server_name("plain")
        .server_version("1")
        .dispatch(|_c| async { Ok(ToolOutput::text("ok")) }),
    )
    .unwrap();
    let d = ask(&s, MODERN, "server/discover", json!({})).await;
    assert_eq!(
        d["result"]["_meta"],
        json!({"io.modelcontextprotocol/serverInfo": {"name": "plain", "version": "1"}})
    );
    assert!(
        d["result"]["capabilities"].get("extensions").is_none(),
        "{d}"
    );
    let i = ask(
        &s,
        LEGACY,
        "initialize",
        json!({"protocolVersion": LEGACY, "capabilities": {},
               "clientInfo": {"name": "t", "version": "1"}}),
    )
    .await;
    assert_eq!(
        i["result"]["serverInfo"],
        json!({"name": "plain", "version": "1"})
    );
    for revision in [LEGACY, MODERN] {
        let tools = ask(&s, revision, "tools/list", json!({})).await;
        assert_eq!(
            tools["result"]["tools"][0],
            json!({"name": "t", "description": "x", "inputSchema": {"type": "object"},
                   "annotations": {"readOnlyHint": false}})
        );
        let res = ask(&s, revision, "resources/list", json!({})).await;
        assert_eq!(
            res["result"]["resources"][0],
            json!({"uri": "a://r", "name": "r"})
        );
    }
}

/// One way to bend a listed tool out of the schema's shape.
type Bend = fn(&mut Value);

/// The schema checks above have teeth: the same entries, bent out of the schema's shape, are
/// refused by the same validator at both revisions.
#[test]
fn the_schema_check_refuses_each_field_out_of_shape() {
    for revision in [LEGACY, MODERN] {
        let spec = Spec::load(revision);
        let tool = tools()[1].clone();
        spec.check("Tool", &tool);
        let bent: [(&str, Bend); 6] = [
            ("theme", |t| t["icons"][0]["theme"] = json!("sepia")),
            ("sizes", |t| t["icons"][0]["sizes"] = json!("48x48")),
            ("src", |t| t["icons"][1] = json!({"theme": "light"})),
            ("hint", |t| {
                t["annotations"]["destructiveHint"] = json!("yes")
            }),
            ("title", |t| t["annotations"]["title"] = json!(1)),
            ("_meta", |t| t["_meta"] = json!(["ui"])),
        ];
        for (what, bend) in bent {
            let mut t = tool.clone();
            bend(&mut t);
            assert!(
                !spec.errors("Tool", &t).is_empty(),
                "{revision}: {what} bent was accepted"
            );
        }
        let mut info = server_info();
        info["websiteUrl"] = json!(7);
        assert!(
            !spec.errors("Implementation", &info).is_empty(),
            "{revision}"
        );
    }
    // `extensions` is a JSONObject per identifier at 2026-07-28.
    let modern = Spec::load(MODERN);
    assert!(!modern
        .errors(
            "ServerCapabilities",
            &json!({"extensions": {"com.example/x": true}})
        )
        .is_empty());
}
