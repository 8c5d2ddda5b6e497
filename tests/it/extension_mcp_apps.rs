//! An MCP Apps host (`examples/mcp_app`): the server declares the extension
//! `io.modelcontextprotocol/ui`, lists its view `ui://weather/view.html` as a resource of MIME
//! type `text/html;profile=mcp-app`, and points its tool at the view through the tool's
//! `_meta`. Driven over real HTTP/1.1 (the crate's hyper service on 127.0.0.1, the example's
//! own configuration in-process) and over stdio (the example binary as a subprocess): the
//! client sees the capability at 2026-07-28 (and not at 2025-11-25, whose schema has none), the
//! resource, the tool's `_meta`, and reads the view's HTML. Every result is checked against the
//! vendored schema of its revision.

#[path = "../../examples/mcp_app/app.rs"]
#[allow(dead_code)]
mod app;
use crate::support::child;
use crate::support::http as rig;
use crate::support::spec;

use beam_mcp::transport::http::{AllowedOrigins, HttpService};
use beam_mcp::Server;
use child::ChildClient;
use rig::{lrpc, rpc, Client, Proto, LEGACY, MODERN};
use serde_json::{json, Value};
use spec::Spec;

/// What a 2026-07-28 client must see, whatever carried the answers: `discover`, `tools/list`,
/// `resources/list` and `resources/read` in that order.
fn check_modern(spec: &Spec, discover: &Value, tools: &Value, resources: &Value, read: &Value) {
    spec.check_response("DiscoverResult", discover);
    assert_eq!(
        discover["result"]["capabilities"]["extensions"],
        json!({ app::EXTENSION: {"mimeTypes": [app::APP_MIME]} }),
        "{discover}"
    );
    check_listed(spec, tools, resources);
    spec.check_response("ReadResourceResult", read);
    assert_eq!(
        read["result"]["contents"],
        json!([{"uri": app::VIEW_URI, "mimeType": app::APP_MIME, "text": app::VIEW_HTML}])
    );
}

/// The tool's `_meta` names the view, and the view is listed with the app MIME type: the
/// same at both revisions.
fn check_listed(spec: &Spec, tools: &Value, resources: &Value) {
    spec.check_response("ListToolsResult", tools);
    let tool = &tools["result"]["tools"][0];
    assert_eq!(tool["name"], "get_weather");
    assert_eq!(tool["_meta"], json!({"ui": {"resourceUri": app::VIEW_URI}}));
    assert_eq!(
        tool["annotations"],
        json!({"readOnlyHint": true, "openWorldHint": true})
    );
    spec.check_response("ListResourcesResult", resources);
    assert_eq!(
        resources["result"]["resources"],
        json!([{
            "uri": app::VIEW_URI,
            "name": "weather-view",
            "title": "Weather view",
            "mimeType": app::APP_MIME,
            "icons": [{"src": "data:image/svg+xml;base64,PHN2Zy8+", "sizes": ["any"]}]
        }])
    );
}

fn initialize() -> Value {
    lrpc(
        "initialize",
        json!({"protocolVersion": LEGACY, "capabilities": {},
               "clientInfo": {"name": "host", "version": "1"}}),
    )
}

#[tokio::test]
async fn an_mcp_app_over_http_1_1() {
    let server = Server::new(app::config()).expect("the example's configuration is valid");
    let addr =
        rig::spawn(HttpService::new(server, |_| Ok(()), AllowedOrigins::Any).path("/mcp")).await;
    let c = Client::new(Proto::H1, addr);

    let modern = Spec::load(MODERN);
    let discover = c.post(&rpc("server/discover", json!({}))).await;
    let tools = c.post(&rpc("tools/list", json!({}))).await;
    let resources = c.post(&rpc("resources/list", json!({}))).await;
    let read = c
        .post(&rpc("resources/read", json!({"uri": app::VIEW_URI})))
        .await;
    for r in [&discover, &tools, &resources, &read] {
        assert_eq!(r.status, 200, "{:?}", r.json());
    }
    check_modern(
        &modern,
        &discover.json(),
        &tools.json(),
        &resources.json(),
        &read.json(),
    );
    let call = c
        .post(&rpc(
            "tools/call",
            json!({"name": "get_weather", "arguments": {"place": "Oslo"}}),
        ))
        .await
        .json();
    modern.check_response("CallToolResult", &call);
    assert_eq!(
        call["result"]["content"][0]["text"],
        "12°C and clear in Oslo"
    );

    // A 2025-11-25 client over the same endpoint: no extension (its schema has no
    // `extensions`), and the same tool `_meta` and resource.
    let legacy = Spec::load(LEGACY);
    let init = c.post_plain(&initialize(), &[]).await.json();
    legacy.check_response("InitializeResult", &init);
    assert!(
        init["result"]["capabilities"].get("extensions").is_none(),
        "{init}"
    );
    let v = [("MCP-Protocol-Version", LEGACY)];
    let tools = c.post_plain(&lrpc("tools/list", json!({})), &v).await;
    let resources = c.post_plain(&lrpc("resources/list", json!({})), &v).await;
    check_listed(&legacy, &tools.json(), &resources.json());
    let read = c
        .post_plain(&lrpc("resources/read", json!({"uri": app::VIEW_URI})), &v)
        .await
        .json();
    legacy.check_response("ReadResourceResult", &read);
    assert_eq!(read["result"]["contents"][0]["text"], app::VIEW_HTML);
}

#[tokio::test]
async fn an_mcp_app_over_stdio() {
    let mut c = ChildClient::spawn("mcp_app", &[]);
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {}
    });
    let mut ask = async |id: i64, method: &str, mut params: Value, modern: bool| {
        if modern {
            params["_meta"] = meta.clone();
        }
        c.request(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await
    };
    let discover = ask(1, "server/discover", json!({}), true).await;
    let tools = ask(2, "tools/list", json!({}), true).await;
    let resources = ask(3, "resources/list", json!({}), true).await;
    let read = ask(4, "resources/read", json!({"uri": app::VIEW_URI}), true).await;
    check_modern(&Spec::load(MODERN), &discover, &tools, &resources, &read);
    assert_eq!(
        discover["result"]["_meta"]["io.modelcontextprotocol/serverInfo"],
        json!({"name": "mcp-app-weather", "version": env!("CARGO_PKG_VERSION"),
               "title": "Weather (MCP App)"})
    );

    let legacy = Spec::load(LEGACY);
    let init = ask(5, "initialize", initialize()["params"].clone(), false).await;
    legacy.check_response("InitializeResult", &init);
    assert!(
        init["result"]["capabilities"].get("extensions").is_none(),
        "{init}"
    );
    assert_eq!(init["result"]["serverInfo"]["title"], "Weather (MCP App)");
    let tools = ask(6, "tools/list", json!({}), false).await;
    let resources = ask(7, "resources/list", json!({}), false).await;
    check_listed(&legacy, &tools, &resources);
    let read = ask(8, "resources/read", json!({"uri": app::VIEW_URI}), false).await;
    legacy.check_response("ReadResourceResult", &read);
    assert_eq!(read["result"]["contents"][0]["text"], app::VIEW_HTML);

    c.close_stdin();
    assert!(c.wait_exit().await.success());
}
