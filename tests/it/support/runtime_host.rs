//! A host for the runtime tests: tools that answer, fail, panic, sleep and block; and, in
//! [`gated`]'s server, tools the test holds until it lets them go (`gate` awaits, `hold` blocks
//! its thread), each reporting to the test when it has started: a test knows a call is running
//! without sleeping.

use beam_mcp::{Catalog, Server, ServerConfig, ToolCall, ToolError, ToolOutput, ToolSpec};
use serde_json::json;
use std::future::Future;
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};

/// How long a test waits for an event before it fails: a safety net that turns a hang into a
/// failure, not a timing assertion (every event it guards comes at once or not at all).
pub(crate) const SAFETY: Duration = Duration::from_secs(60);

fn catalog() -> Catalog {
    let ms = json!({
        "type": "object",
        "properties": {"ms": {"type": "integer", "minimum": 0, "maximum": 60000}},
        "required": ["ms"]
    });
    Catalog::new()
        .tool(
            ToolSpec::new("echo", "Echo the text.").with_input_schema(json!({
                "type": "object",
                "properties": {"text": {"type": "string", "maxLength": 64}},
                "required": ["text"],
                "additionalProperties": false
            })),
        )
        .tool(ToolSpec::new("fail", "A tool error."))
        .tool(ToolSpec::new("boom", "Panics."))
        .tool(ToolSpec::new("slow", "Sleeps ms, then answers.").with_input_schema(ms.clone()))
        .tool(ToolSpec::new("block", "Blocks its thread for ms.").with_input_schema(ms))
}

async fn answer(
    call: ToolCall,
    gate: Option<mpsc::UnboundedSender<Started>>,
) -> Result<ToolOutput, ToolError> {
    let ms = call
        .arguments
        .get("ms")
        .and_then(|v| v.as_u64())
        .unwrap_or(0);
    let tag = call
        .arguments
        .get("tag")
        .and_then(|v| v.as_str())
        .unwrap_or("")
        .to_owned();
    match (&*call.tool, gate) {
        ("echo", _) => Ok(ToolOutput::text(
            call.arguments
                .get("text")
                .and_then(|v| v.as_str())
                .unwrap_or(""),
        )),
        ("fail", _) => Err(ToolError::new("it failed")),
        ("boom", _) => panic!("injected host panic"),
        ("slow", _) => {
            // Simulated slow work: its slowness is the subject of the tests that call it.
            tokio::time::sleep(Duration::from_millis(ms)).await;
            Ok(ToolOutput::text(format!("slept {ms}")))
        }
        ("block", _) => {
            // Simulated blocking work: the blocked thread is the subject of its tests.
            std::thread::sleep(Duration::from_millis(ms));
            Ok(ToolOutput::text(format!("blocked {ms}")))
        }
        ("gate", Some(gate)) => {
            let (release, released) = oneshot::channel();
            let _ = gate.send(Started {
                tag: tag.clone(),
                release: Release::Gate(release),
            });
            // Released, or the test dropped its handle: either way the gate opens.
            let _ = released.await;
            Ok(ToolOutput::text(format!("released {tag}")))
        }
        ("hold", Some(gate)) => {
            let (release, released) = std::sync::mpsc::channel();
            let _ = gate.send(Started {
                tag: tag.clone(),
                release: Release::Hold(release),
            });
            // Blocks the worker's thread, as a host doing blocking work does.
            let _ = released.recv();
            Ok(ToolOutput::text(format!("released {tag}")))
        }
        (other, _) => Err(ToolError::new(format!("no such tool {other}"))),
    }
}

/// The test host's configuration: echo, fail, boom, slow and block tools.
pub(crate) fn config() -> ServerConfig {
    ServerConfig::new(catalog()).dispatch(|call: ToolCall| answer(call, None))
}

/// The test host's server.
pub(crate) fn server() -> Server {
    Server::new(config()).expect("the test catalog is valid")
}

/// [`config`] with two more tools, `gate` and `hold` (argument `tag`, a string, optional),
/// and the test's end of them. Each call of either reports to the [`Gate`] as it starts, then
/// waits until the test releases it (or drops its [`Started`]): `gate` on an await, `hold`
/// blocking its thread. Both answer `released <tag>`.
pub(crate) fn gated_config() -> (ServerConfig, Gate) {
    let tag = json!({
        "type": "object",
        "properties": {"tag": {"type": "string", "maxLength": 64}},
        "additionalProperties": false
    });
    let catalog = catalog()
        .tool(
            ToolSpec::new("gate", "Waits (awaiting) until the test releases it.")
                .with_input_schema(tag.clone()),
        )
        .tool(
            ToolSpec::new("hold", "Blocks its thread until the test releases it.")
                .with_input_schema(tag),
        );
    let (tx, rx) = mpsc::unbounded_channel();
    let config =
        ServerConfig::new(catalog).dispatch(move |call: ToolCall| answer(call, Some(tx.clone())));
    (config, Gate { started: rx })
}

/// [`gated_config`]'s server.
pub(crate) fn gated() -> (Server, Gate) {
    let (config, gate) = gated_config();
    (
        Server::new(config).expect("the test catalog is valid"),
        gate,
    )
}

/// The test's end of the `gate` and `hold` tools: every call of either reports here when its
/// host code has started.
pub(crate) struct Gate {
    started: mpsc::UnboundedReceiver<Started>,
}

impl Gate {
    /// The next call to start (in the order they reported). Fails the test if none starts
    /// within [`SAFETY`].
    pub(crate) async fn started(&mut self) -> Started {
        match tokio::time::timeout(SAFETY, self.started.recv()).await {
            Ok(Some(started)) => started,
            Ok(None) => unreachable!("the gate's server holds its sender"),
            Err(_) => panic!("no gated call started within {SAFETY:?}"),
        }
    }

    /// The next `n` calls to start.
    pub(crate) async fn started_n(&mut self, n: usize) -> Vec<Started> {
        let mut all = Vec::with_capacity(n);
        for _ in 0..n {
            all.push(self.started().await);
        }
        all
    }

    /// Releases every call from now on, as each starts (those taken already are the
    /// test's to release).
    pub(crate) fn release_all(mut self) {
        tokio::spawn(async move {
            while let Some(started) = self.started.recv().await {
                started.release();
            }
        });
    }

    /// A call that has started and not been taken yet, without waiting.
    pub(crate) fn try_started(&mut self) -> Option<Started> {
        self.started.try_recv().ok()
    }
}

/// A gated call, running and waiting for the test. Dropping it releases the call too.
#[derive(Debug)]
pub(crate) struct Started {
    /// The call's `tag` argument (empty without one).
    pub(crate) tag: String,
    release: Release,
}

#[derive(Debug)]
enum Release {
    Gate(oneshot::Sender<()>),
    Hold(std::sync::mpsc::Sender<()>),
}

impl Started {
    /// Lets the call answer. A call already gone (its host work cancelled) is not waited for.
    pub(crate) fn release(self) {
        match self.release {
            Release::Gate(tx) => {
                let _ = tx.send(());
            }
            Release::Hold(tx) => {
                let _ = tx.send(());
            }
        }
    }
}

/// Waits until `actor` has exited; fails the test after [`SAFETY`]. An event, not a poll:
/// once it returns, the actor's supervisor has been sent its exit (ractor sends it before it
/// marks the actor stopped), and a supervisor handles such an event, the restarts it causes
/// included, before any call sent to it after (its supervision port comes before its
/// messages): the supervisor's next answer already counts the exit.
pub(crate) async fn exited(actor: &ractor::ActorCell) {
    actor
        .wait(Some(SAFETY))
        .await
        .unwrap_or_else(|_| panic!("{:?} still runs after {SAFETY:?}", actor.get_id()));
}

/// Polls `check` every 5 ms until it holds, for at most `limit`.
///
/// A poll, not an event: each caller says why (what it waits for has no event the code
/// offers: a counter such as `http_connections` or `pool_stats`, a supervisor's restart count,
/// an actor's status). Where the code offers an event, wait on the event instead.
pub(crate) async fn eventually<F, Fut>(limit: Duration, mut check: F) -> bool
where
    F: FnMut() -> Fut,
    Fut: Future<Output = bool>,
{
    let start = tokio::time::Instant::now();
    while start.elapsed() < limit {
        if check().await {
            return true;
        }
        // The poll's interval: see above.
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    false
}

/// A `tools/call` frame.
pub(crate) fn call_frame(id: u64, tool: &str, arguments: serde_json::Value) -> Vec<u8> {
    serde_json::to_vec(&json!({
        "jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": tool, "arguments": arguments}
    }))
    .expect("a JSON value encodes")
}

/// A stdio connector for the runtime: every (re)start of the stdio actor opens a new in-memory
/// connection, whose client end the test takes from the returned list.
pub(crate) fn connector() -> (
    impl Fn() -> beam_mcp::runtime::StdioIo + Send + Sync + 'static,
    std::sync::Arc<std::sync::Mutex<Vec<tokio::io::DuplexStream>>>,
) {
    let clients = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let sink = clients.clone();
    let connect = move || {
        let (client, server) = tokio::io::duplex(1 << 16);
        sink.lock().unwrap().push(client);
        let (r, w) = tokio::io::split(server);
        beam_mcp::runtime::StdioIo::new(tokio::io::BufReader::new(r), w)
    };
    (connect, clients)
}
