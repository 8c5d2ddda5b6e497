//! Stateless Streamable HTTP (2026-07-28 and 2025-11-25): one POST endpoint, HTTP/1.1 and h2c
//! on one port.
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
pub mod oauth;
mod rejection;
mod service;

pub use rejection::Forbidden;
pub use service::{
    AllowedOrigins, Cors, HttpService, DEFAULT_PREFLIGHT_MAX_AGE, DEFAULT_READ_TIMEOUT,
    MAX_BODY_BYTES,
};

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
/// (HTTP/2, and HTTP/1.1 keep-alive where hyper's head deadline does not close it first).
pub const IDLE_TIMEOUT: Duration = Duration::from_secs(60);

/// How long an answer may wait for its reader without a byte of progress before the
/// connection is dropped (an HTTP/2 peer that keeps its window at zero, a reader that stops).
pub const WRITE_TIMEOUT: Duration = Duration::from_secs(15);

/// The most HTTP/2 streams one connection may have open at once.
pub const MAX_CONCURRENT_STREAMS: u32 = 200;

/// An answer is handed to the protocol in pieces of at most this size, so that what a stalled
/// reader makes the protocol buffer stays one piece per stream.
const ANSWER_CHUNK: usize = 16 * 1024;

/// After a graceful close, how long a connection with nothing in flight is given to finish it.
const CLOSE_GRACE: Duration = Duration::from_secs(1);

/// Connection-level bounds of [`serve_with`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ServeOptions {
    /// The deadline for a new connection's first byte, for an HTTP/1.1 request head, and for
    /// the first request of a connection (an HTTP/2 preface that stops part-way included).
    pub header_read_timeout: Duration,
    /// How long a connection may be idle (no request in flight) before it is closed.
    pub idle_timeout: Duration,
    /// How long an unsent answer may make no progress before its connection is dropped.
    pub write_timeout: Duration,
}

impl Default for ServeOptions {
    fn default() -> Self {
        ServeOptions {
            header_read_timeout: HEADER_READ_TIMEOUT,
            idle_timeout: IDLE_TIMEOUT,
            write_timeout: WRITE_TIMEOUT,
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
            Ok((stream, peer)) => {
                // An answer is written whole; Nagle's wait for an ACK would only delay it
                // (up to the peer's delayed-ACK timer when it leaves in two segments).
                if let Err(e) = stream.set_nodelay(true) {
                    tracing::debug!(%peer, error = %e, "TCP_NODELAY not set");
                }
                return (stream, peer);
            }
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
    builder
        .http2()
        .timer(TokioTimer::new())
        .max_concurrent_streams(MAX_CONCURRENT_STREAMS);
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
    crate::metrics::http_connections(1.0);
    let _open = OpenConnection;
    let activity = Arc::new(Activity::default());
    let mut watch = Watch::new(Instant::now());
    let tracked = Tracked {
        service: Arc::new(service),
        activity: activity.clone(),
    };
    let mut conn = pin!(builder.serve_connection(TokioIo::new(stream), tracked));
    // A graceful close (idle, or `stop`) lets the requests in flight finish.
    let mut closing: Option<Instant> = None;
    let mut stop = pin!(stop);
    let tick = (options
        .header_read_timeout
        .min(options.idle_timeout)
        .min(options.write_timeout)
        / 8)
    .clamp(Duration::from_millis(10), Duration::from_secs(1));
    // One timer for the connection's life: a sleep made afresh on every wake-up of the loop
    // would register and cancel a timer per request.
    let mut ticks = tokio::time::interval_at(Instant::now() + tick, tick);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
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
            _ = ticks.tick() => {
                let now = Instant::now();
                watch.look(&activity, now);
                // Dropping the connection frees every answer it holds.
                if watch.stalled_for(now) >= options.write_timeout {
                    tracing::debug!(%peer, "an answer made no progress: connection dropped");
                    return;
                }
                // hyper bounds an HTTP/1.1 head, not an HTTP/2 preface that stops part-way
                // or a connection that never asks: it is told goodbye, then dropped.
                if closing.is_none()
                    && !activity.ever_asked()
                    && now - watch.origin >= options.header_read_timeout
                {
                    tracing::debug!(%peer, "no request within the deadline: closing");
                    closing = Some(now);
                    conn.as_mut().graceful_shutdown();
                    continue;
                }
                match closing {
                    // Nothing left to finish: the peer has had its GOAWAY.
                    Some(since) if activity.in_flight() == 0 && now - since >= CLOSE_GRACE => {
                        return
                    }
                    Some(since)
                        if now - since >= options.idle_timeout
                            && watch.idle_for(now) >= options.idle_timeout =>
                    {
                        return
                    }
                    Some(_) => {}
                    None if watch.idle_for(now) >= options.idle_timeout => {
                        closing = Some(now);
                        conn.as_mut().graceful_shutdown();
                    }
                    None => {}
                }
            }
        }
    }
}

/// Counts a served connection out of `mcp_http_connections_open` however it ends.
struct OpenConnection;

impl Drop for OpenConnection {
    fn drop(&mut self) {
        crate::metrics::http_connections(-1.0);
    }
}

/// One connection's requests and answers: what is in flight, how many have ended, and
/// whether the answers waiting for their reader are moving.
///
/// It counts and reads no clock: the connection's ticker ([`Watch`]) turns the counts into
/// durations, to its own tick's precision. A request would otherwise read the clock four times
/// over for a stall or an idle spell that is looked at only on a tick.
#[derive(Default)]
struct Activity {
    /// Requests being served, or whose answer is not yet handed over in full.
    in_flight: AtomicUsize,
    /// Requests ever received.
    asked: AtomicU64,
    /// Requests ended (their answer handed over in full, or dropped).
    ended: AtomicU64,
    /// Answers not yet handed over in full.
    unsent: AtomicUsize,
    /// Times an answer moved (created, or a piece handed over).
    moves: AtomicU64,
}

impl Activity {
    fn ever_asked(&self) -> bool {
        self.asked.load(Ordering::Acquire) > 0
    }

    fn in_flight(&self) -> usize {
        self.in_flight.load(Ordering::Acquire)
    }

    fn moved(&self) {
        self.moves.fetch_add(1, Ordering::Release);
    }
}

/// The ticker's view of a connection's [`Activity`]: since when nothing has been in flight, and
/// since when the answers waiting have not moved. Each is known to a tick: what happened
/// between two ticks is dated to the later one, so an idle or stall deadline fires at most one
/// tick late, never early.
struct Watch {
    origin: Instant,
    /// Counts ended requests while nothing is in flight.
    idle: Unchanged,
    /// Counts answer moves while an answer waits.
    stalled: Unchanged,
}

/// Since when a count has stood still while a condition held, as seen at each look.
struct Unchanged {
    count: u64,
    since: Option<Instant>,
}

impl Unchanged {
    fn look(&mut self, holds: bool, count: u64, now: Instant) {
        if !holds {
            self.since = None;
        } else if self.since.is_none() || count != self.count {
            self.since = Some(now);
        }
        self.count = count;
    }

    fn lasted(&self, now: Instant) -> Duration {
        self.since.map_or(Duration::ZERO, |t| now - t)
    }
}

impl Watch {
    fn new(origin: Instant) -> Watch {
        Watch {
            origin,
            idle: Unchanged {
                count: 0,
                since: Some(origin),
            },
            stalled: Unchanged {
                count: 0,
                since: None,
            },
        }
    }

    /// Takes in what changed since the last look.
    fn look(&mut self, a: &Activity, now: Instant) {
        let ended = a.ended.load(Ordering::Acquire);
        self.idle.look(a.in_flight() == 0, ended, now);
        let waiting = a.unsent.load(Ordering::Acquire) > 0;
        self.stalled
            .look(waiting, a.moves.load(Ordering::Acquire), now);
    }

    fn idle_for(&self, now: Instant) -> Duration {
        self.idle.lasted(now)
    }

    /// How long answers have been waiting with no progress (zero when none waits).
    fn stalled_for(&self, now: Instant) -> Duration {
        self.stalled.lasted(now)
    }
}

struct InFlight(Arc<Activity>);

impl Drop for InFlight {
    fn drop(&mut self) {
        let a = &self.0;
        a.ended.fetch_add(1, Ordering::Release);
        a.in_flight.fetch_sub(1, Ordering::AcqRel);
    }
}

/// An answer on its way to the reader, handed over in pieces of [`ANSWER_CHUNK`]; while it
/// lives its request counts as in flight and its connection's write clock runs.
struct Answer {
    inner: http_body_util::Full<bytes::Bytes>,
    rest: bytes::Bytes,
    activity: Arc<Activity>,
    /// Dropped with the answer: the request is over.
    guard: Option<InFlight>,
}

impl Answer {
    fn new(inner: http_body_util::Full<bytes::Bytes>, guard: InFlight) -> Self {
        let activity = guard.0.clone();
        activity.unsent.fetch_add(1, Ordering::AcqRel);
        activity.moved();
        Answer {
            inner,
            rest: bytes::Bytes::new(),
            activity,
            guard: Some(guard),
        }
    }

    fn finish(&mut self) {
        if self.guard.take().is_some() {
            self.activity.unsent.fetch_sub(1, Ordering::AcqRel);
            self.activity.moved();
        }
    }
}

impl Drop for Answer {
    fn drop(&mut self) {
        self.finish();
    }
}

impl hyper::body::Body for Answer {
    type Data = bytes::Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<hyper::body::Frame<bytes::Bytes>, Infallible>>> {
        use std::task::Poll;
        let this = &mut *self;
        if this.rest.is_empty() {
            match Pin::new(&mut this.inner).poll_frame(cx) {
                Poll::Ready(Some(Ok(frame))) => match frame.into_data() {
                    Ok(data) => this.rest = data,
                    Err(frame) => return Poll::Ready(Some(Ok(frame))),
                },
                Poll::Ready(Some(Err(never))) => match never {},
                Poll::Ready(None) => {
                    this.finish();
                    return Poll::Ready(None);
                }
                Poll::Pending => return Poll::Pending,
            }
        }
        let n = this.rest.len().min(ANSWER_CHUNK);
        let piece = this.rest.split_to(n);
        this.activity.moved();
        Poll::Ready(Some(Ok(hyper::body::Frame::data(piece))))
    }

    fn is_end_stream(&self) -> bool {
        self.rest.is_empty() && self.inner.is_end_stream()
    }

    fn size_hint(&self) -> hyper::body::SizeHint {
        let inner = self.inner.size_hint();
        let extra = self.rest.len() as u64;
        let mut hint = hyper::body::SizeHint::new();
        hint.set_lower(inner.lower() + extra);
        if let Some(upper) = inner.upper() {
            hint.set_upper(upper + extra);
        }
        hint
    }
}

/// The service with its requests counted, so the connection knows when it is idle.
///
/// The service sits behind an `Arc` of the connection's own: each request clones that one,
/// which no other connection touches, instead of the endpoint's shared configuration.
#[derive(Clone)]
struct Tracked {
    service: Arc<HttpService>,
    activity: Arc<Activity>,
}

impl hyper::service::Service<http::Request<Incoming>> for Tracked {
    type Response = http::Response<Answer>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Infallible>> + Send>>;

    fn call(&self, req: http::Request<Incoming>) -> Self::Future {
        self.activity.in_flight.fetch_add(1, Ordering::AcqRel);
        self.activity.asked.fetch_add(1, Ordering::AcqRel);
        let guard = InFlight(self.activity.clone());
        let service = self.service.clone();
        Box::pin(async move {
            let response = service.respond(req).await;
            Ok(response.map(|body| Answer::new(body, guard)))
        })
    }
}
