//! The request span's ends that a subprocess cannot show on cue (feature `otel`), in process,
//! exported by the OpenTelemetry SDK to an exporter that keeps what it is given: host work
//! dropped before it answered is `cancelled`; a call the dispatch pool answers at its deadline
//! carries that refusal's code, with the dispatch span that ran beneath it; a request with no
//! trace context is the child of the span current where it is handled, and a notification
//! has a span of its own without an id. Ordered by what the host reports (`support::gate`),
//! never by sleeping; the subscriber is this thread's (current-thread runtime), so no other
//! test sees it.

use crate::support::gate::{self, Event};
use crate::support::http::{Client, Proto, MODERN};
use beam_mcp::runtime::{Application, ApplicationConfig};
use beam_mcp::transport::http::{AllowedOrigins, HttpService, ServeOptions};
use beam_mcp::{Answer, Carrier, Step};
use opentelemetry::trace::{SpanKind, Status, TracerProvider as _};
use opentelemetry_sdk::trace::{SdkTracerProvider, SpanData, SpanExporter};
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tracing_subscriber::layer::SubscriberExt;

/// An exporter that keeps every span it is given.
#[derive(Debug, Clone, Default)]
struct Kept(Arc<Mutex<Vec<SpanData>>>);

impl SpanExporter for Kept {
    async fn export(&self, batch: Vec<SpanData>) -> opentelemetry_sdk::error::OTelSdkResult {
        self.0.lock().unwrap().extend(batch);
        Ok(())
    }
}

impl Kept {
    /// The spans ended so far (the simple processor exports each as it ends).
    fn spans(&self) -> Vec<SpanData> {
        self.0.lock().unwrap().clone()
    }
}

/// This thread's subscriber: the OpenTelemetry layer over an SDK provider exporting to `kept`.
fn traced(kept: &Kept) -> tracing::subscriber::DefaultGuard {
    let provider = SdkTracerProvider::builder()
        .with_simple_exporter(kept.clone())
        .build();
    let subscriber = tracing_subscriber::registry()
        .with(tracing_opentelemetry::layer().with_tracer(provider.tracer("otel_spans")));
    tracing::subscriber::set_default(subscriber)
}

fn attr(span: &SpanData, key: &str) -> Option<String> {
    span.attributes
        .iter()
        .find(|kv| kv.key.as_str() == key)
        .map(|kv| kv.value.to_string())
}

fn request_span<'a>(spans: &'a [SpanData], id: &str) -> &'a SpanData {
    let found: Vec<_> = spans
        .iter()
        .filter(|s| attr(s, "jsonrpc.request.id").as_deref() == Some(id))
        .collect();
    assert_eq!(found.len(), 1, "one request span for id {id}: {spans:#?}");
    found[0]
}

fn meta() -> Value {
    json!({"io.modelcontextprotocol/protocolVersion": MODERN,
           "io.modelcontextprotocol/clientCapabilities": {}})
}

#[tokio::test]
async fn host_work_dropped_before_it_answered_is_cancelled() {
    let kept = Kept::default();
    let _subscriber = traced(&kept);
    let (server, mut gates) = gate::host();
    let frame = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
        "name": "gate", "arguments": {"tag": "dropped"}, "_meta": meta()}});
    let Step::Pending(work) = server.handle(&serde_json::to_vec(&frame).unwrap(), Carrier::Stdio)
    else {
        panic!("a tool call is host work")
    };
    let running = tokio::spawn(work.run());
    gates.saw(Event::Started("dropped".into())).await;
    running.abort();
    gates.saw(Event::Dropped("dropped".into())).await;
    let _ = running.await;
    let spans = kept.spans();
    let span = request_span(&spans, "7");
    assert_eq!(span.name, "tools/call gate");
    assert_eq!(span.span_kind, SpanKind::Server);
    assert_eq!(attr(span, "error.type").as_deref(), Some("cancelled"));
    assert!(
        matches!(span.status, Status::Error { .. }),
        "{:?}",
        span.status
    );
    assert_eq!(
        attr(span, "rpc.response.status_code"),
        None,
        "nothing was answered"
    );
}

#[tokio::test]
async fn a_call_answered_at_the_pool_deadline_carries_that_refusal() {
    let kept = Kept::default();
    let _subscriber = traced(&kept);
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let (server, mut gates) = gate::host();
    let service = HttpService::new(server.clone(), |_| Ok(()), AllowedOrigins::Any).path("/mcp");
    let config = ApplicationConfig::new()
        .workers(1)
        .deadline(Duration::from_millis(100))
        .http(listener, service, ServeOptions::default());
    let rt = Application::start(server, config).await.unwrap();
    let body = json!({"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": {
        "name": "gate", "arguments": {"tag": "late"}, "_meta": meta()}});
    let answer = Client::new(Proto::H1, addr).post(&body).await.json();
    assert_eq!(answer["error"]["data"]["reason"], "deadline", "{answer}");
    gates.saw(Event::Dropped("late".into())).await;
    rt.stop(Duration::from_secs(5)).await.unwrap();
    let spans = kept.spans();
    let span = request_span(&spans, "8");
    assert_eq!(attr(span, "error.type").as_deref(), Some("-32603"));
    assert_eq!(
        attr(span, "rpc.response.status_code").as_deref(),
        Some("-32603")
    );
    assert_eq!(
        span.status,
        Status::error(answer["error"]["message"].as_str().unwrap().to_owned())
    );
    assert_eq!(
        attr(span, "network.protocol.version").as_deref(),
        Some("1.1")
    );
    // The host ran (and was dropped) in the dispatch span, beneath the request's.
    let dispatch: Vec<_> = spans
        .iter()
        .filter(|s| s.parent_span_id == span.span_context.span_id())
        .collect();
    assert_eq!(dispatch.len(), 1, "{spans:#?}");
    assert_eq!(attr(dispatch[0], "tool").as_deref(), Some("gate"));
}

#[tokio::test]
async fn with_no_trace_context_the_span_is_a_child_of_the_current_one() {
    let kept = Kept::default();
    let _subscriber = traced(&kept);
    let (server, gates) = gate::host();
    gates.release("mine");
    let frame = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {
        "name": "gate", "arguments": {"tag": "mine"}, "_meta": meta()}});
    let host = tracing::info_span!("host.request");
    let answered = tracing::Instrument::instrument(
        server.answer(&serde_json::to_vec(&frame).unwrap(), Carrier::Http),
        host.clone(),
    )
    .await;
    assert!(matches!(answered, Answer::Reply(_)));
    let notification = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let silent = server
        .answer(&serde_json::to_vec(&notification).unwrap(), Carrier::Stdio)
        .await;
    assert!(matches!(silent, Answer::Silent));
    drop(host);
    let spans = kept.spans();
    let outer = spans.iter().find(|s| s.name == "host.request").unwrap();
    let span = request_span(&spans, "9");
    assert_eq!(span.parent_span_id, outer.span_context.span_id());
    assert_eq!(span.span_context.trace_id(), outer.span_context.trace_id());
    assert_eq!(attr(span, "network.transport").as_deref(), Some("tcp"));
    let noted: Vec<_> = spans
        .iter()
        .filter(|s| attr(s, "mcp.method.name").as_deref() == Some("notifications/initialized"))
        .collect();
    assert_eq!(noted.len(), 1, "{spans:#?}");
    assert_eq!(noted[0].name, "notifications/initialized");
    assert_eq!(attr(noted[0], "jsonrpc.request.id"), None);
    assert_eq!(attr(noted[0], "network.transport").as_deref(), Some("pipe"));
}
