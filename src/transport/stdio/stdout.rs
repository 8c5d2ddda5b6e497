//! The process's stdout, written by a thread of the connection's: blocking writes, each of
//! every reply queued at that moment, so a burst costs one write and no task hand-off.

use crate::server::Reply;
use crate::BoxFuture;
use std::io::{self, Write};
use tokio::sync::{mpsc, oneshot};

/// Past this many bytes gathered, a write goes out without waiting for more replies.
const GATHER: usize = 256 * 1024;

/// Starts the writer thread; the future resolves when it has written every reply sent on
/// `rx` (the channel closed) or failed to write.
pub(crate) fn spawn_writer(rx: mpsc::Receiver<Reply>) -> BoxFuture<io::Result<()>> {
    let (ended, written) = oneshot::channel();
    let started = std::thread::Builder::new()
        .name("beam-mcp-stdout".into())
        .spawn(move || {
            let _ = ended.send(write_stdout(rx));
        });
    match started {
        Ok(_) => Box::pin(async move {
            written
                .await
                .unwrap_or_else(|_| Err(io::Error::other("the stdout writer thread panicked")))
        }),
        // The receiver went with the closure: sends fail, and the connection stops.
        Err(e) => Box::pin(std::future::ready(Err(e))),
    }
}

fn write_stdout(mut rx: mpsc::Receiver<Reply>) -> io::Result<()> {
    let stdout = io::stdout();
    let mut buf = Vec::new();
    while let Some(reply) = rx.blocking_recv() {
        buf.clear();
        buf.extend_from_slice(&super::wire_bytes(reply));
        buf.push(b'\n');
        while buf.len() < GATHER {
            let Ok(reply) = rx.try_recv() else { break };
            buf.extend_from_slice(&super::wire_bytes(reply));
            buf.push(b'\n');
        }
        // Locked per write only: a host that prints to stdout corrupts the stream but does
        // not hang on a lock held for the connection's life.
        let mut out = stdout.lock();
        out.write_all(&buf)?;
        out.flush()?;
    }
    Ok(())
}
