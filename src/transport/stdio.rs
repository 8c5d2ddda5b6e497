//! Newline-delimited JSON-RPC over stdin/stdout (or any reader and writer).
//!
//! Requests are served concurrently, up to a bound; each response is written whole on its own
//! line. A line longer than the cap is refused with -32600 and the stream goes on. EOF, `exit`
//! or `shutdown` stop the reading; what was already accepted is answered before the function
//! returns. Nothing but protocol frames is written to the writer: logs go through `tracing`.
//!
//! The process's stdin is read by one thread for the life of the process ([`serve_stdio`] and
//! the runtime's `process_stdio` share it): a connection that ends or is restarted hands the
//! lines it has not taken, and a line half read, to the next one. Reading is cancel safe on
//! any reader, so a connection asked to stop loses no partly read line either.
//!
//! A `notifications/cancelled` naming a request in flight on the connection cancels it: its
//! task is aborted, so the host's future is dropped and its `CallContext::cancellation` fires,
//! and nothing is written for it. One naming no request in flight is ignored.
//!
//! [`serve`] runs host work on the connection's own tasks and puts no clock on it: a tool that
//! never returns, and is never cancelled, holds its request, and so the end of the
//! connection, for ever. A host that
//! needs a per-call deadline (and worker replacement after a panic) serves stdio through the
//! supervised runtime instead (`ApplicationConfig::stdio`), whose dispatch pool bounds each call.

use crate::dispatch::Carrier;
use crate::dispatch::Extensions;
use crate::protocol::outcome::Unserved;
use crate::protocol::{codes, RequestId, RpcError};
use crate::server::{Reply, Server, Step};
use crate::transport::{Direct, Done, RunPending};
use crate::BoxFuture;
use lines::{Line, LineReader};
use serde_json::json;
use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::io;
use std::sync::Arc;
use stdin::StdinLease;
use tokio::io::{AsyncBufRead, AsyncWrite, AsyncWriteExt};
use tokio::sync::{mpsc, Semaphore};
use tokio::task::{self, AbortHandle, JoinSet};

mod lines;
mod stdin;
mod stdout;

/// The longest line accepted: 1 MiB, the same cap as an HTTP body.
pub const MAX_LINE_BYTES: usize = 1024 * 1024;

/// The default bound on requests served at once on one connection.
pub const DEFAULT_MAX_IN_FLIGHT: usize = 64;

/// Options for [`serve`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StdioOptions {
    /// Lines longer than this many bytes (excluding the newline) are refused.
    pub max_line_bytes: usize,
    /// At most this many requests run at once; past it, reading waits (nothing is dropped).
    pub max_in_flight: usize,
}

impl Default for StdioOptions {
    fn default() -> Self {
        StdioOptions {
            max_line_bytes: MAX_LINE_BYTES,
            max_in_flight: DEFAULT_MAX_IN_FLIGHT,
        }
    }
}

/// Why a stdio connection ended abnormally.
#[derive(Debug)]
pub struct StdioError {
    kind: StdioErrorKind,
    source: io::Error,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum StdioErrorKind {
    Read,
    Write,
}

impl StdioError {
    /// Reading the input failed.
    pub fn is_read(&self) -> bool {
        self.kind == StdioErrorKind::Read
    }
    /// Writing the output failed (the peer closed its end, say).
    pub fn is_write(&self) -> bool {
        self.kind == StdioErrorKind::Write
    }
}

impl fmt::Display for StdioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            StdioErrorKind::Read => write!(f, "stdio read failed: {}", self.source),
            StdioErrorKind::Write => write!(f, "stdio write failed: {}", self.source),
        }
    }
}

impl std::error::Error for StdioError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
}

/// Serves `server` on the process's stdin and stdout until EOF or `exit`.
///
/// Stdin is read by one thread for the life of the process, shared with the runtime's
/// [`crate::runtime::ApplicationConfig::process_stdio`]: a second call after the first ended (at
/// `exit`, say) goes on with the next line, and nothing the first had read but not taken is
/// lost. Only one connection serves stdin at a time; another call waits for it.
///
/// # Errors
/// A [`StdioError`] when stdin cannot be read or stdout cannot be written.
pub async fn serve_stdio(server: Server) -> Result<(), StdioError> {
    serve_on(
        server,
        Input::<tokio::io::Empty>::Process,
        Output::<tokio::io::Sink>::Process,
        StdioOptions::default(),
        Arc::new(Direct),
        Extensions::new(),
        std::future::pending(),
    )
    .await
}

/// [`serve_stdio`], every request of the connection carrying `extensions` (the identity of
/// the process's caller, say, which a host reads from its own environment): they reach the
/// tool as [`crate::CallContext::extensions`].
///
/// # Errors
/// As [`serve_stdio`].
pub async fn serve_stdio_with(server: Server, extensions: Extensions) -> Result<(), StdioError> {
    serve_on(
        server,
        Input::<tokio::io::Empty>::Process,
        Output::<tokio::io::Sink>::Process,
        StdioOptions::default(),
        Arc::new(Direct),
        extensions,
        std::future::pending(),
    )
    .await
}

/// Serves `server` on any buffered reader and writer, one JSON-RPC message per line.
///
/// # Errors
/// A [`StdioError`] when the reader or the writer fails. Requests already accepted when the
/// reader fails are still answered.
///
/// # Cancel safety
/// Not cancel safe: dropping the future drops requests in flight unanswered.
pub async fn serve<R, W>(
    server: Server,
    reader: R,
    writer: W,
    options: StdioOptions,
) -> Result<(), StdioError>
where
    R: AsyncBufRead + Unpin,
    W: AsyncWrite + Unpin + Send + 'static,
{
    serve_with(server, reader, writer, options, Extensions::new()).await
}

/// [`serve`], every request of the connection carrying `extensions`.
///
/// # Errors
/// As [`serve`].
///
/// # Cancel safety
/// As [`serve`].
pub async fn serve_with<R, W>(
    server: Server,
    reader: R,
    writer: W,
    options: StdioOptions,
    extensions: Extensions,
) -> Result<(), StdioError>
where
    R: AsyncBufRead + Unpin,
    W: AsyncWrite + Unpin + Send + 'static,
{
    serve_on(
        server,
        Input::Stream(reader),
        Output::Stream(writer),
        options,
        Arc::new(Direct),
        extensions,
        std::future::pending(),
    )
    .await
}

/// Where a connection's lines come from.
pub(crate) enum Input<R> {
    /// A reader of the connection's own.
    Stream(R),
    /// The process's stdin, taken over from the connection before (see `stdin.rs`).
    Process,
}

/// Where a connection's replies go.
pub(crate) enum Output<W> {
    /// A writer of the connection's own, written by a task.
    Stream(W),
    /// The process's stdout, written by a thread (see `stdout.rs`).
    Process,
}

/// An opened [`Input`].
enum Source<R> {
    Stream(LineReader<R>),
    Process(StdinLease),
}

impl<R: AsyncBufRead + Unpin> Source<R> {
    /// The next line. Cancel safe: a partly read line stays with the source.
    async fn next(&mut self, max: usize) -> io::Result<Line<'_>> {
        match self {
            Source::Stream(r) => r.next(max).await,
            Source::Process(s) => s.next().await,
        }
    }

    /// Lines already read, without waiting: on stdin, only those read before this call.
    fn fence(&mut self) {
        if let Source::Process(s) = self {
            s.fence();
        }
    }

    fn ready(&mut self, max: usize) -> Option<io::Result<Line<'_>>> {
        match self {
            Source::Stream(r) => r.ready(max),
            Source::Process(s) => s.ready(),
        }
    }
}

/// [`serve`], with host work run by `exec`, and a `stop` signal: once it resolves, reading
/// stops, the lines already read and not started are refused (-32603, reason
/// `"shutting down"`), the work in flight is answered, and the function returns `Ok`.
pub(crate) async fn serve_on<R, W>(
    server: Server,
    input: Input<R>,
    output: Output<W>,
    options: StdioOptions,
    exec: Arc<dyn RunPending>,
    extensions: Extensions,
    stop: impl Future<Output = ()>,
) -> Result<(), StdioError>
where
    R: AsyncBufRead + Unpin,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let mut stop = std::pin::pin!(stop);
    let max = options.max_line_bytes;
    let mut lines = match input {
        Input::Stream(reader) => Source::Stream(LineReader::new(reader)),
        // Stopped while waiting for the connection before to hand stdin over: nothing read.
        Input::Process => tokio::select! {
            biased;
            () = &mut stop => return Ok(()),
            lease = stdin::lease(max) => Source::Process(lease),
        },
    };
    let mut stopping = false;
    // Room for a reply from every request in flight (each reserves its slot when it starts)
    // and as many answered by the core.
    let in_flight_cap = options.max_in_flight.max(1);
    let (tx, rx) = mpsc::channel::<Reply>(in_flight_cap.saturating_mul(2));
    let mut writer_task: BoxFuture<io::Result<()>> = match output {
        Output::Stream(writer) => {
            let task = tokio::spawn(write_loop(writer, rx));
            Box::pin(async move { task.await.unwrap_or_else(|e| Err(io::Error::other(e))) })
        }
        Output::Process => stdout::spawn_writer(rx),
    };
    let mut writer_done = None;
    let permits = Arc::new(Semaphore::new(in_flight_cap));
    let mut in_flight = InFlight::default();
    let mut read_error = None;

    loop {
        let next = tokio::select! {
            biased;
            done = &mut writer_task => {
                // The writer only ends early when the output is gone: stop reading at once.
                writer_done = Some(done);
                break;
            }
            () = &mut stop => {
                stopping = true;
                break;
            }
            next = lines.next(max) => next,
        };
        match next {
            Ok(Line::Eof) => break,
            Ok(Line::TooLong(limit)) => {
                if tx.send(too_long(limit)).await.is_err() {
                    break;
                }
            }
            Ok(Line::Frame(line)) => {
                let frame = trim(line);
                if frame.is_empty() {
                    continue;
                }
                match server.handle_with(frame, Carrier::Stdio, extensions.clone()) {
                    Step::Reply(r) => {
                        if tx.send(r).await.is_err() {
                            break;
                        }
                    }
                    Step::Silent => {}
                    Step::Cancel(id) => in_flight.cancel(&id),
                    Step::Pending(p) => {
                        let Ok(permit) = permits.clone().acquire_owned().await else {
                            break;
                        };
                        // The reply's place in the writer's queue, taken now: whoever ends
                        // the work (the pool's worker, or a task here) hands it straight on.
                        let Ok(slot) = tx.clone().reserve_owned().await else {
                            break;
                        };
                        let done: Done = Box::new(move |reply| {
                            slot.send(reply);
                            drop(permit);
                        });
                        let id = p.id().clone();
                        if let Some(work) = exec.start(p, done) {
                            in_flight.spawn(id, work);
                        }
                    }
                    Step::Close(r) => {
                        if let Some(r) = r {
                            let _ = tx.send(r).await;
                        }
                        break;
                    }
                }
                // Reap finished tasks so the set does not grow with the connection's age.
                in_flight.reap();
            }
            Err(e) => {
                read_error = Some(StdioError {
                    kind: StdioErrorKind::Read,
                    source: e,
                });
                break;
            }
        }
    }
    if stopping {
        refuse_waiting(&server, &mut lines, max, &tx, &extensions).await;
    }
    // The source (stdin's lease) is handed on only once what it gave is answered or refused.
    if writer_done.is_some() {
        in_flight.tasks.abort_all();
    }
    while in_flight.tasks.join_next().await.is_some() {}
    // The writer ends once every reply is written: work handed off holds its slot, and so
    // the channel open, until it is answered.
    drop(tx);
    let written = match writer_done {
        Some(done) => done,
        None => writer_task.await,
    };
    drop(lines);
    if let Some(e) = read_error {
        return Err(e);
    }
    written.map_err(|source| StdioError {
        kind: StdioErrorKind::Write,
        source,
    })
}

/// The requests of a connection whose host work runs, by id, so that a
/// `notifications/cancelled` can reach them.
#[derive(Default)]
struct InFlight {
    tasks: JoinSet<()>,
    by_request: HashMap<RequestId, AbortHandle>,
    by_task: HashMap<task::Id, RequestId>,
}

impl InFlight {
    fn spawn(&mut self, id: RequestId, work: BoxFuture<()>) {
        let handle = self.tasks.spawn(work);
        self.by_task.insert(handle.id(), id.clone());
        // A client that reuses an id still in flight can cancel only the latest request
        // with it: ids name one request in flight, the specifications say.
        self.by_request.insert(id, handle);
    }

    /// Cancels the request with `id`, if its work still runs: its task is aborted, so its
    /// host future is dropped (the call's token fires) and its reply, never sent, gives its
    /// place in the writer's queue back. An unknown or answered id is ignored.
    fn cancel(&mut self, id: &RequestId) {
        if let Some(handle) = self.by_request.remove(id) {
            handle.abort();
        }
    }

    /// Forgets the tasks that have ended.
    fn reap(&mut self) {
        while let Some(ended) = self.tasks.try_join_next_with_id() {
            let task = match ended {
                Ok((task, ())) => task,
                Err(e) => e.id(),
            };
            if let Some(id) = self.by_task.remove(&task) {
                if self.by_request.get(&id).is_some_and(|h| h.id() == task) {
                    self.by_request.remove(&id);
                }
            }
        }
    }
}

fn too_long(limit: usize) -> Reply {
    let e = RpcError::new(codes::INVALID_REQUEST, "Invalid request").with_data(json!({
        "reason": "message exceeds the line limit",
        "limit": limit
    }));
    Reply::error(None, e)
}

/// Answers the lines already read without running host work: a connection asked to stop
/// refuses what it has read but not started. On stdin, "read" means read before the stop:
/// what the reader thread reads after it is left to the next connection.
async fn refuse_waiting<R: AsyncBufRead + Unpin>(
    server: &Server,
    lines: &mut Source<R>,
    max: usize,
    tx: &mpsc::Sender<Reply>,
    extensions: &Extensions,
) {
    lines.fence();
    while let Some(Ok(line)) = lines.ready(max) {
        let reply = match line {
            Line::Eof => return,
            Line::TooLong(limit) => too_long(limit),
            Line::Frame(line) => {
                let frame = trim(line);
                if frame.is_empty() {
                    continue;
                }
                match server.handle_with(frame, Carrier::Stdio, extensions.clone()) {
                    Step::Reply(r) | Step::Close(Some(r)) => r,
                    Step::Pending(p) => p.unserved(Unserved::ShuttingDown),
                    Step::Silent | Step::Cancel(_) | Step::Close(None) => continue,
                }
            }
        };
        if tx.send(reply).await.is_err() {
            return;
        }
    }
}

fn trim(line: &[u8]) -> &[u8] {
    line.trim_ascii()
}

/// A reply's bytes as they go out, its refusal (if it is one) counted.
fn wire_bytes(reply: Reply) -> Vec<u8> {
    if let Some(code) = reply.error_code() {
        crate::metrics::refusal(code, None, Carrier::Stdio);
    }
    reply.into_bytes()
}

async fn write_loop<W: AsyncWrite + Unpin>(
    mut writer: W,
    mut rx: mpsc::Receiver<Reply>,
) -> io::Result<()> {
    while let Some(reply) = rx.recv().await {
        let mut bytes = wire_bytes(reply);
        bytes.push(b'\n');
        writer.write_all(&bytes).await?;
        // Flush only when nothing else is queued, so a burst costs one flush.
        if rx.is_empty() {
            writer.flush().await?;
        }
    }
    writer.flush().await
}
