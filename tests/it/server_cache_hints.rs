//! `ttlMs` and `cacheScope` come from the server options, at 2026-07-28 only, on the results
//! the schema makes cacheable; `prompts/get` and `tools/call` carry neither.

use beam_mcp::catalog::{
    PromptSpec, RenderedPrompt, ResourceContents, ResourceSpec, ResourceTemplateSpec,
};
use beam_mcp::protocol::{CacheHint, Cacheable};
use beam_mcp::{Answer, Arguments, Carrier, Catalog, Server, ServerConfig, ToolOutput, ToolSpec};
use serde_json::{json, Value};
use std::time::Duration;

fn server() -> Server {
    let catalog = Catalog::new()
        .tool(ToolSpec::new("t", "x"))
        .resource(ResourceSpec::new("a://r", "r"))
        .resource(ResourceTemplateSpec::new("a://t/{x}", "t"))
        .reader(|uri: String| async move { Ok(vec![ResourceContents::blob(uri, vec![0u8, 255])]) })
        .prompt(PromptSpec::new("p"))
        .renderer(|_n: String, _a: Arguments| async { Ok(RenderedPrompt::default()) });
    Server::new(
        ServerConfig::new(catalog)
            .dispatch(|_c| async { Ok(ToolOutput::text("ok")) })
            .cache_hint(Cacheable::Tools, CacheHint::public(Duration::from_secs(1)))
            .cache_hint(
                Cacheable::Resources,
                CacheHint::private(Duration::from_secs(2)),
            )
            .cache_hint(
                Cacheable::Prompts,
                CacheHint::public(Duration::from_secs(3)),
            )
            .cache_hint(
                Cacheable::Discover,
                CacheHint::private(Duration::from_secs(4)),
            ),
    )
    .unwrap()
}

async fn ask(s: &Server, method: &str, mut params: Value, modern: bool) -> Value {
    if modern {
        params["_meta"] = json!({"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}});
    }
    let f = json!({"jsonrpc":"2.0","id":1,"method":method,"params":params});
    let Answer::Reply(r) = s
        .answer(&serde_json::to_vec(&f).unwrap(), Carrier::Stdio)
        .await
    else {
        panic!()
    };
    serde_json::from_slice::<Value>(r.bytes()).unwrap()["result"].clone()
}

#[tokio::test]
async fn hints_follow_the_options_at_the_modern_revision_only() {
    let s = server();
    let cases = [
        ("tools/list", json!({}), Some((1000, "public"))),
        ("resources/list", json!({}), Some((2000, "private"))),
        (
            "resources/templates/list",
            json!({}),
            Some((2000, "private")),
        ),
        (
            "resources/read",
            json!({"uri":"a://t/x"}),
            Some((2000, "private")),
        ),
        ("prompts/list", json!({}), Some((3000, "public"))),
        ("prompts/get", json!({"name":"p"}), None),
        ("tools/call", json!({"name":"t"}), None),
    ];
    for (method, params, want) in cases {
        let modern = ask(&s, method, params.clone(), true).await;
        match want {
            Some((ttl, scope)) => {
                assert_eq!(modern["ttlMs"], ttl, "{method}");
                assert_eq!(modern["cacheScope"], scope, "{method}");
            }
            None => assert!(
                modern.get("ttlMs").is_none() && modern.get("cacheScope").is_none(),
                "{method}"
            ),
        }
        assert_eq!(modern["resultType"], "complete", "{method}");
        let legacy = ask(&s, method, params, false).await;
        assert!(
            legacy.get("ttlMs").is_none() && legacy.get("resultType").is_none(),
            "{method}: {legacy}"
        );
    }
    let d = ask(&s, "server/discover", json!({}), false).await;
    assert_eq!(d["ttlMs"], 4000);
    // A blob travels base64-encoded.
    let read = ask(&s, "resources/read", json!({"uri":"a://r"}), true).await;
    assert_eq!(read["contents"][0]["blob"], "AP8=");
}

#[tokio::test]
async fn each_result_has_one_hint_and_the_default_is_zero_and_private() {
    let plain = Server::new(
        ServerConfig::new(Catalog::new().tool(ToolSpec::new("t", "x")))
            .dispatch(|_c| async { Ok(ToolOutput::text("ok")) }),
    )
    .unwrap();
    let list = ask(&plain, "tools/list", json!({}), true).await;
    assert_eq!(
        (list["ttlMs"].clone(), list["cacheScope"].clone()),
        (json!(0), json!("private"))
    );
    let d = ask(&plain, "server/discover", json!({}), false).await;
    assert_eq!(
        (d["ttlMs"].clone(), d["cacheScope"].clone()),
        (json!(0), json!("private"))
    );

    // The discover hint takes a scope like every other; a later hint for a result replaces
    // the earlier one; the ttl travels in whole milliseconds.
    let hinted = Server::new(
        ServerConfig::new(Catalog::new().tool(ToolSpec::new("t", "x")))
            .dispatch(|_c| async { Ok(ToolOutput::text("ok")) })
            .cache_hint(
                Cacheable::Discover,
                CacheHint::public(Duration::from_secs(9)),
            )
            .cache_hint(Cacheable::Tools, CacheHint::public(Duration::from_secs(9)))
            .cache_hint(
                Cacheable::Tools,
                CacheHint::private(Duration::from_micros(1500)),
            ),
    )
    .unwrap();
    let d = ask(&hinted, "server/discover", json!({}), false).await;
    assert_eq!(
        (d["ttlMs"].clone(), d["cacheScope"].clone()),
        (json!(9000), json!("public"))
    );
    let list = ask(&hinted, "tools/list", json!({}), true).await;
    assert_eq!(
        (list["ttlMs"].clone(), list["cacheScope"].clone()),
        (json!(1), json!("private"))
    );
    assert_eq!(CacheHint::default(), CacheHint::NONE);
}
