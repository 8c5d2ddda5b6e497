//! OpenTelemetry for real (feature `otel`): the `weather` example exports its spans with
//! `--otlp` to a real OTLP receiver — the OpenTelemetry project's own generated OTLP/gRPC trace
//! service (`opentelemetry-proto`) on tonic's server, on 127.0.0.1 in this process — and the
//! spans it received are read back: names, kinds, the conventions' attribute names and values,
//! trace and parent ids, links, statuses.
//!
//! Over stdio (a real subprocess) and over HTTP (HTTP/1.1 and h2c to the example's listener):
//! a client's `traceparent` in `params._meta` becomes the parent of the server's request span,
//! as does one in the `traceparent` header; with both, `_meta` is the parent and the header's
//! context a link; a malformed one gives a root span and the request is served; the dispatch
//! span of a tool call is the request span's child; a tool error, a refusal of the core and one
//! of the HTTP transport are recorded with their codes. The example flushes what it batched as
//! it exits, so every span is at the receiver once the process has ended: the test waits on the
//! receiver's channel (bounded), never on a clock.

use crate::support::child::{self, ChildClient, WAIT};
use crate::support::http::{Client, Proto, MODERN};
use opentelemetry_proto::tonic::collector::trace::v1::trace_service_server::{
    TraceService, TraceServiceServer,
};
use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use opentelemetry_proto::tonic::common::v1::any_value::Value as Any;
use opentelemetry_proto::tonic::common::v1::KeyValue;
use opentelemetry_proto::tonic::trace::v1::span::SpanKind;
use opentelemetry_proto::tonic::trace::v1::status::StatusCode;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::process::Stdio;
use tokio::sync::mpsc;

/// The client's trace context in `_meta` (W3C Trace Context's own example values).
const META_TRACE: &str = "0af7651916cd43dd8448eb211c80319c";
const META_SPAN: &str = "b7ad6b7169203331";
/// The trace context of an HTTP request's `traceparent` header.
const HEADER_TRACE: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const HEADER_SPAN: &str = "00f067aa0ba902b7";

fn traceparent(trace: &str, span: &str) -> String {
    format!("00-{trace}-{span}-01")
}

/// A trace id and span id that are not W3C Trace Context's form (upper case).
const MALFORMED: &str = "00-0AF7651916CD43DD8448EB211C80319C-B7AD6B7169203331-01";

/// The OTLP trace service: every export request it is sent, down a channel.
struct Sink(mpsc::UnboundedSender<ExportTraceServiceRequest>);

#[tonic::async_trait]
impl TraceService for Sink {
    async fn export(
        &self,
        request: tonic::Request<ExportTraceServiceRequest>,
    ) -> Result<tonic::Response<ExportTraceServiceResponse>, tonic::Status> {
        let _ = self.0.send(request.into_inner());
        Ok(tonic::Response::new(ExportTraceServiceResponse {
            partial_success: None,
        }))
    }
}

/// A receiver on a free loopback port: its OTLP endpoint, and what it is sent.
async fn receiver() -> (String, mpsc::UnboundedReceiver<ExportTraceServiceRequest>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (tx, rx) = mpsc::unbounded_channel();
    let incoming = tonic::transport::server::TcpIncoming::from(listener);
    tokio::spawn(
        tonic::transport::Server::builder()
            .add_service(TraceServiceServer::new(Sink(tx)))
            .serve_with_incoming(incoming),
    );
    (format!("http://{addr}"), rx)
}

/// One span as the receiver got it, ids in hex.
#[derive(Debug, Clone)]
struct Got {
    name: String,
    kind: i32,
    trace: String,
    span: String,
    parent: String,
    attrs: BTreeMap<String, String>,
    status: i32,
    message: String,
    links: Vec<(String, String)>,
    service: Option<String>,
}

impl Got {
    fn attr(&self, key: &str) -> Option<&str> {
        self.attrs.get(key).map(String::as_str)
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn text(kv: &KeyValue) -> String {
    match kv.value.as_ref().and_then(|v| v.value.as_ref()) {
        Some(Any::StringValue(s)) => s.clone(),
        Some(Any::IntValue(i)) => i.to_string(),
        Some(Any::BoolValue(b)) => b.to_string(),
        Some(Any::DoubleValue(d)) => d.to_string(),
        other => format!("{other:?}"),
    }
}

fn spans_of(request: ExportTraceServiceRequest) -> Vec<Got> {
    let mut out = Vec::new();
    for rs in request.resource_spans {
        let service = rs.resource.as_ref().and_then(|r| {
            r.attributes
                .iter()
                .find(|kv| kv.key == "service.name")
                .map(text)
        });
        for ss in rs.scope_spans {
            for s in ss.spans {
                out.push(Got {
                    name: s.name,
                    kind: s.kind,
                    trace: hex(&s.trace_id),
                    span: hex(&s.span_id),
                    parent: hex(&s.parent_span_id),
                    attrs: s
                        .attributes
                        .iter()
                        .map(|kv| (kv.key.clone(), text(kv)))
                        .collect(),
                    status: s.status.as_ref().map_or(0, |st| st.code),
                    message: s.status.map(|st| st.message).unwrap_or_default(),
                    links: s
                        .links
                        .iter()
                        .map(|l| (hex(&l.trace_id), hex(&l.span_id)))
                        .collect(),
                    service: service.clone(),
                });
            }
        }
    }
    out
}

/// Everything the receiver holds once the example has exited: it flushed before exiting, so
/// nothing more is coming and nothing is waited for.
fn received(rx: &mut mpsc::UnboundedReceiver<ExportTraceServiceRequest>) -> Vec<Got> {
    let mut spans = Vec::new();
    while let Ok(request) = rx.try_recv() {
        spans.extend(spans_of(request));
    }
    spans
}

/// The request span answering JSON-RPC id `id`.
fn request<'a>(spans: &'a [Got], id: &str) -> &'a Got {
    let found: Vec<&Got> = spans
        .iter()
        .filter(|s| s.attr("jsonrpc.request.id") == Some(id))
        .collect();
    assert_eq!(found.len(), 1, "one request span for id {id} in {spans:#?}");
    found[0]
}

/// The dispatch spans whose parent is `parent`.
fn dispatch_under<'a>(spans: &'a [Got], parent: &Got) -> Vec<&'a Got> {
    spans
        .iter()
        .filter(|s| s.parent == parent.span && s.attr("tool").is_some())
        .collect()
}

fn meta_with(trace: Option<&str>) -> Value {
    let mut meta = json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {}
    });
    if let Some(tp) = trace {
        meta["traceparent"] = json!(tp);
        meta["tracestate"] = json!("rojo=00f067aa0ba902b7");
    }
    meta
}

fn call(id: u64, place: Value, trace: Option<&str>) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
        "name": "get_weather", "arguments": {"place": place}, "_meta": meta_with(trace)}})
}

/// What every request span of the example carries, whatever the transport.
fn assert_server_span(s: &Got, method: &str) {
    assert_eq!(s.kind, SpanKind::Server as i32, "{s:#?}");
    assert_eq!(s.attr("mcp.method.name"), Some(method), "{s:#?}");
    assert_eq!(s.service.as_deref(), Some("weather"), "{s:#?}");
}

#[tokio::test]
async fn over_stdio_meta_parents_the_request_span_and_errors_carry_their_codes() {
    let (endpoint, mut rx) = receiver().await;
    let mut c = ChildClient::spawn("weather", &["--otlp", &endpoint]);
    let parent = traceparent(META_TRACE, META_SPAN);
    let ok = c.request(call(1, json!("Oslo"), Some(&parent))).await;
    assert_eq!(ok["result"]["structuredContent"]["place"], "Oslo", "{ok}");
    let tool_error = c.request(call(2, json!("Atlantis"), Some(&parent))).await;
    assert_eq!(tool_error["result"]["isError"], true, "{tool_error}");
    let refused = c.request(call(3, json!(5), Some(&parent))).await;
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    let listed = c
        .request(json!({"jsonrpc": "2.0", "id": 4, "method": "tools/list",
            "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": MODERN,
                "io.modelcontextprotocol/clientCapabilities": {}, "traceparent": MALFORMED}}}))
        .await;
    assert!(
        listed["result"]["tools"].is_array(),
        "a bad traceparent is no refusal: {listed}"
    );
    let unknown = c
        .request(
            json!({"jsonrpc": "2.0", "id": "five", "method": "no/such/method",
            "params": {"_meta": meta_with(None)}}),
        )
        .await;
    assert_eq!(unknown["error"]["code"], -32601, "{unknown}");
    let prompt = c
        .request(
            json!({"jsonrpc": "2.0", "id": 6, "method": "prompts/get", "params": {
            "name": "forecast", "arguments": {"place": "Lima"}, "_meta": meta_with(None)}}),
        )
        .await;
    assert!(prompt["result"]["messages"].is_array(), "{prompt}");
    c.close_stdin();
    assert!(c.wait_exit().await.success());
    let spans = received(&mut rx);

    // The call: named for its tool, a SERVER span, a child of the client's span in its trace.
    let one = request(&spans, "1");
    assert_server_span(one, "tools/call");
    assert_eq!(one.name, "tools/call get_weather");
    assert_eq!(
        (one.trace.as_str(), one.parent.as_str()),
        (META_TRACE, META_SPAN)
    );
    assert_eq!(one.attr("mcp.protocol.version"), Some(MODERN));
    assert_eq!(one.attr("gen_ai.tool.name"), Some("get_weather"));
    assert_eq!(one.attr("gen_ai.operation.name"), Some("execute_tool"));
    assert_eq!(one.attr("network.transport"), Some("pipe"));
    assert_eq!(one.attr("error.type"), None);
    assert_eq!(one.status, StatusCode::Unset as i32);
    // Its dispatch span beneath it, in the same trace, naming the tool as ever.
    let dispatch = dispatch_under(&spans, one);
    assert_eq!(dispatch.len(), 1, "{spans:#?}");
    assert_eq!(dispatch[0].name, "tools/call");
    assert_eq!(dispatch[0].trace, META_TRACE);
    assert_eq!(dispatch[0].attr("tool"), Some("get_weather"));

    // A tool error: `tool_error`, status ERROR; the dispatch ran.
    let two = request(&spans, "2");
    assert_eq!(two.parent, META_SPAN);
    assert_eq!(two.attr("error.type"), Some("tool_error"));
    assert_eq!(two.attr("rpc.response.status_code"), None);
    assert_eq!(two.status, StatusCode::Error as i32);
    assert_eq!(dispatch_under(&spans, two).len(), 1);

    // A refusal: its JSON-RPC code as `error.type` and `rpc.response.status_code`, its
    // message as the status; no dispatch.
    let three = request(&spans, "3");
    assert_eq!(three.name, "tools/call get_weather");
    assert_eq!(three.attr("error.type"), Some("-32602"));
    assert_eq!(three.attr("rpc.response.status_code"), Some("-32602"));
    assert_eq!(three.status, StatusCode::Error as i32);
    assert_eq!(three.message, refused["error"]["message"].as_str().unwrap());
    assert!(dispatch_under(&spans, three).is_empty());

    // A malformed traceparent: ignored, so the span is a root of a trace of its own.
    let four = request(&spans, "4");
    assert_eq!(four.name, "tools/list");
    assert_eq!(four.parent, "", "{four:#?}");
    assert_ne!(four.trace, META_TRACE.to_owned());
    assert_eq!(four.attr("error.type"), None);

    // A method outside MCP's table: named `_OTHER`, the method kept as its attribute; a
    // string id as it is.
    let five = request(&spans, "five");
    assert_eq!(five.name, "_OTHER");
    assert_eq!(five.attr("mcp.method.name"), Some("no/such/method"));
    assert_eq!(five.attr("error.type"), Some("-32601"));
    assert_eq!(five.parent, "");

    // A prompt: named for it.
    let six = request(&spans, "6");
    assert_eq!(six.name, "prompts/get forecast");
    assert_eq!(six.attr("gen_ai.prompt.name"), Some("forecast"));
    assert_eq!(six.attr("gen_ai.tool.name"), None);
}

/// Sends SIGINT (the example's Ctrl-C: an orderly stop, then the flush) and waits for the exit.
async fn interrupt(server: &mut tokio::process::Child) {
    let pid = server.id().expect("running").to_string();
    let sent = tokio::process::Command::new("kill")
        .args(["-INT", &pid])
        .status()
        .await
        .expect("kill runs");
    assert!(sent.success());
    let exited = tokio::time::timeout(WAIT, server.wait())
        .await
        .expect("the example exits on SIGINT")
        .unwrap();
    assert!(exited.success(), "{exited:?}");
}

#[tokio::test]
async fn over_http_meta_wins_over_the_header_which_becomes_a_link() {
    let (endpoint, mut rx) = receiver().await;
    let mut server = tokio::process::Command::new(child::example_path("weather"))
        .args(["--http", "127.0.0.1:0", "--otlp", &endpoint])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    // The example logs the address it bound once it listens: that line is the event waited for.
    let mut log = child::lines(server.stderr.take().unwrap());
    let listening = tokio::time::timeout(WAIT, async {
        while let Some(line) = log.recv().await {
            if line.contains("serving MCP over HTTP") {
                return line
                    .split_whitespace()
                    .find_map(|word| word.strip_prefix("addr="))
                    .map(str::to_owned);
            }
        }
        None
    })
    .await;
    let addr: std::net::SocketAddr = match listening {
        Ok(Some(addr)) => addr.parse().unwrap(),
        other => panic!("the example did not say where it listens: {other:?}"),
    };
    let h1 = Client::new(Proto::H1, addr);
    let h2 = Client::new(Proto::H2, addr);
    let meta_parent = traceparent(META_TRACE, META_SPAN);
    let header_parent = traceparent(HEADER_TRACE, HEADER_SPAN);
    let header = |h: &mut Vec<(String, String)>| {
        h.push(("traceparent".into(), header_parent.clone()));
        h.push(("tracestate".into(), "congo=t61rcWkgMzE".into()));
    };

    // `_meta` alone.
    let r = h1.post(&call(11, json!("Oslo"), Some(&meta_parent))).await;
    assert_eq!(r.status.as_u16(), 200);
    // The header alone, over h2c.
    let r = h2.post_with(&call(12, json!("Lima"), None), header).await;
    assert_eq!(r.status.as_u16(), 200);
    // Both.
    let r = h1
        .post_with(&call(13, json!("Oslo"), Some(&meta_parent)), header)
        .await;
    assert_eq!(r.status.as_u16(), 200);
    // A malformed header, nothing in `_meta`.
    let r = h1
        .post_with(&call(14, json!("Oslo"), None), |h| {
            h.push(("traceparent".into(), MALFORMED.into()));
        })
        .await;
    assert_eq!(
        r.status.as_u16(),
        200,
        "a bad traceparent header is no refusal"
    );
    // A refusal by the transport after decoding: `Mcp-Name` disagrees with the body.
    let r = h1
        .post_with(&call(15, json!("Oslo"), Some(&meta_parent)), |h| {
            crate::support::http::set(h, "Mcp-Name", "not_the_tool");
        })
        .await;
    assert_eq!(r.status.as_u16(), 400);
    let mismatch = r.json();
    assert_eq!(mismatch["error"]["code"], -32020, "{mismatch}");
    interrupt(&mut server).await;
    let spans = received(&mut rx);

    let eleven = request(&spans, "11");
    assert_server_span(eleven, "tools/call");
    assert_eq!(eleven.name, "tools/call get_weather");
    assert_eq!(
        (eleven.trace.as_str(), eleven.parent.as_str()),
        (META_TRACE, META_SPAN)
    );
    assert_eq!(eleven.attr("network.transport"), Some("tcp"));
    assert_eq!(eleven.attr("network.protocol.name"), Some("http"));
    assert_eq!(eleven.attr("network.protocol.version"), Some("1.1"));
    assert_eq!(eleven.attr("mcp.protocol.version"), Some(MODERN));
    assert!(eleven.links.is_empty());
    let dispatch = dispatch_under(&spans, eleven);
    assert_eq!(
        dispatch.len(),
        1,
        "the dispatch span, in the pool, under the request's"
    );
    assert_eq!(dispatch[0].trace, META_TRACE);

    let twelve = request(&spans, "12");
    assert_eq!(
        (twelve.trace.as_str(), twelve.parent.as_str()),
        (HEADER_TRACE, HEADER_SPAN)
    );
    assert_eq!(twelve.attr("network.protocol.version"), Some("2"));
    assert_eq!(dispatch_under(&spans, twelve).len(), 1);

    let thirteen = request(&spans, "13");
    assert_eq!(
        (thirteen.trace.as_str(), thirteen.parent.as_str()),
        (META_TRACE, META_SPAN)
    );
    assert_eq!(
        thirteen.links,
        [(HEADER_TRACE.to_owned(), HEADER_SPAN.to_owned())],
        "the header's context is a link"
    );

    let fourteen = request(&spans, "14");
    assert_eq!(fourteen.parent, "");
    assert_ne!(fourteen.trace, HEADER_TRACE.to_owned());
    assert_eq!(fourteen.attr("error.type"), None);

    let fifteen = request(&spans, "15");
    assert_eq!(fifteen.parent, META_SPAN);
    assert_eq!(fifteen.attr("error.type"), Some("-32020"));
    assert_eq!(fifteen.attr("rpc.response.status_code"), Some("-32020"));
    assert_eq!(fifteen.status, StatusCode::Error as i32);
    assert!(dispatch_under(&spans, fifteen).is_empty());
}
