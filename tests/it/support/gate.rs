//! A host the test controls: its tools say when they start, end, are dropped and see their
//! cancellation token fire, and run until the test releases them, so a test orders events by
//! what happened, not by sleeping. The host also counts how many of its calls run at once and
//! remembers the most it ever saw.
//!
//! - `gate {tag}`: awaits its release (an async host).
//! - `hold {tag}`: blocks its thread until released (a host that blocks).
//! - `boom`: panics. `fail`: a tool error. `echo {tag}`: answers its tag at once.

use beam_mcp::ToolSpec;
use beam_mcp::{CallContext, Catalog, Server, ServerConfig, ToolCall, ToolError, ToolOutput};
use serde_json::json;
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};

/// What the host saw, in the order it saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Event {
    Started(String),
    /// The host returned (after its release).
    Ended(String),
    /// The host's future was dropped before it returned.
    Dropped(String),
    /// The call's cancellation token fired.
    TokenFired(String),
}

enum Release {
    Async(oneshot::Sender<()>),
    Blocking(std::sync::mpsc::Sender<()>),
}

/// Releases, under one lock: a release and the call it names may come in either order.
#[derive(Default)]
struct Releases {
    /// Of the calls running, by tag.
    waiting: HashMap<String, Release>,
    /// Given before their call started: the call finds it and does not wait.
    early: Vec<String>,
}

#[derive(Default)]
struct Shared {
    releases: Mutex<Releases>,
    running: AtomicUsize,
    most: AtomicUsize,
    starts: AtomicUsize,
}

/// The test's side of the host.
pub(crate) struct Gates {
    shared: Arc<Shared>,
    events: mpsc::UnboundedReceiver<Event>,
    /// Events read while waiting for another.
    aside: Vec<Event>,
}

/// A safety net, not a timing assertion: an event that never comes fails the test here.
const NEVER: Duration = Duration::from_secs(60);

impl Gates {
    /// Waits until the host reports `event` (in any order with others).
    pub(crate) async fn saw(&mut self, event: Event) {
        if let Some(at) = self.aside.iter().position(|e| *e == event) {
            self.aside.remove(at);
            return;
        }
        let found = tokio::time::timeout(NEVER, async {
            while let Some(e) = self.events.recv().await {
                if e == event {
                    return true;
                }
                self.aside.push(e);
            }
            false
        })
        .await;
        assert!(
            matches!(found, Ok(true)),
            "the host never reported {event:?}"
        );
    }

    /// Whether the host has reported `event` so far, without waiting.
    pub(crate) fn has_seen(&mut self, event: &Event) -> bool {
        while let Ok(e) = self.events.try_recv() {
            self.aside.push(e);
        }
        self.aside.contains(event)
    }

    /// Lets the call tagged `tag` return (now, or as soon as it starts).
    pub(crate) fn release(&self, tag: &str) {
        let mut releases = self.shared.releases.lock().unwrap();
        match releases.waiting.remove(tag) {
            Some(Release::Async(tx)) => {
                let _ = tx.send(());
            }
            Some(Release::Blocking(tx)) => {
                let _ = tx.send(());
            }
            None => releases.early.push(tag.to_owned()),
        }
    }

    /// Host calls started so far.
    pub(crate) fn starts(&self) -> usize {
        self.shared.starts.load(Ordering::SeqCst)
    }

    /// The most host calls the host ever saw running at once.
    pub(crate) fn most_at_once(&self) -> usize {
        self.shared.most.load(Ordering::SeqCst)
    }
}

/// Counts a call running until dropped, and says so when dropped before it returned.
struct Running {
    shared: Arc<Shared>,
    events: mpsc::UnboundedSender<Event>,
    tag: String,
    returned: bool,
}

impl Running {
    fn start(
        shared: &Arc<Shared>,
        events: &mpsc::UnboundedSender<Event>,
        tag: &str,
        context: &CallContext,
    ) -> Running {
        shared.starts.fetch_add(1, Ordering::SeqCst);
        let now = shared.running.fetch_add(1, Ordering::SeqCst) + 1;
        shared.most.fetch_max(now, Ordering::SeqCst);
        let token = context.cancellation.clone();
        let (fired, tag_fired) = (events.clone(), tag.to_owned());
        tokio::spawn(async move {
            token.cancelled().await;
            let _ = fired.send(Event::TokenFired(tag_fired));
        });
        let _ = events.send(Event::Started(tag.to_owned()));
        Running {
            shared: shared.clone(),
            events: events.clone(),
            tag: tag.to_owned(),
            returned: false,
        }
    }

    fn returned(mut self) -> ToolOutput {
        self.returned = true;
        ToolOutput::text(self.tag.clone())
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.shared.running.fetch_sub(1, Ordering::SeqCst);
        let tag = std::mem::take(&mut self.tag);
        let _ = self.events.send(if self.returned {
            Event::Ended(tag)
        } else {
            Event::Dropped(tag)
        });
    }
}

/// The host's server and the test's side of it.
pub(crate) fn host() -> (Server, Gates) {
    host_with(|config| config)
}

/// [`host`], its configuration edited by `edit` (a collector attached, say).
pub(crate) fn host_with(edit: impl FnOnce(ServerConfig) -> ServerConfig) -> (Server, Gates) {
    let tagged = json!({
        "type": "object",
        "properties": {"tag": {"type": "string", "maxLength": 32}},
        "required": ["tag"]
    });
    let catalog = Catalog::new()
        .tool(ToolSpec::new("gate", "Awaits its release.").with_input_schema(tagged.clone()))
        .tool(
            ToolSpec::new("hold", "Blocks its thread until released.")
                .with_input_schema(tagged.clone()),
        )
        .tool(ToolSpec::new("echo", "Answers its tag.").with_input_schema(tagged))
        .tool(ToolSpec::new("fail", "A tool error."))
        .tool(ToolSpec::new("boom", "Panics."));
    let shared = Arc::new(Shared::default());
    let (events_tx, events) = mpsc::unbounded_channel();
    let host_shared = shared.clone();
    let config = ServerConfig::new(catalog).dispatch(move |call: ToolCall| {
        let shared = host_shared.clone();
        let events = events_tx.clone();
        async move {
            let tag = call
                .arguments
                .get("tag")
                .and_then(|v| v.as_str())
                .unwrap_or("")
                .to_owned();
            match &*call.tool {
                "echo" => Ok(ToolOutput::text(tag)),
                "fail" => Err(ToolError::new("it failed")),
                "boom" => panic!("injected host panic"),
                "gate" => {
                    let (tx, rx) = oneshot::channel();
                    let early = wait_for_release(&shared, &tag, Release::Async(tx));
                    let running = Running::start(&shared, &events, &tag, &call.context);
                    if !early {
                        let _ = rx.await;
                    }
                    Ok(running.returned())
                }
                "hold" => {
                    let (tx, rx) = std::sync::mpsc::channel();
                    let early = wait_for_release(&shared, &tag, Release::Blocking(tx));
                    let running = Running::start(&shared, &events, &tag, &call.context);
                    if !early {
                        // Blocks the thread: the subject of the tests that use it.
                        let _ = rx.recv();
                    }
                    Ok(running.returned())
                }
                other => Err(ToolError::new(format!("no such tool {other}"))),
            }
        }
    });
    let server = Server::new(edit(config)).expect("the gated host's catalog is valid");
    (
        server,
        Gates {
            shared,
            events,
            aside: Vec::new(),
        },
    )
}

/// Whether the call tagged `tag` was released before it started; if not, `release` is where
/// its release will come. One lock, so a release racing the call's start is never lost.
fn wait_for_release(shared: &Shared, tag: &str, release: Release) -> bool {
    let mut releases = shared.releases.lock().unwrap();
    match releases.early.iter().position(|t| t == tag) {
        Some(at) => {
            releases.early.remove(at);
            true
        }
        None => {
            releases.waiting.insert(tag.to_owned(), release);
            false
        }
    }
}
