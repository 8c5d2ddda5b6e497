//! Stateless Streamable HTTP (2026-07-28): one POST endpoint, HTTP/1.1 and h2c on one port.
//!
//! [`HttpService`] is a `hyper` service holding every check: Host and Origin, the caller's
//! `authorize` hooks, the body's bounds (1 MiB, one read deadline), and the MCP headers
//! against the body. [`serve`] is a plain accept loop around it.
//!
//! Status mapping: a refusal of the envelope (malformed JSON, headers that disagree with the
//! body, a malformed or unsupported `_meta`, a client capability the call requires and the
//! request did not declare) is a 4xx with a JSON-RPC error body; an error about the request's
//! content (unknown tool, invalid arguments) is a 200 carrying the JSON-RPC error; a method
//! not served is 404 with -32601; a server fault is 500.

mod body;
mod headers;
mod refusal;
mod service;

pub use refusal::Refusal;
pub use service::{AllowedOrigins, HttpService, DEFAULT_READ_TIMEOUT, MAX_BODY_BYTES};

use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto::Builder;
use std::convert::Infallible;
use std::time::Duration;
use tokio::net::TcpListener;

/// How long a client may take to send a request head (HTTP/1.1; hyper enforces it).
pub const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(15);

/// Accepts connections on `listener` forever, serving each on its own task, HTTP/1.1 or
/// HTTP/2 (prior knowledge) as the client speaks.
///
/// An accept error (out of file descriptors, an aborted handshake) is logged and the loop
/// goes on after a short pause; it never ends the server.
///
/// ```no_run
/// use beam_mcp::transport::http::{serve, AllowedOrigins, HttpService};
/// use beam_mcp::{Catalog, Server, ServerConfig};
///
/// # async fn run() -> std::io::Result<()> {
/// let server = Server::new(ServerConfig::new(Catalog::new())).unwrap();
/// // Trusts every caller that reaches the loopback socket.
/// let service = HttpService::new(server, |_| Ok(()), AllowedOrigins::list(["http://localhost"]));
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:4000").await?;
/// match serve(listener, service).await {}
/// # }
/// ```
pub async fn serve(listener: TcpListener, service: HttpService) -> Infallible {
    let mut builder = Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(HEADER_READ_TIMEOUT);
    builder.http2().timer(TokioTimer::new());
    loop {
        let (stream, peer) = match listener.accept().await {
            Ok(s) => s,
            Err(e) => {
                tracing::warn!(error = %e, "accept failed");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let builder = builder.clone();
        let service = service.clone();
        tokio::spawn(async move {
            let io = TokioIo::new(stream);
            if let Err(e) = builder.serve_connection(io, service).await {
                tracing::debug!(%peer, error = %e, "connection ended with an error");
            }
        });
    }
}
