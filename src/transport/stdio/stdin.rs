//! The process's stdin, owned once for the life of the process.
//!
//! One thread, started on first use, does blocking reads of stdin and turns them into bounded
//! lines, sent in batches (the complete lines of one read) over a small channel. A connection
//! serving stdin holds the channel's receiver for its life ([`lease`]); the next connection
//! takes the same receiver over. A line half read when a connection stops is still in the
//! thread's assembler, and a line the thread had sent but no connection had taken waits in the
//! channel: nothing is read twice or dropped. The thread is never joined: it ends at EOF or a
//! read error, or with the process.

use super::lines::{Assembled, Assembler, Line};
use super::MAX_LINE_BYTES;
use std::collections::VecDeque;
use std::io::{self, Read};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use tokio::sync::{mpsc, Mutex, OwnedMutexGuard};

/// Bytes asked of one read of stdin.
const CHUNK: usize = 16 * 1024;
/// Batches the thread may send ahead of the connection: with one read's lines a batch (and one
/// line at most the line limit), what waits unserved stays within a few MiB.
const BATCHES: usize = 2;

/// One line of stdin, as the thread read it.
enum Item {
    Frame(Vec<u8>),
    TooLong(usize),
    Failed(io::Error),
}

/// The receiving end, handed from connection to connection.
struct Queue {
    rx: mpsc::Receiver<Vec<Item>>,
    /// Lines of a received batch not yet taken.
    pending: VecDeque<Item>,
    /// The line last returned.
    current: Vec<u8>,
    /// While refusing: how many more batches may be taken from the channel.
    fence: usize,
}

struct ProcessStdin {
    queue: Arc<Mutex<Queue>>,
    /// The line limit of the connection that holds the queue, read by the thread.
    max: Arc<AtomicUsize>,
}

static STDIN: OnceLock<ProcessStdin> = OnceLock::new();

fn process_stdin() -> &'static ProcessStdin {
    STDIN.get_or_init(|| {
        let (tx, rx) = mpsc::channel(BATCHES);
        let max = Arc::new(AtomicUsize::new(MAX_LINE_BYTES));
        let mut pending = VecDeque::new();
        let limit = max.clone();
        let started = std::thread::Builder::new()
            .name("beam-mcp-stdin".into())
            .spawn(move || read_stdin(&tx, &limit));
        if let Err(e) = started {
            // No reader: the first connection fails with the reason, the later ones see EOF.
            pending.push_back(Item::Failed(e));
        }
        ProcessStdin {
            queue: Arc::new(Mutex::new(Queue {
                rx,
                pending,
                current: Vec::new(),
                fence: 0,
            })),
            max,
        }
    })
}

/// The thread's loop: read, split, send; blocks while the channel is full.
fn read_stdin(tx: &mpsc::Sender<Vec<Item>>, max: &AtomicUsize) {
    let mut stdin = io::stdin();
    let mut chunk = vec![0u8; CHUNK];
    let mut line = Assembler::default();
    loop {
        let n = match stdin.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => {
                let _ = tx.blocking_send(vec![Item::Failed(e)]);
                return;
            }
        };
        let limit = max.load(Ordering::Relaxed);
        let mut batch = Vec::new();
        let mut rest = &chunk[..n];
        while !rest.is_empty() {
            let (taken, ended) = line.feed(rest, limit);
            rest = &rest[taken..];
            if let Some(ended) = ended {
                batch.push(item(&mut line, ended, limit));
            }
        }
        if !batch.is_empty() && tx.blocking_send(batch).is_err() {
            return;
        }
    }
    let limit = max.load(Ordering::Relaxed);
    if let Some(ended) = line.finish(limit) {
        let _ = tx.blocking_send(vec![item(&mut line, ended, limit)]);
    }
    // Dropping the sender is the EOF every later connection sees.
}

fn item(line: &mut Assembler, ended: Assembled, limit: usize) -> Item {
    match ended {
        Assembled::TooLong => Item::TooLong(limit),
        Assembled::Frame => {
            let frame = line.line().to_vec();
            line.clear();
            Item::Frame(frame)
        }
    }
}

/// Takes the process's stdin over for one connection, waiting while another holds it.
pub(crate) async fn lease(max_line_bytes: usize) -> StdinLease {
    let stdin = process_stdin();
    let mut queue = stdin.queue.clone().lock_owned().await;
    queue.fence = 0;
    stdin.max.store(max_line_bytes, Ordering::Relaxed);
    StdinLease { queue }
}

/// One connection's hold on the process's stdin; dropping it hands stdin to the next.
pub(crate) struct StdinLease {
    queue: OwnedMutexGuard<Queue>,
}

impl StdinLease {
    /// The next line. Cancel safe: a line is taken from the channel only when returned.
    pub(crate) async fn next(&mut self) -> io::Result<Line<'_>> {
        loop {
            if let Some(item) = self.queue.pending.pop_front() {
                return self.give(item);
            }
            match self.queue.rx.recv().await {
                Some(batch) => self.queue.pending.extend(batch),
                None => return Ok(Line::Eof),
            }
        }
    }

    /// From now on [`StdinLease::ready`] yields only the lines read before this call.
    pub(crate) fn fence(&mut self) {
        self.queue.fence = self.queue.rx.len();
    }

    /// The next line already read (before the fence), without waiting.
    pub(crate) fn ready(&mut self) -> Option<io::Result<Line<'_>>> {
        if self.queue.pending.is_empty() && self.queue.fence > 0 {
            self.queue.fence -= 1;
            let batch = self.queue.rx.try_recv().ok()?;
            self.queue.pending.extend(batch);
        }
        let item = self.queue.pending.pop_front()?;
        Some(self.give(item))
    }

    fn give(&mut self, item: Item) -> io::Result<Line<'_>> {
        match item {
            Item::Frame(frame) => {
                self.queue.current = frame;
                Ok(Line::Frame(&self.queue.current))
            }
            Item::TooLong(limit) => Ok(Line::TooLong(limit)),
            Item::Failed(e) => Err(e),
        }
    }
}
