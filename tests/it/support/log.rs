//! The server's log captured for one test.

use std::io::Write;
use std::sync::{Arc, Mutex};

/// What the server logs while one test runs, captured by a subscriber of the test's own
/// thread (`set_default`, not a process-wide one: other tests share this process). Each test
/// here runs on a current-thread runtime, so the listener, its connections and the host's work
/// all run on the thread that installed it.
pub(crate) struct Log {
    buf: Arc<Mutex<Vec<u8>>>,
    _installed: tracing::subscriber::DefaultGuard,
}

impl Log {
    /// What is logged at INFO and above.
    pub(crate) fn capture() -> Log {
        Log::capture_at(tracing::Level::INFO)
    }

    /// What is logged at `level` and above, every crate's (hyper's and h2's too).
    pub(crate) fn capture_at(level: tracing::Level) -> Log {
        let buf = Arc::new(Mutex::new(Vec::new()));
        let sink = buf.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_max_level(level)
            .with_ansi(false)
            .with_writer(move || Sink(sink.clone()))
            .finish();
        let installed = tracing::subscriber::set_default(subscriber);
        Log {
            buf,
            _installed: installed,
        }
    }

    pub(crate) fn text(&self) -> String {
        String::from_utf8_lossy(&self.buf.lock().unwrap()).into_owned()
    }
}

struct Sink(Arc<Mutex<Vec<u8>>>);

impl Write for Sink {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
