//! Keyset pagination: one opaque cursor for every list, never skipping a pre-existing item
//! (the codec's own property test is a unit test of `catalog::cursor`).

use beam_mcp::catalog::{PromptSpec, RenderedPrompt};
use beam_mcp::{Answer, Arguments, Carrier, Catalog, Server, ServerConfig, ToolOutput, ToolSpec};
use serde_json::{json, Value};

fn server(tools: usize, prompts: usize, key: [u8; 32]) -> Server {
    let mut c = Catalog::new();
    for i in 0..tools {
        c = c.tool(ToolSpec::new(format!("tool_{i:03}"), "t"));
    }
    for i in 0..prompts {
        c = c.prompt(PromptSpec::new(format!("p{i}")));
    }
    c = c.renderer(|_n: String, _a: Arguments| async { Ok(RenderedPrompt::default()) });
    Server::new(
        ServerConfig::new(c)
            .cursor_key(key)
            .dispatch(|_c| async { Ok(ToolOutput::text("")) }),
    )
    .unwrap()
}

async fn ask(s: &Server, method: &str, cursor: Option<&str>) -> Value {
    let mut params = json!({});
    if let Some(c) = cursor {
        params["cursor"] = json!(c);
    }
    let f = json!({"jsonrpc":"2.0","id":1,"method":method,"params":params});
    let Answer::Reply(r) = s
        .answer(&serde_json::to_vec(&f).unwrap(), Carrier::Stdio)
        .await
    else {
        panic!()
    };
    serde_json::from_slice(r.bytes()).unwrap()
}

#[tokio::test]
async fn tools_list_pages_by_the_default_size_of_fifty() {
    let s = server(120, 0, [1; 32]);
    let mut names = Vec::new();
    let mut cursor = None;
    let mut pages = 0;
    loop {
        let r = ask(&s, "tools/list", cursor.as_deref()).await;
        let tools = r["result"]["tools"].as_array().unwrap();
        names.extend(tools.iter().map(|t| t["name"].as_str().unwrap().to_owned()));
        pages += 1;
        match r["result"].get("nextCursor") {
            Some(Value::String(c)) => cursor = Some(c.clone()),
            _ => break,
        }
    }
    assert_eq!(pages, 3);
    let want: Vec<String> = (0..120).map(|i| format!("tool_{i:03}")).collect();
    assert_eq!(names, want);
}

#[tokio::test]
async fn foreign_forged_and_corrupt_cursors_are_refused() {
    let s = server(60, 60, [1; 32]);
    let first = ask(&s, "tools/list", None).await;
    let c = first["result"]["nextCursor"].as_str().unwrap().to_owned();
    let wrong = ask(&s, "prompts/list", Some(&c)).await;
    assert_eq!(wrong["error"]["code"], -32602);
    assert_eq!(
        wrong["error"]["data"]["reason"],
        "cursor belongs to tools/list"
    );
    let other_server = server(60, 0, [2; 32]);
    let forged = ask(&other_server, "tools/list", Some(&c)).await;
    assert_eq!(
        forged["error"]["code"], -32602,
        "a cursor under another key is not followed"
    );
    let foreign = ask(&server(60, 0, [9; 32]), "tools/list", None).await;
    let forged = foreign["result"]["nextCursor"].as_str().unwrap().to_owned();
    assert_eq!(
        ask(&s, "tools/list", Some(&forged)).await["error"]["code"],
        -32602
    );
    let mut corrupt = c.clone();
    corrupt.replace_range(0..1, if c.starts_with('A') { "B" } else { "A" });
    assert_eq!(
        ask(&s, "tools/list", Some(&corrupt)).await["error"]["code"],
        -32602
    );
    assert_eq!(
        ask(&s, "tools/list", Some("!!!")).await["error"]["code"],
        -32602
    );
    assert_eq!(
        ask(&s, "tools/list", Some("")).await["error"]["code"],
        -32602
    );
}

#[tokio::test]
async fn every_list_is_sorted_by_its_key_whatever_the_declaration_order() {
    use beam_mcp::catalog::{ResourceContents, ResourceSpec, ResourceTemplateSpec};
    let catalog = ["zeta", "alpha", "mu"]
        .iter()
        .fold(Catalog::new(), |c, n| {
            c.tool(ToolSpec::new(*n, "t"))
                .prompt(PromptSpec::new(*n))
                .resource(ResourceSpec::new(format!("r://{n}"), *n))
                .resource(ResourceTemplateSpec::new(format!("t://{n}/{{x}}"), *n))
        })
        .reader(|u: String| async move { Ok(vec![ResourceContents::text(u, "")]) })
        .renderer(|_n: String, _a: Arguments| async { Ok(RenderedPrompt::default()) });
    let s =
        Server::new(ServerConfig::new(catalog).dispatch(|_c| async { Ok(ToolOutput::text("")) }))
            .unwrap();
    for (method, field, key) in [
        ("tools/list", "tools", "name"),
        ("prompts/list", "prompts", "name"),
        ("resources/list", "resources", "uri"),
        (
            "resources/templates/list",
            "resourceTemplates",
            "uriTemplate",
        ),
    ] {
        let r = ask(&s, method, None).await;
        let keys: Vec<&str> = r["result"][field]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v[key].as_str().unwrap())
            .collect();
        let mut sorted = keys.clone();
        sorted.sort();
        assert_eq!(keys, sorted, "{method}");
        assert_eq!(keys.len(), 3);
    }
}
