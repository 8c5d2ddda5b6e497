//! The caller's context on the runtime's carriers: a host dispatch (by handle and by message)
//! carries its extensions to the tool, a stdio connection carries the ones its connector (its
//! per-connection hook, run at every restart) gave it, and the runtime's HTTP listener carries
//! the principal its service's async hook attached into the dispatch pool (real sockets,
//! HTTP/1.1 and h2c); and the typed outcomes a host reads, never the message text.

use crate::support::http as rig;

use beam_mcp::runtime::{Application, ApplicationConfig, ApplicationMsg, StdioIo, STDIO};
use beam_mcp::transport::http::{AllowedOrigins, Forbidden, HttpService, ServeOptions};
use beam_mcp::transport::stdio::{self, StdioOptions};
use beam_mcp::{
    Answer, Carrier, Catalog, Extensions, Outcome, Server, ServerConfig, ToolCall, ToolError,
    ToolOutput, ToolSpec, Unserved,
};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

const LIMIT: Duration = Duration::from_secs(10);

#[derive(Debug)]
struct Principal(String);

fn server() -> Server {
    let catalog = Catalog::new().tool(
        ToolSpec::new("whoami", "Says who called.")
            .with_input_schema(json!({"type": "object", "properties": {"n": {"type": "integer"}}})),
    );
    let config = ServerConfig::new(catalog).dispatch(|call: ToolCall| async move {
        let carrier = format!("{:?}", call.context.carrier);
        match call.extensions().get::<Principal>() {
            Some(p) => Ok(ToolOutput::text(format!("{} via {carrier}", p.0))),
            None => Err(ToolError::new(format!("nobody via {carrier}"))),
        }
    });
    Server::new(config).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_host_dispatch_carries_its_extensions() {
    let rt = Application::start(server(), ApplicationConfig::new())
        .await
        .unwrap();
    let who = Extensions::new().with(Principal("svc-billing".into()));
    let reply = rt.dispatch_with("whoami", json!({}), who).await.unwrap();
    assert_eq!(reply.texts(), ["svc-billing via Host"]);
    assert!(!reply.is_error());

    // None attached: the tool's own error, typed as one.
    let reply = rt.dispatch("whoami", json!({})).await.unwrap();
    assert!(reply.is_error());
    assert_eq!(reply.texts(), ["nobody via Host"]);
    assert_eq!(
        reply.content(),
        [json!({"type": "text", "text": "nobody via Host"})]
    );

    let answer = rt
        .dispatcher()
        .unwrap()
        .call(
            |reply| ApplicationMsg::Dispatch {
                tool: "whoami".into(),
                arguments: json!({}),
                extensions: Extensions::new().with(Principal("an-actor".into())),
                reply,
            },
            Some(LIMIT),
        )
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert_eq!(answer.texts(), ["an-actor via Host"]);

    // Refusals are typed: the predicates read the kind, whatever the message says.
    let unknown = rt.dispatch("nope", json!({})).await.unwrap_err();
    assert!(unknown.is_unknown_tool() && !unknown.is_invalid_arguments());
    assert!(unknown.refused().is_invalid_params());
    assert_eq!(unknown.reason(), None);
    let invalid = rt.dispatch("whoami", json!({"n": "x"})).await.unwrap_err();
    assert!(invalid.is_invalid_arguments() && !invalid.is_unknown_tool());
    assert_eq!(invalid.code(), -32602);
    rt.stop(LIMIT).await.unwrap();

    // A stopped runtime: the pool is gone, the refusal says so by its reason.
    let gone = rt.dispatch("whoami", json!({})).await.unwrap_err();
    assert!(gone.is_unavailable(), "{gone}");
    assert_eq!(gone.reason(), Some(Unserved::Unavailable));
    assert_eq!(gone.data()["reason"], "unavailable");
}

/// One stdio client: writes a line, reads the answer.
struct Peer {
    lines: tokio::io::Lines<BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>>,
    writer: tokio::io::WriteHalf<tokio::io::DuplexStream>,
}

impl Peer {
    async fn ask(&mut self, id: u64) -> Value {
        let frame = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "whoami", "arguments": {}}});
        let mut line = serde_json::to_vec(&frame).unwrap();
        line.push(b'\n');
        self.writer.write_all(&line).await.unwrap();
        let got = tokio::time::timeout(LIMIT, self.lines.next_line())
            .await
            .unwrap()
            .unwrap()
            .unwrap();
        serde_json::from_str(&got).unwrap()
    }
}

fn pipe() -> (
    Peer,
    BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>,
    tokio::io::WriteHalf<tokio::io::DuplexStream>,
) {
    let (client, server) = tokio::io::duplex(64 * 1024);
    let (cr, cw) = tokio::io::split(client);
    let (sr, sw) = tokio::io::split(server);
    let peer = Peer {
        lines: BufReader::new(cr).lines(),
        writer: cw,
    };
    (peer, BufReader::new(sr), sw)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stdio_connection_carries_what_its_connector_gave_it_at_every_restart() {
    let (peers_tx, mut peers) = tokio::sync::mpsc::unbounded_channel();
    let opened = Arc::new(AtomicUsize::new(0));
    let count = opened.clone();
    let connect = move || {
        let n = count.fetch_add(1, Ordering::SeqCst);
        let (peer, r, w) = pipe();
        let _ = peers_tx.send(peer);
        StdioIo::new(r, w).extensions(Extensions::new().with(Principal(format!("conn-{n}"))))
    };
    let config = ApplicationConfig::new().stdio(connect, StdioOptions::default());
    let rt = Application::start(server(), config).await.unwrap();
    let mut first = peers.recv().await.unwrap();
    let v = first.ask(1).await;
    assert_eq!(v["result"]["content"][0]["text"], "conn-0 via Stdio", "{v}");
    rt.restart_transport(STDIO).await.unwrap();
    let mut second = peers.recv().await.unwrap();
    let v = second.ask(2).await;
    assert_eq!(v["result"]["content"][0]["text"], "conn-1 via Stdio", "{v}");
    assert_eq!(opened.load(Ordering::SeqCst), 2);
    rt.stop(LIMIT).await.unwrap();
}

#[tokio::test]
async fn serve_with_gives_every_request_of_the_connection_its_extensions() {
    let (mut peer, r, w) = pipe();
    let serving = tokio::spawn(stdio::serve_with(
        server(),
        r,
        w,
        StdioOptions::default(),
        Extensions::new().with(Principal("local-user".into())),
    ));
    for id in 1..=3 {
        let v = peer.ask(id).await;
        assert_eq!(v["result"]["content"][0]["text"], "local-user via Stdio");
    }
    drop(peer);
    serving.await.unwrap().unwrap();
}

#[tokio::test]
async fn replies_carry_typed_outcomes() {
    let s = server();
    let served = |frame: Value, ext: Extensions| {
        let s = s.clone();
        async move {
            match s
                .answer_with(&serde_json::to_vec(&frame).unwrap(), Carrier::Stdio, ext)
                .await
            {
                Answer::Reply(r) => r,
                other => panic!("{other:?}"),
            }
        }
    };
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "whoami", "arguments": {}}});
    let r = served(call.clone(), Extensions::new().with(Principal("p".into()))).await;
    assert_eq!(r.outcome(), Outcome::Result);
    let r = served(call, Extensions::new()).await;
    assert_eq!(r.outcome(), Outcome::ToolError);
    assert_eq!(r.error_code(), None);
    // 2025-11-25 (no _meta): arguments that fail the schema are a tool error, not a refusal.
    let bad = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "whoami", "arguments": {"n": "x"}}});
    assert_eq!(
        served(bad, Extensions::new()).await.outcome(),
        Outcome::ToolError
    );
    let unknown = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": "nope"}});
    let r = served(unknown, Extensions::new()).await;
    let refused = r.outcome().refused().unwrap();
    assert!(refused.is_unknown_tool());
    assert_eq!(refused.code(), -32602);
    let Answer::Reply(r) = s.answer(b"{not json", Carrier::Stdio).await else {
        panic!()
    };
    assert!(r.outcome().refused().unwrap().is_parse_error());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_runtime_http_listener_carries_the_principal_into_the_pool() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let service = HttpService::new(server(), |_| Ok(()), AllowedOrigins::Any)
        .path("/mcp")
        .authorize_async(|head| {
            let user = head
                .headers
                .get("x-user")
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned);
            async move {
                tokio::task::yield_now().await;
                match user {
                    Some(u) => Ok(Extensions::new().with(Principal(u))),
                    None => Err(Forbidden::new("no user")),
                }
            }
        });
    let config =
        ApplicationConfig::new()
            .workers(2)
            .http(listener, service, ServeOptions::default());
    let rt = Application::start(server(), config).await.unwrap();
    let call = rig::rpc("tools/call", json!({"name": "whoami", "arguments": {}}));
    for proto in rig::BOTH {
        let before = rt.pool_stats().completed;
        let c = rig::Client::new(proto, addr);
        let r = c
            .post_with(&call, |h| h.push(("x-user".into(), "carol".into())))
            .await;
        assert_eq!(
            r.json()["result"]["content"][0]["text"],
            "carol via Http",
            "{proto:?}"
        );
        assert_eq!(
            rt.pool_stats().completed,
            before + 1,
            "{proto:?}: ran in the pool"
        );
        assert_eq!(c.post(&call).await.status.as_u16(), 403, "{proto:?}");
    }
    rt.stop(LIMIT).await.unwrap();
}
