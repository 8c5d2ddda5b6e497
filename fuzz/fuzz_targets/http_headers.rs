//! The HTTP request rules through the public `HttpService::respond`: Host and Origin
//! allow-lists, `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`, `Mcp-Param-*` (plain and
//! `=?base64?…?=` values, repeated headers), media types, Content-Length, and the body.
//!
//! Invariants: nothing panics; every answer's body is empty or JSON; a request without Host
//! is 403; a request from an Origin not on the list (with an allowed Host) is 403; a 200
//! answer carries a JSON-RPC response.
#![no_main]

use base64::Engine as _;
use beam_mcp::transport::http::{AllowedOrigins, HttpService};
use beam_mcp::{
    Catalog, HeaderFaultPolicy, Server, ServerConfig, ToolCall, ToolError, ToolOutput, ToolSpec,
};
use bytes::Bytes;
use http::{HeaderName, HeaderValue, Method, Request};
use http_body_util::{BodyExt, Full};
use libfuzzer_sys::arbitrary::{self, Arbitrary};
use libfuzzer_sys::fuzz_target;
use serde_json::{json, Value};

const ORIGIN: &str = "http://localhost";

#[derive(Arbitrary, Debug)]
enum Name {
    ProtocolVersion,
    Method,
    McpName,
    Param(u8),
    ContentType,
    Accept,
    ContentLength,
    TransferEncoding,
    Raw(String),
}

#[derive(Arbitrary, Debug)]
enum HValue {
    Raw(Vec<u8>),
    Text(String),
    Base64(String),
    Known(u8),
}

#[derive(Arbitrary, Debug)]
enum Body {
    Raw(Vec<u8>),
    Call {
        tool: u8,
        place: Option<String>,
        days: Option<i64>,
        metric: Option<bool>,
        modern: bool,
    },
    List(bool),
}

#[derive(Arbitrary, Debug)]
struct Input {
    post: bool,
    host: Option<HValue>,
    second_host: Option<HValue>,
    origin: Option<HValue>,
    well_behaved: bool,
    headers: Vec<(Name, HValue)>,
    body: Body,
}

const KNOWN: &[&str] = &[
    "2026-07-28",
    "2025-11-25",
    "2025-06-18",
    "tools/call",
    "tools/list",
    "get_weather",
    "strict",
    "Oslo",
    "3",
    "3.0",
    "true",
    "false",
    "application/json",
    "application/json, text/event-stream",
    "text/plain",
    "localhost",
    "127.0.0.1:8080",
    "http://localhost",
    "HTTP://LOCALHOST",
    "http://evil",
    "=?base64?T3Nsbw==?=",
    "=?base64?@@?=",
    "12",
    "999999999",
];

fn value(v: &HValue) -> Option<HeaderValue> {
    match v {
        HValue::Raw(b) => HeaderValue::from_bytes(b).ok(),
        HValue::Text(s) => HeaderValue::from_str(s).ok(),
        HValue::Base64(s) => HeaderValue::from_str(&format!(
            "=?base64?{}?=",
            base64::engine::general_purpose::STANDARD.encode(s)
        ))
        .ok(),
        HValue::Known(i) => HeaderValue::from_str(KNOWN[usize::from(*i) % KNOWN.len()]).ok(),
    }
}

fn name(n: &Name) -> Option<HeaderName> {
    const PARAMS: &[&str] = &["Place", "Days", "Metric", "P", "place", "Other"];
    let s = match n {
        Name::ProtocolVersion => "MCP-Protocol-Version".to_owned(),
        Name::Method => "Mcp-Method".to_owned(),
        Name::McpName => "Mcp-Name".to_owned(),
        Name::Param(i) => format!("Mcp-Param-{}", PARAMS[usize::from(*i) % PARAMS.len()]),
        Name::ContentType => "content-type".to_owned(),
        Name::Accept => "accept".to_owned(),
        Name::ContentLength => "content-length".to_owned(),
        Name::TransferEncoding => "transfer-encoding".to_owned(),
        Name::Raw(s) => s.clone(),
    };
    HeaderName::from_bytes(s.as_bytes()).ok()
}

fn server() -> Server {
    let catalog = Catalog::new()
        .tool(
            ToolSpec::new("get_weather", "Weather.").with_input_schema(json!({
                "type": "object",
                "properties": {
                    "place": {"type": "string", "x-mcp-header": "Place"},
                    "days": {"type": "integer", "x-mcp-header": "Days"},
                    "metric": {"type": "boolean", "x-mcp-header": "Metric"}
                },
                "required": ["place"]
            })),
        )
        .tool(
            ToolSpec::new("strict", "Nothing undeclared.").with_input_schema(json!({
                "type": "object",
                "properties": {"place": {"type": "string"}},
                "additionalProperties": false
            })),
        );
    let config = ServerConfig::new(catalog)
        .header_faults(HeaderFaultPolicy::RefuseCalls)
        .dispatch(|_call: ToolCall| async move { Ok::<_, ToolError>(ToolOutput::text("sunny")) });
    Server::new(config).expect("the fuzz server is valid")
}

thread_local! {
    static RT: tokio::runtime::Runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a runtime");
    static SERVICE: HttpService =
        HttpService::new(server(), |_| Ok(()), AllowedOrigins::list([ORIGIN])).path("/mcp");
}

fn body_json(body: &Body) -> Vec<u8> {
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}
    });
    match body {
        Body::Raw(b) => b.clone(),
        Body::Call {
            tool,
            place,
            days,
            metric,
            modern,
        } => {
            let mut args = serde_json::Map::new();
            if let Some(p) = place {
                args.insert("place".into(), json!(p));
            }
            if let Some(d) = days {
                args.insert("days".into(), json!(d));
            }
            if let Some(m) = metric {
                args.insert("metric".into(), json!(m));
            }
            let name = ["get_weather", "strict", "absent"][usize::from(*tool) % 3];
            let mut params = json!({"name": name, "arguments": args});
            if *modern {
                params["_meta"] = meta;
            }
            serde_json::to_vec(
                &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}),
            )
            .expect("serialises")
        }
        Body::List(modern) => {
            let mut params = json!({});
            if *modern {
                params["_meta"] = meta;
            }
            serde_json::to_vec(
                &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": params}),
            )
            .expect("serialises")
        }
    }
}

fuzz_target!(|input: Input| {
    let mut req = Request::builder()
        .method(if input.post {
            Method::POST
        } else {
            Method::GET
        })
        .uri("/mcp");
    let mut hosts = Vec::new();
    for h in [&input.host, &input.second_host].into_iter().flatten() {
        if let Some(v) = value(h) {
            hosts.push(v.clone());
            req = req.header(http::header::HOST, v);
        }
    }
    let mut origins = Vec::new();
    if let Some(v) = input.origin.as_ref().and_then(value) {
        origins.push(v.clone());
        req = req.header(http::header::ORIGIN, v);
    }
    if input.well_behaved {
        req = req
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream");
    }
    for (n, v) in input.headers.iter().take(16) {
        if let (Some(n), Some(v)) = (name(n), value(v)) {
            if n == http::header::HOST {
                hosts.push(v.clone());
            }
            if n == http::header::ORIGIN {
                origins.push(v.clone());
            }
            req = req.header(n, v);
        }
    }
    let Ok(req) = req.body(Full::new(Bytes::from(body_json(&input.body)))) else {
        return;
    };
    let (status, body) = SERVICE.with(|service| {
        RT.with(|rt| {
            rt.block_on(async {
                let response = service.respond(req).await;
                let status = response.status();
                let body = response
                    .into_body()
                    .collect()
                    .await
                    .expect("a Full body cannot fail")
                    .to_bytes();
                (status, body)
            })
        })
    });
    if !body.is_empty() {
        let v: Value = serde_json::from_slice(&body).expect("every answer body is JSON");
        if status == http::StatusCode::OK {
            assert_eq!(v["jsonrpc"], "2.0", "a 200 answer is JSON-RPC");
        }
    }
    if hosts.is_empty() {
        assert_eq!(status, http::StatusCode::FORBIDDEN, "no Host header");
    }
    let host_ok = !hosts.is_empty()
        && hosts
            .iter()
            .all(|h| matches!(h.to_str(), Ok("localhost" | "127.0.0.1:8080")));
    let origin_bad = origins
        .iter()
        .any(|o| !o.as_bytes().eq_ignore_ascii_case(ORIGIN.as_bytes()));
    if host_ok && origin_bad {
        assert_eq!(
            status,
            http::StatusCode::FORBIDDEN,
            "an Origin not on the list"
        );
    }
});
