//! An HTTP test rig: a real listener on 127.0.0.1, and HTTP/1.1 and h2c clients.

use beam_mcp::catalog::{ReadError, ResourceContents, ResourceSpec};
use beam_mcp::transport::http::{serve, AllowedOrigins, HttpService};
use beam_mcp::{
    Catalog, HeaderFaultPolicy, Server, ServerConfig, ToolCall, ToolError, ToolOutput, ToolSpec,
};
use bytes::Bytes;
use http::{HeaderMap, Request, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper_util::rt::{TokioExecutor, TokioIo};
use serde_json::{json, Value};
use std::net::SocketAddr;
use tokio::net::{TcpListener, TcpStream};

pub(crate) const MODERN: &str = "2026-07-28";
pub(crate) const LEGACY: &str = "2025-11-25";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Proto {
    H1,
    H2,
}

pub(crate) const BOTH: [Proto; 2] = [Proto::H1, Proto::H2];

pub(crate) fn server() -> Server {
    let catalog = Catalog::new()
        .tool(
            ToolSpec::new("get_weather", "Weather.").with_input_schema(json!({
                "type": "object",
                "properties": {
                    "place": {"type": "string", "x-mcp-header": "Place"},
                    "days": {"type": "integer", "x-mcp-header": "Days"},
                    "metric": {"type": "boolean", "x-mcp-header": "Metric"},
                    "note": {"type": "string"}
                },
                "required": ["place"]
            })),
        )
        .tool(
            ToolSpec::new("strict", "Admits nothing undeclared.").with_input_schema(json!({
                "type": "object",
                "properties": {"place": {"type": "string"}},
                "additionalProperties": false
            })),
        )
        .tool(
            ToolSpec::new("broken", "Misconfigured.").with_input_schema(json!({
                "type": "object",
                "properties": {"p": {"type": "object", "x-mcp-header": "P"}}
            })),
        )
        .resource(ResourceSpec::new("weather://places", "places"))
        .reader(|uri: String| async move {
            Ok::<_, ReadError>(vec![ResourceContents::text(uri, "Oslo")])
        });
    let config = ServerConfig::new(catalog)
        .server_name("http-test")
        .instructions("Ask for the weather.")
        .header_faults(HeaderFaultPolicy::RefuseCalls)
        .dispatch(|call: ToolCall| async move {
            let place = call
                .arguments
                .get("place")
                .and_then(Value::as_str)
                .unwrap_or("?");
            Ok::<_, ToolError>(ToolOutput::text(format!("sunny in {place}")))
        });
    Server::new(config).unwrap()
}

pub(crate) fn service() -> HttpService {
    HttpService::new(
        server(),
        |_| Ok(()),
        AllowedOrigins::list(["http://localhost"]),
    )
    .path("/mcp")
}

pub(crate) async fn spawn(service: HttpService) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(serve(listener, service));
    addr
}

pub(crate) fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {}
    })
}

pub(crate) fn rpc(method: &str, mut params: Value) -> Value {
    params["_meta"] = meta();
    json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
}

/// A 2025-11-25 request: no `_meta`, as a 2025-era client writes it.
pub(crate) fn lrpc(method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
}

pub(crate) fn call(args: Value) -> Value {
    rpc(
        "tools/call",
        json!({"name": "get_weather", "arguments": args}),
    )
}

/// The headers a well-behaved client sends for `body`.
pub(crate) fn mcp_headers(body: &Value) -> Vec<(String, String)> {
    let mut h = vec![("MCP-Protocol-Version".into(), MODERN.into())];
    if let Some(m) = body["method"].as_str() {
        h.push(("Mcp-Method".into(), m.into()));
    }
    let p = &body["params"];
    if let Some(n) = p["name"].as_str().or(p["uri"].as_str()) {
        h.push(("Mcp-Name".into(), n.into()));
    }
    h
}

pub(crate) struct Resp {
    pub(crate) status: StatusCode,
    pub(crate) headers: HeaderMap,
    pub(crate) body: Bytes,
}

impl Resp {
    pub(crate) fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("{e}: {:?}", String::from_utf8_lossy(&self.body)))
    }
    pub(crate) fn code(&self) -> i64 {
        let v = self.json();
        v["error"]["code"]
            .as_i64()
            .unwrap_or_else(|| panic!("not an error: {v}"))
    }
    pub(crate) fn closes(&self) -> bool {
        self.headers
            .get("connection")
            .is_some_and(|v| v.as_bytes().eq_ignore_ascii_case(b"close"))
    }
}

pub(crate) struct Client {
    pub(crate) proto: Proto,
    pub(crate) addr: SocketAddr,
}

impl Client {
    pub(crate) fn new(proto: Proto, addr: SocketAddr) -> Self {
        Client { proto, addr }
    }

    /// A request builder for `path` with the right URI form for the protocol.
    pub(crate) fn builder(
        &self,
        method: &str,
        path: &str,
        host: Option<&str>,
    ) -> http::request::Builder {
        let host = host
            .map(str::to_owned)
            .unwrap_or_else(|| self.addr.to_string());
        match self.proto {
            Proto::H1 => Request::builder()
                .method(method)
                .uri(path)
                .header("host", host),
            Proto::H2 => Request::builder()
                .method(method)
                .version(http::Version::HTTP_2)
                .uri(format!("http://{host}{path}")),
        }
    }

    /// POSTs `body` with the well-behaved headers, adjusted by `edit`.
    pub(crate) async fn post_with(
        &self,
        body: &Value,
        edit: impl FnOnce(&mut Vec<(String, String)>),
    ) -> Resp {
        let mut headers = mcp_headers(body);
        headers.push(("content-type".into(), "application/json".into()));
        edit(&mut headers);
        let mut b = self.builder("POST", "/mcp", None);
        for (k, v) in &headers {
            b = b.header(k.as_str(), v.as_str());
        }
        let bytes = serde_json::to_vec(body).unwrap();
        self.send(b.body(Full::new(Bytes::from(bytes))).unwrap())
            .await
    }

    /// POSTs `body` with exactly these headers (plus `content-type`), as a 2025-era client
    /// does: no MCP header unless given.
    pub(crate) async fn post_plain(&self, body: &Value, headers: &[(&str, &str)]) -> Resp {
        let mut b = self
            .builder("POST", "/mcp", None)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream");
        for (k, v) in headers {
            b = b.header(*k, *v);
        }
        let bytes = serde_json::to_vec(body).unwrap();
        self.send(b.body(Full::new(Bytes::from(bytes))).unwrap())
            .await
    }

    pub(crate) async fn post(&self, body: &Value) -> Resp {
        self.post_with(body, |_| {}).await
    }

    pub(crate) async fn send<B>(&self, req: Request<B>) -> Resp
    where
        B: hyper::body::Body + Send + Unpin + 'static,
        B::Data: Send,
        B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    {
        let io = TokioIo::new(TcpStream::connect(self.addr).await.unwrap());
        let resp = match self.proto {
            Proto::H1 => {
                let (mut tx, conn) = hyper::client::conn::http1::handshake(io).await.unwrap();
                tokio::spawn(conn);
                tx.send_request(req).await.unwrap()
            }
            Proto::H2 => {
                let (mut tx, conn) =
                    hyper::client::conn::http2::handshake(TokioExecutor::new(), io)
                        .await
                        .unwrap();
                tokio::spawn(conn);
                tx.send_request(req).await.unwrap()
            }
        };
        let (parts, body) = resp.into_parts();
        let body = body.collect().await.unwrap().to_bytes();
        Resp {
            status: parts.status,
            headers: parts.headers,
            body,
        }
    }
}

/// Sets (replacing) a header in a header list.
pub(crate) fn set(headers: &mut Vec<(String, String)>, name: &str, value: &str) {
    headers.retain(|(k, _)| !k.eq_ignore_ascii_case(name));
    headers.push((name.into(), value.into()));
}

pub(crate) fn remove(headers: &mut Vec<(String, String)>, name: &str) {
    headers.retain(|(k, _)| !k.eq_ignore_ascii_case(name));
}
