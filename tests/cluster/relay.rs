//! A loopback relay between two nodes that the network tests control: it can hold each new
//! connection's bytes for a while before passing them (a slow handshake), go quiet (pass
//! nothing either way and close nothing, as a partition does to the applications: the kernels
//! keep acknowledging, so only the crate's own check can tell), or cut (close) the connections
//! it carries. Connections made after a `quiet` or a `cut` pass bytes.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

/// What ends the connections of one generation: going quiet, or being cut.
#[derive(Clone, Default)]
struct Generation {
    quiet: CancellationToken,
    cut: CancellationToken,
}

pub(crate) struct Relay {
    pub(crate) addr: SocketAddr,
    current: Arc<Mutex<Generation>>,
    tasks: Arc<Mutex<JoinSet<()>>>,
}

impl Relay {
    /// A relay to `target` passing bytes at once.
    pub(crate) async fn start(target: SocketAddr) -> Relay {
        Relay::delayed(target, Duration::ZERO).await
    }

    /// A relay to `target` that holds each new connection's bytes for `delay` first.
    pub(crate) async fn delayed(target: SocketAddr, delay: Duration) -> Relay {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("relay binds");
        let addr = listener.local_addr().expect("relay address");
        let current = Arc::new(Mutex::new(Generation::default()));
        let tasks = Arc::new(Mutex::new(JoinSet::new()));
        let (c, t) = (current.clone(), tasks.clone());
        tasks.lock().unwrap().spawn(async move {
            while let Ok((inbound, _)) = listener.accept().await {
                let generation = c.lock().unwrap().clone();
                let tasks = t.clone();
                t.lock().unwrap().spawn(async move {
                    let Ok(outbound) = TcpStream::connect(target).await else {
                        return;
                    };
                    tokio::time::sleep(delay).await;
                    let (in_read, in_write) = inbound.into_split();
                    let (out_read, out_write) = outbound.into_split();
                    let mut tasks = tasks.lock().unwrap();
                    tasks.spawn(pass(in_read, out_write, generation.clone()));
                    tasks.spawn(pass(out_read, in_write, generation));
                });
            }
        });
        Relay {
            addr,
            current,
            tasks,
        }
    }

    /// Silences the connections carried now (they stay open and pass nothing, for ever).
    pub(crate) fn quiet(&self) {
        std::mem::take(&mut *self.current.lock().unwrap())
            .quiet
            .cancel();
    }

    /// Closes the connections carried now.
    pub(crate) fn cut(&self) {
        std::mem::take(&mut *self.current.lock().unwrap())
            .cut
            .cancel();
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        self.tasks.lock().unwrap().abort_all();
    }
}

/// Copies `from` to `to` until the generation goes quiet or is cut. Quiet, it reads and drops
/// whatever comes and, even when `from` ends, keeps `to` open (a silent network closes
/// nothing); cut, it drops both (the connection closes).
async fn pass(mut from: OwnedReadHalf, mut to: OwnedWriteHalf, generation: Generation) {
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        let read = tokio::select! {
            biased;
            () = generation.cut.cancelled() => return,
            () = generation.quiet.cancelled() => break,
            read = from.read(&mut buf) => read,
        };
        match read {
            Ok(n) if n > 0 && !generation.quiet.is_cancelled() => {
                if to.write_all(&buf[..n]).await.is_err() {
                    return;
                }
            }
            Ok(n) if n > 0 => break,
            _ => return,
        }
    }
    let drain = async {
        while let Ok(n) = from.read(&mut buf).await {
            if n == 0 {
                break;
            }
        }
        std::future::pending::<()>().await;
    };
    tokio::select! {
        () = generation.cut.cancelled() => {}
        () = drain => {}
    }
    drop(to);
}
