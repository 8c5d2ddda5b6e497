//! The caller's context over a real listener, HTTP/1.1 and h2c: a token checked by an
//! asynchronous authorize hook against a token service of the host's (a task answering over a
//! channel), the principal it returns read by the tool, the resource reader and the prompt
//! renderer; a refusal that says nothing of why; a hook that panics or hangs.

use crate::support::http as rig;

use beam_mcp::catalog::{
    PromptMessage, PromptSpec, ReadError, RenderError, RenderedPrompt, ResourceContents,
    ResourceSpec, Role,
};
use beam_mcp::transport::http::{AllowedOrigins, Forbidden, HttpService};
use beam_mcp::{
    Carrier, Catalog, Extensions, Server, ServerConfig, ToolCall, ToolError, ToolOutput, ToolSpec,
};
use rig::{rpc, spawn, Client, BOTH};
use serde_json::json;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};

/// What the host's hook learnt about the caller.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Principal {
    name: String,
}

/// A token service of the host's own: asked over a channel, it answers from a task of its
/// own, as an identity provider across a network would (the hook awaits its answer).
fn token_service() -> mpsc::Sender<(String, oneshot::Sender<Option<Principal>>)> {
    let (tx, mut rx) = mpsc::channel::<(String, oneshot::Sender<Option<Principal>>)>(16);
    tokio::spawn(async move {
        while let Some((token, answer)) = rx.recv().await {
            let who = match token.as_str() {
                "alice-token" => Some(Principal {
                    name: "alice".into(),
                }),
                "bob-token" => Some(Principal { name: "bob".into() }),
                _ => None,
            };
            let _ = answer.send(who);
        }
    });
    tx
}

fn server(ran: Arc<AtomicUsize>) -> Server {
    let catalog = Catalog::new()
        .tool(
            ToolSpec::new("whoami", "Says who called.").with_input_schema(json!({
                "type": "object", "properties": {}
            })),
        )
        .resource(ResourceSpec::new("mine://profile", "profile"))
        .reader_in_context(|uri: String, cx: beam_mcp::CallContext| async move {
            let who = cx.extensions.get::<Principal>().map(|p| p.name.clone());
            let who = who.ok_or_else(|| ReadError::new("no principal"))?;
            Ok(vec![ResourceContents::text(
                uri,
                format!("profile of {who}"),
            )])
        })
        .prompt(PromptSpec::new("greet"))
        .renderer_in_context(
            |_name: String, _args, cx: beam_mcp::CallContext| async move {
                let who = cx.extensions.get::<Principal>().map(|p| p.name.clone());
                let who = who.ok_or_else(|| RenderError::new("no principal"))?;
                Ok(RenderedPrompt::new(vec![PromptMessage::new(
                    Role::User,
                    format!("Hello, {who}."),
                )]))
            },
        );
    let config = ServerConfig::new(catalog).dispatch(move |call: ToolCall| {
        let ran = ran.clone();
        async move {
            ran.fetch_add(1, Ordering::SeqCst);
            assert_eq!(call.context.carrier, Carrier::Http);
            match call.extensions().get::<Principal>() {
                Some(p) => Ok(ToolOutput::text(format!("called by {}", p.name))),
                None => Err(ToolError::new("no principal")),
            }
        }
    });
    Server::new(config).unwrap()
}

fn service(ran: Arc<AtomicUsize>) -> HttpService {
    let tokens = token_service();
    HttpService::new(
        server(ran),
        |_| Ok(()),
        AllowedOrigins::list(["http://localhost"]),
    )
    .path("/mcp")
    .authorize_async(move |head| {
        let bearer = head
            .headers
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .map(str::to_owned);
        let tokens = tokens.clone();
        async move {
            let token = bearer.ok_or_else(|| Forbidden::new("secret-reason: no bearer"))?;
            let (tx, rx) = oneshot::channel();
            tokens
                .send((token, tx))
                .await
                .map_err(|_| Forbidden::new("secret-reason: token service gone"))?;
            match rx.await {
                Ok(Some(principal)) => Ok(Extensions::new().with(principal)),
                _ => Err(Forbidden::new(
                    "secret-reason: token unknown to the service",
                )),
            }
        }
    })
}

fn bearer(token: &str) -> impl FnOnce(&mut Vec<(String, String)>) + '_ {
    move |h| h.push(("authorization".into(), format!("Bearer {token}")))
}

#[tokio::test]
async fn the_tool_reads_the_principal_the_async_hook_attached() {
    let ran = Arc::new(AtomicUsize::new(0));
    let addr = spawn(service(ran.clone())).await;
    let call = rpc("tools/call", json!({"name": "whoami", "arguments": {}}));
    for proto in BOTH {
        let c = Client::new(proto, addr);
        for (token, who) in [("alice-token", "alice"), ("bob-token", "bob")] {
            let r = c.post_with(&call, bearer(token)).await;
            assert_eq!(r.status.as_u16(), 200, "{proto:?}");
            let v = r.json();
            assert_eq!(v["result"]["isError"], json!(null), "{proto:?}: {v}");
            assert_eq!(
                v["result"]["content"][0]["text"],
                format!("called by {who}"),
                "{proto:?}"
            );
        }
    }
    assert_eq!(ran.load(Ordering::SeqCst), 4);
}

#[tokio::test]
async fn the_reader_and_the_renderer_read_it_too() {
    let addr = spawn(service(Arc::default())).await;
    for proto in BOTH {
        let c = Client::new(proto, addr);
        let read = rpc("resources/read", json!({"uri": "mine://profile"}));
        let v = c.post_with(&read, bearer("alice-token")).await.json();
        assert_eq!(
            v["result"]["contents"][0]["text"], "profile of alice",
            "{proto:?}: {v}"
        );
        let get = rpc("prompts/get", json!({"name": "greet"}));
        let v = c.post_with(&get, bearer("bob-token")).await.json();
        assert_eq!(
            v["result"]["messages"][0]["content"]["text"], "Hello, bob.",
            "{proto:?}: {v}"
        );
    }
}

#[tokio::test]
async fn a_refusal_says_nothing_and_nothing_runs() {
    let ran = Arc::new(AtomicUsize::new(0));
    let addr = spawn(service(ran.clone())).await;
    let call = rpc("tools/call", json!({"name": "whoami", "arguments": {}}));
    for proto in BOTH {
        let c = Client::new(proto, addr);
        for edit in [
            Box::new(bearer("mallory-token")) as Box<dyn FnOnce(&mut Vec<(String, String)>)>,
            Box::new(|_: &mut Vec<(String, String)>| {}),
        ] {
            let r = c.post_with(&call, edit).await;
            assert_eq!(r.status.as_u16(), 403, "{proto:?}");
            let body = String::from_utf8_lossy(&r.body).into_owned();
            assert!(!body.contains("secret-reason"), "{proto:?}: {body}");
            assert!(!body.contains("token"), "{proto:?}: {body}");
            let v = r.json();
            assert_eq!(v["error"]["message"], "Forbidden", "{proto:?}: {v}");
            assert!(v["error"].get("data").is_none(), "{proto:?}: {v}");
        }
    }
    assert_eq!(
        ran.load(Ordering::SeqCst),
        0,
        "no tool ran for a refused caller"
    );
}

#[tokio::test]
async fn the_sync_hook_runs_first_and_a_refusal_there_skips_the_async_one() {
    let asked = Arc::new(AtomicUsize::new(0));
    let seen = asked.clone();
    let service = HttpService::new(
        server(Arc::default()),
        |head| match head.headers.get("x-tenant") {
            Some(_) => Ok(()),
            None => Err(Forbidden::new("no tenant")),
        },
        AllowedOrigins::Any,
    )
    .path("/mcp")
    .authorize_async(move |_| {
        seen.fetch_add(1, Ordering::SeqCst);
        async { Ok(Extensions::new().with(Principal { name: "t".into() })) }
    });
    let addr = spawn(service).await;
    let call = rpc("tools/call", json!({"name": "whoami", "arguments": {}}));
    for proto in BOTH {
        let c = Client::new(proto, addr);
        assert_eq!(c.post(&call).await.status.as_u16(), 403, "{proto:?}");
        let r = c
            .post_with(&call, |h| h.push(("x-tenant".into(), "acme".into())))
            .await;
        assert_eq!(r.json()["result"]["content"][0]["text"], "called by t");
    }
    assert_eq!(
        asked.load(Ordering::SeqCst),
        2,
        "only the admitted requests were asked"
    );
}

#[tokio::test]
async fn a_panicking_hook_is_500_and_a_hung_one_503_each_saying_nothing() {
    let panicking = HttpService::new(server(Arc::default()), |_| Ok(()), AllowedOrigins::Any)
        .path("/mcp")
        .authorize_async(|head| {
            let secret = head.headers.contains_key("x-boom");
            async move {
                if secret {
                    panic!("secret-reason: the identity provider crashed");
                }
                Ok(Extensions::new())
            }
        });
    let hung = HttpService::new(server(Arc::default()), |_| Ok(()), AllowedOrigins::Any)
        .path("/mcp")
        .read_timeout(Duration::from_millis(200))
        // Never answers: only the read deadline can.
        .authorize_async(|_| async {
            std::future::pending::<()>().await;
            Ok(Extensions::new())
        });
    let panicking = spawn(panicking).await;
    let hung = spawn(hung).await;
    let call = rpc("tools/call", json!({"name": "whoami", "arguments": {}}));
    for proto in BOTH {
        let c = Client::new(proto, panicking);
        let r = c
            .post_with(&call, |h| h.push(("x-boom".into(), "1".into())))
            .await;
        assert_eq!(r.status.as_u16(), 500, "{proto:?}");
        assert!(!String::from_utf8_lossy(&r.body).contains("secret-reason"));
        assert_eq!(r.code(), -32603);
        // The service is unharmed: the next request is served (with no principal).
        let r = c.post(&call).await;
        assert_eq!(r.json()["result"]["isError"], true, "{proto:?}");

        let c = Client::new(proto, hung);
        // A safety net against a hang, not a timing assertion: the hook never answers, so the
        // read deadline (200 ms) is what answers.
        let r = tokio::time::timeout(Duration::from_secs(60), c.post(&call))
            .await
            .expect("the read deadline answers a hung hook");
        assert_eq!(r.status.as_u16(), 503, "{proto:?}");
        assert_eq!(r.code(), -32603);
        assert!(r.json()["error"].get("data").is_none());
    }
}
