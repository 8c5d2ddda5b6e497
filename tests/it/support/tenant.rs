//! Tenants over HTTP, for the per-caller view tests: a bearer token names the tenant, which the
//! service's async authorize hook attaches to the request for the view to read.

use super::http::{mcp_headers, Client, Proto};
use beam_mcp::transport::http::{AllowedOrigins, Forbidden, HttpService};
use beam_mcp::{Extensions, Server};
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper_util::rt::{TokioExecutor, TokioIo};
use serde_json::Value;

/// The tenant a bearer token stands for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Tenant(pub(crate) String);

/// The HTTP status and body of one exchange, or how the exchange failed (the connection
/// closed with no response, say).
pub(crate) async fn exchange(
    proto: Proto,
    addr: std::net::SocketAddr,
    body: &Value,
    tenant: &str,
) -> Result<(u16, Value), String> {
    let c = Client::new(proto, addr);
    let mut b = c.builder("POST", "/mcp", None);
    for (k, v) in mcp_headers(body) {
        b = b.header(k, v);
    }
    let req = b
        .header("content-type", "application/json")
        .header("authorization", format!("Bearer {tenant}"))
        .body(Full::new(Bytes::from(serde_json::to_vec(body).unwrap())))
        .unwrap();
    let io = TokioIo::new(tokio::net::TcpStream::connect(addr).await.unwrap());
    let resp = match proto {
        Proto::H1 => {
            let (mut tx, conn) = hyper::client::conn::http1::handshake(io).await.unwrap();
            tokio::spawn(conn);
            tx.send_request(req).await.map_err(|e| e.to_string())?
        }
        Proto::H2 => {
            let (mut tx, conn) = hyper::client::conn::http2::handshake(TokioExecutor::new(), io)
                .await
                .unwrap();
            tokio::spawn(conn);
            tx.send_request(req).await.map_err(|e| e.to_string())?
        }
    };
    let status = resp.status().as_u16();
    let bytes = resp
        .into_body()
        .collect()
        .await
        .map_err(|e| e.to_string())?
        .to_bytes();
    let v = serde_json::from_slice(&bytes).map_err(|e| format!("{e}: {bytes:?}"))?;
    Ok((status, v))
}

pub(crate) fn tenant_service(server: Server) -> HttpService {
    HttpService::new(
        server,
        |_| Ok(()),
        AllowedOrigins::list(["http://localhost"]),
    )
    .path("/mcp")
    .authorize_async(|head| {
        let tenant = head
            .headers
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .map(|t| Tenant(t.to_owned()));
        async move {
            tenant
                .map(|t| Extensions::new().with(t))
                .ok_or_else(|| Forbidden::new("no bearer"))
        }
    })
}
