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

use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto::Builder;
use std::convert::Infallible;
use std::future::Future;
use std::pin::{pin, Pin};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::net::{TcpListener, TcpStream};
use tokio::time::Instant;

/// How long a client may take to send a request head (HTTP/1.1; hyper enforces it), and the
/// first byte of a new connection (both protocols).
pub const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(15);

/// How long a connection may sit with no request in flight before it is closed gracefully
/// (HTTP/1.1 keep-alive and HTTP/2 alike).
pub const IDLE_TIMEOUT: Duration = Duration::from_secs(60);

/// Connection-level bounds of [`serve_with`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ServeOptions {
    /// The deadline for a new connection's first byte and for an HTTP/1.1 request head.
    pub header_read_timeout: Duration,
    /// How long a connection may be idle (no request in flight) before it is closed.
    pub idle_timeout: Duration,
}

impl Default for ServeOptions {
    fn default() -> Self {
        ServeOptions {
            header_read_timeout: HEADER_READ_TIMEOUT,
            idle_timeout: IDLE_TIMEOUT,
        }
    }
}

/// Accepts connections on `listener` forever, serving each on its own task, HTTP/1.1 or
/// HTTP/2 (prior knowledge) as the client speaks, with the default [`ServeOptions`].
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
    serve_with(listener, service, ServeOptions::default()).await
}

/// [`serve`] with explicit connection bounds.
pub async fn serve_with(
    listener: TcpListener,
    service: HttpService,
    options: ServeOptions,
) -> Infallible {
    let builder = connection_builder(options);
    loop {
        let (stream, peer) = accept(&listener).await;
        tokio::spawn(connection(
            builder.clone(),
            stream,
            service.clone(),
            options,
            peer,
            std::future::pending(),
        ));
    }
}

/// The next connection. An accept error (out of file descriptors, an aborted handshake) is
/// logged and retried after a short pause; it never ends the listener.
pub(crate) async fn accept(listener: &TcpListener) -> (TcpStream, std::net::SocketAddr) {
    loop {
        match listener.accept().await {
            Ok(s) => return s,
            Err(e) => {
                tracing::warn!(error = %e, "accept failed");
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    }
}

pub(crate) fn connection_builder(options: ServeOptions) -> Builder<TokioExecutor> {
    let mut builder = Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(options.header_read_timeout)
        // hyper's read buffer may grow to ~400 KiB per connection beside the body being
        // gathered; 64 KiB keeps a cap-sized request near its 1 MiB.
        .max_buf_size(64 * 1024);
    builder.http2().timer(TokioTimer::new());
    builder
}

/// One connection: a deadline for its first byte, then served until it ends or stays idle
/// past the idle timeout.
pub(crate) async fn connection(
    builder: Builder<TokioExecutor>,
    stream: TcpStream,
    service: HttpService,
    options: ServeOptions,
    peer: std::net::SocketAddr,
    stop: impl Future<Output = ()>,
) {
    // hyper-util reads the first bytes to tell HTTP/1.1 from HTTP/2 with no clock of its own:
    // a connection that never speaks would be held for ever.
    let mut first = [0u8; 1];
    match tokio::time::timeout(options.header_read_timeout, stream.peek(&mut first)).await {
        Ok(Ok(n)) if n > 0 => {}
        _ => return,
    }
    let activity = Arc::new(Activity::new());
    let tracked = Tracked {
        service,
        activity: activity.clone(),
    };
    let mut conn = pin!(builder.serve_connection(TokioIo::new(stream), tracked));
    // A graceful close (idle, or `stop`) lets the requests in flight finish. A peer that does
    // not finish the close (an HTTP/2 client that never answers the GOAWAY's PING) is dropped
    // once the connection has been idle for the timeout again.
    let mut closing: Option<Instant> = None;
    let mut stop = pin!(stop);
    let tick = (options.idle_timeout / 4).max(Duration::from_millis(10));
    loop {
        tokio::select! {
            ended = conn.as_mut() => {
                if let Err(e) = ended {
                    tracing::debug!(%peer, error = %e, "connection ended with an error");
                }
                return;
            }
            () = &mut stop, if closing.is_none() => {
                closing = Some(Instant::now());
                conn.as_mut().graceful_shutdown();
            }
            _ = tokio::time::sleep(tick) => match closing {
                Some(since)
                    if since.elapsed() >= options.idle_timeout
                        && activity.idle_for() >= options.idle_timeout =>
                {
                    return
                }
                Some(_) => {}
                None if activity.idle_for() >= options.idle_timeout => {
                    closing = Some(Instant::now());
                    conn.as_mut().graceful_shutdown();
                }
                None => {}
            },
        }
    }
}

/// Requests in flight on one connection, and when the last one ended.
struct Activity {
    origin: Instant,
    in_flight: AtomicUsize,
    last_ms: AtomicU64,
}

impl Activity {
    fn new() -> Self {
        Activity {
            origin: Instant::now(),
            in_flight: AtomicUsize::new(0),
            last_ms: AtomicU64::new(0),
        }
    }

    fn idle_for(&self) -> Duration {
        if self.in_flight.load(Ordering::Acquire) > 0 {
            return Duration::ZERO;
        }
        let last = Duration::from_millis(self.last_ms.load(Ordering::Acquire));
        self.origin.elapsed().saturating_sub(last)
    }
}

struct InFlight(Arc<Activity>);

impl Drop for InFlight {
    fn drop(&mut self) {
        let a = &self.0;
        a.last_ms
            .store(a.origin.elapsed().as_millis() as u64, Ordering::Release);
        a.in_flight.fetch_sub(1, Ordering::AcqRel);
    }
}

/// The service with its requests counted, so the connection knows when it is idle.
#[derive(Clone)]
struct Tracked {
    service: HttpService,
    activity: Arc<Activity>,
}

impl hyper::service::Service<http::Request<Incoming>> for Tracked {
    type Response = http::Response<http_body_util::Full<bytes::Bytes>>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Infallible>> + Send>>;

    fn call(&self, req: http::Request<Incoming>) -> Self::Future {
        self.activity.in_flight.fetch_add(1, Ordering::AcqRel);
        let guard = InFlight(self.activity.clone());
        let service = self.service.clone();
        Box::pin(async move {
            let response = service.respond(req).await;
            drop(guard);
            Ok(response)
        })
    }
}
