//! Newline-delimited JSON-RPC over stdin/stdout (or any reader and writer).
//!
//! Requests are served concurrently, up to a bound; each response is written whole on its own
//! line. A line longer than the cap is refused with -32600 and the stream goes on. EOF, `exit`
//! or `shutdown` stop the reading; what was already accepted is answered before the function
//! returns. Nothing but protocol frames is written to the writer: logs go through `tracing`.
//!
//! [`serve`] runs host work on the connection's own tasks and puts no clock on it: a tool that
//! never returns holds its request, and so the end of the connection, for ever. A host that
//! needs a per-call deadline (and worker replacement after a panic) serves stdio through the
//! supervised runtime instead (`RuntimeConfig::stdio`), whose dispatch pool bounds each call.

use crate::dispatch::Carrier;
use crate::protocol::{codes, RpcError};
use crate::server::{Reply, Server, Step};
use crate::transport::{Direct, RunPending};
use serde_json::json;
use std::fmt;
use std::future::Future;
use std::io;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::{mpsc, Semaphore};
use tokio::task::JoinSet;

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
/// # Errors
/// A [`StdioError`] when stdin cannot be read or stdout cannot be written.
pub async fn serve_stdio(server: Server) -> Result<(), StdioError> {
    let stdin = tokio::io::BufReader::new(tokio::io::stdin());
    serve(server, stdin, tokio::io::stdout(), StdioOptions::default()).await
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
    serve_on(
        server,
        reader,
        writer,
        options,
        Arc::new(Direct),
        std::future::pending(),
    )
    .await
}

/// [`serve`], with host work run by `exec`, and a `stop` signal: once it resolves, reading
/// stops, the lines already waiting in the reader are refused (-32603, reason
/// `"shutting down"`), the work in flight is answered, and the function returns `Ok`.
pub(crate) async fn serve_on<R, W>(
    server: Server,
    mut reader: R,
    writer: W,
    options: StdioOptions,
    exec: Arc<dyn RunPending>,
    stop: impl Future<Output = ()>,
) -> Result<(), StdioError>
where
    R: AsyncBufRead + Unpin,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let mut stop = std::pin::pin!(stop);
    let mut stopping = false;
    let (tx, rx) = mpsc::channel::<Reply>(options.max_in_flight.max(1));
    let mut writer_task = tokio::spawn(write_loop(writer, rx));
    let mut writer_done = None;
    let permits = Arc::new(Semaphore::new(options.max_in_flight.max(1)));
    let mut in_flight = JoinSet::new();
    let mut line = Vec::with_capacity(4096);
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
            next = read_line(&mut reader, &mut line, options.max_line_bytes) => next,
        };
        match next {
            Ok(Line::Eof) => break,
            Ok(Line::TooLong) => {
                let e = RpcError::new(codes::INVALID_REQUEST, "Invalid request").with_data(json!({
                    "reason": "message exceeds the line limit",
                    "limit": options.max_line_bytes
                }));
                if tx.send(Reply::error(None, &e)).await.is_err() {
                    break;
                }
            }
            Ok(Line::Frame) => {
                let frame = trim(&line);
                if frame.is_empty() {
                    continue;
                }
                match server.handle(frame, Carrier::Stdio) {
                    Step::Reply(r) => {
                        if tx.send(r).await.is_err() {
                            break;
                        }
                    }
                    Step::Silent => {}
                    Step::Pending(p) => {
                        let Ok(permit) = permits.clone().acquire_owned().await else {
                            break;
                        };
                        let tx = tx.clone();
                        let exec = exec.clone();
                        in_flight.spawn(async move {
                            let reply = exec.run(p).await;
                            let _ = tx.send(reply).await;
                            drop(permit);
                        });
                    }
                    Step::Close(r) => {
                        if let Some(r) = r {
                            let _ = tx.send(r).await;
                        }
                        break;
                    }
                }
                // Reap finished tasks so the set does not grow with the connection's age.
                while in_flight.try_join_next().is_some() {}
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
        refuse_waiting(&server, &mut reader, &mut line, options.max_line_bytes, &tx).await;
    }
    if writer_done.is_some() {
        in_flight.abort_all();
    }
    while in_flight.join_next().await.is_some() {}
    drop(tx);
    let written = match writer_done {
        Some(done) => done,
        None => writer_task.await,
    }
    .unwrap_or_else(|e| Err(io::Error::other(e)));
    if let Some(e) = read_error {
        return Err(e);
    }
    written.map_err(|source| StdioError {
        kind: StdioErrorKind::Write,
        source,
    })
}

/// Answers the complete lines the reader already holds without running host work: a
/// connection asked to stop refuses what it has read but not started.
async fn refuse_waiting<R: AsyncBufRead + Unpin>(
    server: &Server,
    reader: &mut R,
    line: &mut Vec<u8>,
    max: usize,
    tx: &mpsc::Sender<Reply>,
) {
    // A zero timeout still polls the read once: only what is ready now is taken.
    while let Ok(Ok(Line::Frame)) =
        tokio::time::timeout(Duration::ZERO, read_line(reader, line, max)).await
    {
        let frame = trim(line);
        if frame.is_empty() {
            continue;
        }
        let reply = match server.handle(frame, Carrier::Stdio) {
            Step::Reply(r) | Step::Close(Some(r)) => r,
            Step::Pending(p) => p.refuse("shutting down"),
            Step::Silent | Step::Close(None) => continue,
        };
        if tx.send(reply).await.is_err() {
            return;
        }
    }
}

fn trim(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    line.trim_ascii()
}

enum Line {
    Frame,
    TooLong,
    Eof,
}

/// Reads one line into `buf` without ever holding more than `max` bytes of it.
async fn read_line<R: AsyncBufRead + Unpin>(
    reader: &mut R,
    buf: &mut Vec<u8>,
    max: usize,
) -> io::Result<Line> {
    buf.clear();
    let mut overflow = false;
    loop {
        let chunk = reader.fill_buf().await?;
        if chunk.is_empty() {
            return Ok(if overflow {
                Line::TooLong
            } else if buf.is_empty() {
                Line::Eof
            } else {
                Line::Frame
            });
        }
        let (take, done) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (chunk.len(), false),
        };
        if !overflow {
            let mut content = if done { take - 1 } else { take };
            if done && content > 0 && chunk[content - 1] == b'\r' {
                content -= 1;
            }
            if buf.len() + content > max {
                overflow = true;
                buf.clear();
            } else {
                buf.extend_from_slice(&chunk[..take]);
            }
        }
        reader.consume(take);
        if done {
            return Ok(if overflow { Line::TooLong } else { Line::Frame });
        }
    }
}

async fn write_loop<W: AsyncWrite + Unpin>(
    mut writer: W,
    mut rx: mpsc::Receiver<Reply>,
) -> io::Result<()> {
    while let Some(reply) = rx.recv().await {
        let mut bytes = reply.into_bytes();
        bytes.push(b'\n');
        writer.write_all(&bytes).await?;
        // Flush only when nothing else is queued, so a burst costs one flush.
        if rx.is_empty() {
            writer.flush().await?;
        }
    }
    writer.flush().await
}
