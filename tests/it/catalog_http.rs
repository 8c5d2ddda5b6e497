//! Resources, templates, prompts and pagination over the HTTP transport (2026-07-28), through
//! a real listener on 127.0.0.1, over HTTP/1.1 and h2c; every body checked against the schema.

use crate::support::http as rig;
use crate::support::spec;

use beam_mcp::catalog::{
    PromptArgument, PromptMessage, PromptSpec, ReadError, RenderedPrompt, ResourceContents,
    ResourceSpec, ResourceTemplateSpec, Role,
};
use beam_mcp::transport::http::{AllowedOrigins, HttpService};
use beam_mcp::{Arguments, Catalog, Server, ServerConfig};
use rig::{rpc, Client, BOTH};
use serde_json::{json, Value};
use spec::Spec;

fn server() -> Server {
    let mut catalog = Catalog::new()
        .resource(ResourceTemplateSpec::new("note://{id}", "note"))
        .reader(|uri: String| async move {
            match uri.strip_prefix("note://") {
                Some("missing") => Err(ReadError::new("gone")),
                Some(id) => Ok(vec![ResourceContents::text(
                    uri.clone(),
                    format!("note {id}"),
                )]),
                None => Ok(vec![ResourceContents::text(uri, "index")]),
            }
        })
        .prompt(
            PromptSpec::new("greet").with_argument(PromptArgument::new("who").with_required(true)),
        )
        .renderer(|_n: String, a: Arguments| async move {
            let who = a
                .get("who")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            Ok(RenderedPrompt::new(vec![PromptMessage::new(
                Role::User,
                format!("Hello, {who}"),
            )]))
        });
    for i in 0..7 {
        catalog = catalog.resource(ResourceSpec::new(format!("doc://{i}"), format!("d{i}")));
    }
    Server::new(ServerConfig::new(catalog).page_size(3)).unwrap()
}

#[tokio::test]
async fn resources_templates_prompts_and_pages_over_http() {
    let m = Spec::load("2026-07-28");
    let svc = HttpService::new(server(), |_| Ok(()), AllowedOrigins::Any).path("/mcp");
    let addr = rig::spawn(svc).await;
    for proto in BOTH {
        let c = Client::new(proto, addr);
        let d = c.post(&rpc("server/discover", json!({}))).await.json();
        m.check_response("DiscoverResult", &d);
        assert!(
            d["result"]["capabilities"].get("tools").is_none(),
            "no tools, no tools capability"
        );
        assert_eq!(c.post(&rpc("tools/list", json!({}))).await.status, 404);

        let mut uris = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let params = match &cursor {
                Some(cur) => json!({"cursor": cur}),
                None => json!({}),
            };
            let page = c.post(&rpc("resources/list", params)).await.json();
            m.check_response("ListResourcesResult", &page);
            uris.extend(
                page["result"]["resources"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|r| r["uri"].as_str().unwrap().to_owned()),
            );
            match page["result"]["nextCursor"].as_str() {
                Some(n) => cursor = Some(n.to_owned()),
                None => break,
            }
        }
        assert_eq!(
            uris,
            (0..7).map(|i| format!("doc://{i}")).collect::<Vec<_>>(),
            "{proto:?}"
        );

        let read = c
            .post(&rpc("resources/read", json!({"uri": "note://7"})))
            .await;
        assert_eq!(read.status, 200);
        m.check_response("ReadResourceResult", &read.json());
        assert_eq!(read.json()["result"]["contents"][0]["text"], "note 7");
        let unlisted = c
            .post(&rpc("resources/read", json!({"uri": "file:///etc/passwd"})))
            .await;
        assert_eq!((unlisted.status.as_u16(), unlisted.code()), (200, -32602));
        assert_eq!(
            unlisted.json()["error"]["data"]["uri"],
            "file:///etc/passwd"
        );
        let refused = c
            .post(&rpc("resources/read", json!({"uri": "note://missing"})))
            .await;
        assert_eq!(refused.json()["error"]["data"]["reason"], "gone");

        let got = c
            .post(&rpc(
                "prompts/get",
                json!({"name": "greet", "arguments": {"who": "Ada"}}),
            ))
            .await;
        m.check_response("GetPromptResult", &got.json());
        assert_eq!(
            got.json()["result"]["messages"][0]["content"]["text"],
            "Hello, Ada"
        );
        let unknown = c.post(&rpc("prompts/get", json!({"name": "nope"}))).await;
        assert_eq!((unknown.status.as_u16(), unknown.code()), (200, -32602));
        let missing = c.post(&rpc("prompts/get", json!({"name": "greet"}))).await;
        assert_eq!(missing.code(), -32602);
        let pl = c.post(&rpc("prompts/list", json!({}))).await.json();
        m.check_response("ListPromptsResult", &pl);
        let tl = c
            .post(&rpc("resources/templates/list", json!({})))
            .await
            .json();
        m.check_response("ListResourceTemplatesResult", &tl);
    }
}
