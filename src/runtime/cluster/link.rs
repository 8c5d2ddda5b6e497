//! One TCP connection between two nodes, as the node server reads and writes it through the
//! crate's own halves: they note when the peer was last heard, and once the peer is declared
//! silent they fail every read and write, so that `ractor_cluster` ends the session by its own
//! path (every reply port the session holds dropped, the peer's actors out of their groups).
//!
//! `ractor_cluster` 0.16 ends a session only when its socket fails, which a silent network
//! does not do for about fifteen minutes; its pings are never checked for an answer. The crate
//! checks instead: every node casts a beat to each peer at a quarter of the detection bound
//! (`heartbeat.rs`), so a peer that sends no byte for the whole bound is not there.

use ractor_cluster::{BoxRead, BoxWrite, ClusterBidiStream};
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::task::{Context, Poll, Waker};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::TcpStream;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

/// What the crate knows of one connection: when the peer was last heard, whether the session
/// over it became ready, whether it was declared silent, and whether it has closed.
#[derive(Debug)]
pub(super) struct Link {
    id: u64,
    peer: SocketAddr,
    outgoing: bool,
    born: Instant,
    /// Milliseconds from `born` to the last byte read.
    heard: AtomicU64,
    declared: AtomicBool,
    /// The peer's node name, once its session is ready.
    name: OnceLock<String>,
    ready: CancellationToken,
    closed: CancellationToken,
    /// The read and the write half's wakers, woken when the link is declared silent.
    parked: Mutex<[Option<Waker>; 2]>,
}

const READ: usize = 0;
const WRITE: usize = 1;

impl Link {
    pub(super) fn new(id: u64, peer: SocketAddr, outgoing: bool) -> Link {
        Link {
            id,
            peer,
            outgoing,
            born: Instant::now(),
            heard: AtomicU64::new(0),
            declared: AtomicBool::new(false),
            name: OnceLock::new(),
            ready: CancellationToken::new(),
            closed: CancellationToken::new(),
            parked: Mutex::new([None, None]),
        }
    }

    /// The label the node server files the session under: the peer and this link's number,
    /// so two connections to one address are told apart.
    pub(super) fn label(&self) -> String {
        format!("{}#{}", self.peer, self.id)
    }

    /// The link's number in a label made by [`Link::label`].
    pub(super) fn id_in(label: &str) -> Option<u64> {
        label.rsplit_once('#')?.1.parse().ok()
    }

    pub(super) fn id(&self) -> u64 {
        self.id
    }

    pub(super) fn peer(&self) -> SocketAddr {
        self.peer
    }

    pub(super) fn outgoing(&self) -> bool {
        self.outgoing
    }

    pub(super) fn name(&self) -> Option<&str> {
        self.name.get().map(String::as_str)
    }

    /// The peer's node name, learnt from its session (ready or not).
    pub(super) fn set_name(&self, name: String) {
        let _ = self.name.set(name);
    }

    /// The session over this link is ready: `name` is the peer's.
    pub(super) fn set_ready(&self, name: String) {
        self.set_name(name);
        self.ready.cancel();
    }

    pub(super) fn is_ready(&self) -> bool {
        self.ready.is_cancelled()
    }

    pub(super) fn ready(&self) -> &CancellationToken {
        &self.ready
    }

    pub(super) fn closed(&self) -> &CancellationToken {
        &self.closed
    }

    pub(super) fn is_declared(&self) -> bool {
        self.declared.load(Ordering::Acquire)
    }

    /// How long since the peer's last byte (or since the link opened, if none came).
    pub(super) fn silent_for(&self) -> Duration {
        let heard = Duration::from_millis(self.heard.load(Ordering::Relaxed));
        self.born.elapsed().saturating_sub(heard)
    }

    /// Ready, not declared, not closed, and heard within `recent`: a call sent now crosses.
    pub(super) fn is_fresh(&self, recent: Duration) -> bool {
        self.is_ready()
            && !self.is_declared()
            && !self.closed.is_cancelled()
            && self.silent_for() < recent
    }

    fn heard_now(&self) {
        let ms = u64::try_from(self.born.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.heard.store(ms, Ordering::Relaxed);
    }

    /// Declares the peer silent: every read and write on the link fails from now on.
    fn declare(&self) {
        self.declared.store(true, Ordering::Release);
        let parked = std::mem::take(&mut *self.parked.lock().unwrap_or_else(|e| e.into_inner()));
        for waker in parked.into_iter().flatten() {
            waker.wake();
        }
    }

    /// Parks `waker` for the half `which`, then says whether the link is declared. In this
    /// order, a declaration racing a poll still wakes it.
    fn park(&self, which: usize, waker: &Waker) -> bool {
        {
            let mut parked = self.parked.lock().unwrap_or_else(|e| e.into_inner());
            match &mut parked[which] {
                Some(w) if w.will_wake(waker) => {}
                slot => *slot = Some(waker.clone()),
            }
        }
        self.is_declared()
    }
}

/// Sets the socket options that let the kernel give up on a silent peer too: keepalive probes
/// on an idle connection, and `TCP_USER_TIMEOUT` (Linux) on data left unacknowledged. The
/// kernel's bound is half again the crate's, so the crate declares first; the kernel's is the
/// backstop (a read it fails with `ETIMEDOUT` declares the link silent too). Failures are logged, not fatal: the crate's own check
/// does not need them.
pub(super) fn tune(stream: &TcpStream, detect: Duration) {
    let _ = stream.set_nodelay(true);
    let socket = socket2::SockRef::from(stream);
    let idle = (detect / 3).max(Duration::from_secs(1));
    let keepalive = socket2::TcpKeepalive::new()
        .with_time(idle)
        .with_interval(Duration::from_secs(1));
    #[cfg(any(target_os = "linux", target_os = "android"))]
    let keepalive = keepalive.with_retries(3);
    if let Err(e) = socket.set_tcp_keepalive(&keepalive) {
        tracing::warn!(error = %e, "cannot set keepalive on a node socket");
    }
    #[cfg(any(target_os = "linux", target_os = "android"))]
    if let Err(e) = socket.set_tcp_user_timeout(Some(detect + detect / 2)) {
        tracing::warn!(error = %e, "cannot set TCP_USER_TIMEOUT on a node socket");
    }
}

/// Why the watch failed a link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Failed {
    /// The peer sent nothing for the detection bound.
    Silent,
    /// The link carried no ready session within the handshake timeout (a client that never
    /// authenticates, however often it sends a byte).
    NoSession,
}

/// Watches `link` until it closes, and fails it (every read and write, as [`Link::declare`])
/// once the peer has sent nothing for `detect`, or once `handshake` has passed since it opened
/// without a ready session over it. Returns why it failed the link, if it did.
///
/// # Cancel safety
/// Dropping it stops the watch; the link is left as it was.
pub(super) async fn watch(
    link: Arc<Link>,
    detect: Duration,
    handshake: Duration,
) -> Option<Failed> {
    let session_due = link.born + handshake;
    loop {
        let silent_due = Instant::now() + detect.saturating_sub(link.silent_for());
        let due = if link.is_ready() {
            silent_due
        } else {
            silent_due.min(session_due)
        };
        tokio::select! {
            () = link.closed.cancelled() => return None,
            () = tokio::time::sleep_until(due) => {
                let failed = if link.silent_for() >= detect {
                    Failed::Silent
                } else if !link.is_ready() && Instant::now() >= session_due {
                    Failed::NoSession
                } else {
                    continue;
                };
                link.declare();
                return Some(failed);
            }
        }
    }
}

/// A connection handed to the node server: the two halves, each reporting to the link.
pub(super) struct LinkStream {
    pub(super) link: Arc<Link>,
    pub(super) read: OwnedReadHalf,
    pub(super) write: OwnedWriteHalf,
}

impl ClusterBidiStream for LinkStream {
    fn split(self: Box<Self>) -> (BoxRead, BoxWrite) {
        let LinkStream { link, read, write } = *self;
        (
            Box::new(LinkRead {
                link: link.clone(),
                half: read,
            }),
            Box::new(LinkWrite { link, half: write }),
        )
    }

    fn peer_label(&self) -> Option<String> {
        Some(self.link.label())
    }
}

/// The error a declared link's reads and writes fail with.
fn silent() -> io::Error {
    io::Error::new(io::ErrorKind::TimedOut, "the peer node is silent")
}

/// Discards what the socket still holds when it closes (an RST, no orphan retransmitting the
/// calls of a session already given up once the network heals).
fn abort_on_close(stream: &TcpStream) {
    let _ = socket2::SockRef::from(stream).set_linger(Some(Duration::ZERO));
}

struct LinkRead {
    link: Arc<Link>,
    half: OwnedReadHalf,
}

impl AsyncRead for LinkRead {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if this.link.park(READ, cx.waker()) {
            abort_on_close(this.half.as_ref());
            return Poll::Ready(Err(silent()));
        }
        let before = buf.filled().len();
        let polled = Pin::new(&mut this.half).poll_read(cx, buf);
        match &polled {
            Poll::Ready(Ok(())) if buf.filled().len() > before => this.link.heard_now(),
            // The kernel gave up first (TCP_USER_TIMEOUT, keepalive): silent all the same.
            Poll::Ready(Err(e)) if e.kind() == io::ErrorKind::TimedOut => this.link.declare(),
            _ => {}
        }
        polled
    }
}

impl Drop for LinkRead {
    fn drop(&mut self) {
        // The node server's reader is gone: so is the session.
        self.link.closed.cancel();
    }
}

struct LinkWrite {
    link: Arc<Link>,
    half: OwnedWriteHalf,
}

impl LinkWrite {
    fn refused(&mut self, cx: &Context<'_>) -> bool {
        let declared = self.link.park(WRITE, cx.waker());
        if declared {
            abort_on_close(self.half.as_ref());
        }
        declared
    }
}

impl AsyncWrite for LinkWrite {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        if this.refused(cx) {
            return Poll::Ready(Err(silent()));
        }
        Pin::new(&mut this.half).poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if this.refused(cx) {
            return Poll::Ready(Err(silent()));
        }
        Pin::new(&mut this.half).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().half).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DAY: Duration = Duration::from_secs(86_400);

    #[test]
    fn a_label_names_its_link() {
        let link = Link::new(17, "10.0.0.1:7000".parse().unwrap(), true);
        assert_eq!(link.label(), "10.0.0.1:7000#17");
        assert_eq!(Link::id_in(&link.label()), Some(17));
        assert_eq!(Link::id_in("[::1]:80#3"), Some(3));
        assert_eq!(Link::id_in("external"), None);
    }

    #[tokio::test(start_paused = true)]
    async fn a_silent_link_is_declared_after_the_bound_and_a_heard_one_is_not() {
        let link = Arc::new(Link::new(1, "127.0.0.1:1".parse().unwrap(), true));
        let watch = tokio::spawn(watch(link.clone(), Duration::from_secs(3), DAY));
        tokio::time::sleep(Duration::from_millis(2_500)).await;
        link.heard_now();
        tokio::time::sleep(Duration::from_millis(2_500)).await;
        assert!(!link.is_declared(), "heard 2.5 s ago, the bound is 3 s");
        assert_eq!(
            watch.await.unwrap(),
            Some(Failed::Silent),
            "declared once silent for the bound"
        );
        assert!(link.is_declared());
        assert!(link.silent_for() >= Duration::from_secs(3));

        let closed = Arc::new(Link::new(2, "127.0.0.1:1".parse().unwrap(), true));
        let watch = tokio::spawn(super::watch(closed.clone(), Duration::from_secs(3), DAY));
        closed.closed.cancel();
        assert_eq!(watch.await.unwrap(), None, "a closed link is not declared");
    }

    #[tokio::test]
    async fn the_socket_options_take_the_longest_bound() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let stream = TcpStream::connect(listener.local_addr().unwrap())
            .await
            .unwrap();
        let config = crate::runtime::cluster::NodeConfig::new("a", "c")
            .detect(Duration::MAX)
            .reconnect(Duration::MAX);
        let printed = format!("{config:?}");
        assert!(printed.contains("detect: 86400s"), "{printed}");
        assert!(printed.contains("reconnect: 86400s"), "{printed}");
        tune(&stream, Duration::from_secs(86_400));
        let link = Arc::new(Link::new(3, listener.local_addr().unwrap(), true));
        let watch = tokio::spawn(watch(link.clone(), DAY, DAY));
        link.closed.cancel();
        assert_eq!(watch.await.unwrap(), None);
    }
}
