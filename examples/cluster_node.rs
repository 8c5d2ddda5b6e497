//! One cluster node (feature `cluster`) driven by lines on stdin, reporting JSON lines on
//! stdout: a runtime serving `hold` and `echo`, a `ractor_cluster` node, its peers' up and down
//! events, and commands that dispatch to a peer's runtime. `tests/cluster/cluster_partition.rs`
//! drives two of them across a silent network partition; an operator can do the same by hand.
//!
//! ```text
//! cluster_node --name N --bind IP:PORT --cookie C [--connect IP:PORT]
//!              [--detect-ms N] [--reconnect-ms N] [--workers N]
//! ```
//!
//! Everything binds the address of `--bind` only (port 0 for one the system picks).
//!
//! **Output**, one JSON object per line, flushed: `{"node": name, "addr": addr}` once the node
//! listens; `{"event": "up"|"down", "name", "addr", "cause": "silent"|"closed"}` for each peer
//! event (`cause` on `down` only); `{"connected": true}` after `--connect` (or `{"error": …}`);
//! `{"started": tag, "tool": …}` when a tool call starts running on this node (`hold`'s tag,
//! `echo`'s text); and one line per command below. A line that is not a command earns
//! `{"error": …}`. The library's warnings go to stderr.
//!
//! **Tools.** `hold {"tag": string, "ms": integer ≥ 0, "bytes": integer 0..=1048576}` sleeps
//! `ms` (stopping early if the call is cancelled), then answers a text of `bytes` bytes.
//! `echo {"text": string}` answers `text`. The runtime admits 1,100 calls in flight whatever
//! `--workers` (default 8) says: the rest wait in its queue.
//!
//! **Commands**, one per line, each run concurrently with the others (answers come in any
//! order):
//!
//! - `call <id> <tool> <json>`: `dispatch_to` the first remote dispatcher (waiting for one if
//!   there is none yet), 30 s timeout. Answers
//!   `{"answer": id, "ok": bool, "reason": data.reason or null, "ms": elapsed}`, `ms` counted
//!   from when the command was read; `"code"` and `"message"` on a refusal, `"bytes"` (the
//!   texts' length) on an answer.
//! - `ask <id> <tool> <json>`: the same through a host actor that sends
//!   `ApplicationMsg::Dispatch` with its caller's own reply port, which has no timeout; the
//!   answer line adds `"via": "actor"`.
//! - `calls <n> <prefix> <tool> <json>`: `n` `call`s at once, ids `prefix0`…; if the JSON has
//!   a `"tag"`, each call's tag is its id.
//! - `dispatchers`: `{"dispatchers": n}`, the remote dispatchers known now.
//! - `rss`: `{"rss_kib": n, "heap_bytes": m}`, VmRSS from `/proc/self/status` and the bytes
//!   the process has allocated and not freed (counted by this binary's allocator).
//! - `quit` (or the end of stdin): stops the node and the runtime, then exits.
//!
//! **A partition by hand** (as root, with iproute2): two network namespaces joined by a veth
//! pair, one node in each, then cut the link silently (no RST, no ICMP: with ARP off a veth
//! addresses its frames to its own MAC address, and the peer drops them) and heal it.
//!
//! ```text
//! ip netns add pa; ip netns add pb
//! ip -n pa link add veth0 type veth peer name veth0 netns pb
//! ip -n pa addr add 10.231.0.1/24 dev veth0; ip -n pb addr add 10.231.0.2/24 dev veth0
//! for n in pa pb; do ip -n $n link set lo up; ip -n $n link set veth0 up; done
//! cargo build --features cluster --example cluster_node
//! # terminal 1
//! ip netns exec pa target/debug/examples/cluster_node --name a --bind 10.231.0.1:7401 --cookie c
//! # terminal 2: type `call 1 echo {"text":"hi"}`, `ask 2 hold {"tag":"x","ms":5000,"bytes":3}`…
//! ip netns exec pb target/debug/examples/cluster_node --name b --bind 10.231.0.2:0 --cookie c \
//!     --connect 10.231.0.1:7401
//! # terminal 3: cut (both ends), watch both nodes print "down" ("silent"), then heal
//! for n in pa pb; do ip -n $n link set veth0 arp off; ip -n $n neigh flush dev veth0; done
//! for n in pa pb; do ip -n $n link set veth0 arp on; done
//! ip netns del pa; ip netns del pb
//! ```

use beam_mcp::runtime::cluster::{
    dispatch_to, remote_dispatchers, wait_for_remote_dispatcher, ClusterNode, DownCause,
    NodeConfig, PeerEvent,
};
use beam_mcp::runtime::{Application, ApplicationConfig, ApplicationMsg, DispatchResult};
use beam_mcp::{
    Args, CancellationToken, Catalog, Extensions, Server, ServerConfig, ToolError, ToolSpec,
};
use ractor::{Actor, ActorProcessingErr, ActorRef, RpcReplyPort};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};
use std::io::Write;
use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::mpsc;
use std::sync::OnceLock;
use std::time::{Duration, Instant};
use tokio::io::{AsyncBufReadExt, BufReader};

/// The system allocator, counting the bytes live: what the process holds, whatever the
/// allocator keeps of what was freed (resident memory shows both).
struct Counting;

static LIVE: std::sync::atomic::AtomicIsize = std::sync::atomic::AtomicIsize::new(0);

// SAFETY: every call is forwarded unchanged to the system allocator; the counter is a side
// effect only.
#[allow(unsafe_code)]
unsafe impl std::alloc::GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        let p = unsafe { std::alloc::System.alloc(layout) };
        if !p.is_null() {
            LIVE.fetch_add(layout.size() as isize, std::sync::atomic::Ordering::Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: std::alloc::Layout) {
        unsafe { std::alloc::System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size() as isize, std::sync::atomic::Ordering::Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { std::alloc::System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            LIVE.fetch_add(
                new_size as isize - layout.size() as isize,
                std::sync::atomic::Ordering::Relaxed,
            );
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Calls the runtime admits at once, running or queued, whatever the number of workers.
const IN_FLIGHT: usize = 1100;
/// The timeout of a `call`, the wait for a remote dispatcher included.
const CALL_TIMEOUT: Duration = Duration::from_secs(30);
/// The largest text `hold` answers.
const MAX_BYTES: u64 = 1 << 20;
/// How long `quit` waits for the node and the runtime to stop.
const STOP: Duration = Duration::from_secs(5);

// ---------------------------------------------------------------------------------------
// Output: one JSON object per line, written and flushed by a thread of its own, so that a
// slow reader never blocks the runtime's threads.

enum Out {
    Line(String),
    /// Answered once every line before it is written and flushed.
    Flush(mpsc::Sender<()>),
}

static OUT: OnceLock<mpsc::Sender<Out>> = OnceLock::new();

fn start_writer() {
    let (tx, rx) = mpsc::channel::<Out>();
    std::thread::spawn(move || {
        let stdout = std::io::stdout();
        let mut out = stdout.lock();
        for item in rx {
            match item {
                Out::Line(line) => {
                    // stdout gone (the driver ended): nothing left to report to.
                    if writeln!(out, "{line}").and_then(|()| out.flush()).is_err() {
                        return;
                    }
                }
                Out::Flush(done) => {
                    let _ = out.flush();
                    let _ = done.send(());
                }
            }
        }
    });
    let _ = OUT.set(tx);
}

/// Reports one line.
fn say(line: Value) {
    if let Some(out) = OUT.get() {
        let _ = out.send(Out::Line(line.to_string()));
    }
}

/// Waits until every line reported so far is written.
fn flush() {
    if let Some(out) = OUT.get() {
        let (done, written) = mpsc::channel();
        if out.send(Out::Flush(done)).is_ok() {
            let _ = written.recv_timeout(STOP);
        }
    }
}

// ---------------------------------------------------------------------------------------
// The runtime's tools.

#[derive(Debug, Deserialize, JsonSchema)]
struct Hold {
    /// Names the call in the `started` line.
    #[schemars(length(max = 128))]
    tag: String,
    /// How long to hold, in milliseconds.
    ms: u64,
    /// The length of the answer's text.
    #[schemars(range(max = 1_048_576))]
    bytes: u64,
}

#[derive(Debug, Deserialize, JsonSchema)]
struct Echo {
    /// The text answered.
    #[schemars(length(max = 1024))]
    text: String,
}

async fn hold(Args(h): Args<Hold>, cancel: CancellationToken) -> Result<String, ToolError> {
    say(json!({"started": h.tag, "tool": "hold"}));
    tokio::select! {
        () = tokio::time::sleep(Duration::from_millis(h.ms)) => {}
        () = cancel.cancelled() => return Err(ToolError::new(format!("{} cancelled", h.tag))),
    }
    let bytes = usize::try_from(h.bytes.min(MAX_BYTES))?;
    Ok("x".repeat(bytes))
}

async fn echo(Args(e): Args<Echo>) -> String {
    say(json!({"started": e.text, "tool": "echo"}));
    e.text
}

fn server() -> Result<Server, String> {
    let catalog = Catalog::new()
        .tool(
            ToolSpec::new("hold", "Sleeps ms, then answers a text of `bytes` bytes.")
                .with_handler(hold),
        )
        .tool(ToolSpec::new("echo", "Answers its text.").with_handler(echo));
    Server::new(ServerConfig::new(catalog)).map_err(|e| format!("the catalog: {e}"))
}

// ---------------------------------------------------------------------------------------
// The host actor of `ask`: it forwards its caller's own reply port to the remote runtime, and
// never waits.

struct Asker;

enum AskMsg {
    Ask {
        dispatcher: ActorRef<ApplicationMsg>,
        tool: String,
        arguments: Value,
        reply: RpcReplyPort<DispatchResult>,
    },
}

impl ractor::Message for AskMsg {}

impl Actor for Asker {
    type Msg = AskMsg;
    type State = ();
    type Arguments = ();

    async fn pre_start(&self, _: ActorRef<AskMsg>, (): ()) -> Result<(), ActorProcessingErr> {
        Ok(())
    }

    async fn handle(
        &self,
        _: ActorRef<AskMsg>,
        message: AskMsg,
        (): &mut (),
    ) -> Result<(), ActorProcessingErr> {
        let AskMsg::Ask {
            dispatcher,
            tool,
            arguments,
            reply,
        } = message;
        // A refused send drops the port: the caller hears of it as a dropped port.
        let _ = dispatcher.send_message(ApplicationMsg::Dispatch {
            tool,
            arguments,
            extensions: Extensions::new(),
            reply,
        });
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------
// Commands.

#[derive(Debug)]
struct Options {
    name: String,
    bind: SocketAddr,
    cookie: String,
    connect: Option<SocketAddr>,
    detect: Option<Duration>,
    reconnect: Option<Duration>,
    workers: usize,
}

const USAGE: &str = "usage: cluster_node --name N --bind IP:PORT --cookie C [--connect IP:PORT] \
                     [--detect-ms N] [--reconnect-ms N] [--workers N]";

fn options(args: &[String]) -> Result<Options, String> {
    fn parsed<T: std::str::FromStr>(flag: &str, value: &str) -> Result<T, String>
    where
        T::Err: std::fmt::Display,
    {
        value.parse().map_err(|e| format!("{flag} {value:?}: {e}"))
    }
    let (mut name, mut bind, mut cookie) = (None, None, None);
    let mut o = Options {
        name: String::new(),
        bind: SocketAddr::from(([127, 0, 0, 1], 0)),
        cookie: String::new(),
        connect: None,
        detect: None,
        reconnect: None,
        workers: beam_mcp::runtime::DEFAULT_WORKERS,
    };
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        let value = it
            .next()
            .ok_or_else(|| format!("{flag} needs a value; {USAGE}"))?;
        match flag.as_str() {
            "--name" => name = Some(value.clone()),
            "--bind" => bind = Some(parsed(flag, value)?),
            "--cookie" => cookie = Some(value.clone()),
            "--connect" => o.connect = Some(parsed(flag, value)?),
            "--detect-ms" => o.detect = Some(Duration::from_millis(parsed(flag, value)?)),
            "--reconnect-ms" => o.reconnect = Some(Duration::from_millis(parsed(flag, value)?)),
            "--workers" => o.workers = parsed(flag, value)?,
            other => return Err(format!("unknown flag {other:?}; {USAGE}")),
        }
    }
    o.name = name.ok_or_else(|| format!("--name is required; {USAGE}"))?;
    o.bind = bind.ok_or_else(|| format!("--bind is required; {USAGE}"))?;
    o.cookie = cookie.ok_or_else(|| format!("--cookie is required; {USAGE}"))?;
    if o.workers == 0 {
        return Err("--workers must be at least 1".to_owned());
    }
    Ok(o)
}

/// One parsed command line.
#[derive(Debug)]
enum Command {
    Call {
        id: String,
        tool: String,
        arguments: Value,
        via_actor: bool,
    },
    Calls {
        n: usize,
        prefix: String,
        tool: String,
        arguments: Value,
    },
    Dispatchers,
    Rss,
    Quit,
}

/// The first whitespace-separated word of `rest`, and what follows it.
fn word(rest: &str) -> Option<(&str, &str)> {
    let rest = rest.trim_start();
    if rest.is_empty() {
        return None;
    }
    let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
    Some((&rest[..end], &rest[end..]))
}

fn arguments(rest: &str) -> Result<Value, String> {
    let rest = rest.trim();
    if rest.is_empty() {
        return Ok(json!({}));
    }
    serde_json::from_str(rest).map_err(|e| format!("the arguments are not JSON: {e}"))
}

fn parse(line: &str) -> Result<Command, String> {
    let (verb, rest) = word(line).ok_or("an empty line")?;
    let need = |what: &str| format!("{verb}: missing {what}");
    match verb {
        "call" | "ask" => {
            let (id, rest) = word(rest).ok_or_else(|| need("<id>"))?;
            let (tool, rest) = word(rest).ok_or_else(|| need("<tool>"))?;
            Ok(Command::Call {
                id: id.to_owned(),
                tool: tool.to_owned(),
                arguments: arguments(rest)?,
                via_actor: verb == "ask",
            })
        }
        "calls" => {
            let (n, rest) = word(rest).ok_or_else(|| need("<n>"))?;
            let n = n.parse().map_err(|e| format!("calls: <n> {n:?}: {e}"))?;
            let (prefix, rest) = word(rest).ok_or_else(|| need("<prefix>"))?;
            let (tool, rest) = word(rest).ok_or_else(|| need("<tool>"))?;
            Ok(Command::Calls {
                n,
                prefix: prefix.to_owned(),
                tool: tool.to_owned(),
                arguments: arguments(rest)?,
            })
        }
        "dispatchers" | "rss" | "quit" if !rest.trim().is_empty() => {
            Err(format!("{verb} takes no argument"))
        }
        "dispatchers" => Ok(Command::Dispatchers),
        "rss" => Ok(Command::Rss),
        "quit" => Ok(Command::Quit),
        other => Err(format!(
            "unknown command {other:?} (call, ask, calls, dispatchers, rss, quit)"
        )),
    }
}

fn rss_kib() -> Result<u64, String> {
    let status = std::fs::read_to_string("/proc/self/status")
        .map_err(|e| format!("/proc/self/status: {e}"))?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .ok_or_else(|| "no VmRSS in /proc/self/status".to_owned())
}

/// One call: through `dispatch_to`, or through the host actor with no timeout on its port.
async fn call(
    asker: ActorRef<AskMsg>,
    id: String,
    tool: String,
    arguments: Value,
    via_actor: bool,
) {
    let read = Instant::now();
    let ms = |read: Instant| u64::try_from(read.elapsed().as_millis()).unwrap_or(u64::MAX);
    let mut line = json!({"answer": id});
    if via_actor {
        line["via"] = json!("actor");
    }
    let dispatcher = match remote_dispatchers().into_iter().next() {
        Some(d) => Some(d),
        None => wait_for_remote_dispatcher(CALL_TIMEOUT).await,
    };
    let Some(dispatcher) = dispatcher else {
        line["ok"] = json!(false);
        line["reason"] = Value::Null;
        line["error"] = json!("no remote dispatcher");
        line["ms"] = json!(ms(read));
        say(line);
        return;
    };
    let result = if via_actor {
        let sent = asker
            .call(
                |reply| AskMsg::Ask {
                    dispatcher,
                    tool,
                    arguments,
                    reply,
                },
                None,
            )
            .await;
        match sent {
            Ok(ractor::rpc::CallResult::Success(answer)) => Ok(answer),
            Ok(ractor::rpc::CallResult::Timeout) => Err("the reply port timed out"),
            Ok(ractor::rpc::CallResult::SenderError) => Err("the reply port was dropped"),
            Err(_) => Err("the host actor is gone"),
        }
    } else {
        Ok(dispatch_to(&dispatcher, &tool, arguments, CALL_TIMEOUT).await)
    };
    match result {
        Ok(Ok(answer)) => {
            line["ok"] = json!(!answer.is_error());
            line["reason"] = Value::Null;
            line["bytes"] = json!(answer.texts().iter().map(String::len).sum::<usize>());
        }
        Ok(Err(refused)) => {
            line["ok"] = json!(false);
            line["reason"] = refused.data().get("reason").cloned().unwrap_or(Value::Null);
            line["code"] = json!(refused.code());
            line["message"] = json!(refused.message());
        }
        Err(unanswered) => {
            line["ok"] = json!(false);
            line["reason"] = Value::Null;
            line["error"] = json!(unanswered);
        }
    }
    line["ms"] = json!(ms(read));
    say(line);
}

fn event(e: &PeerEvent) -> Value {
    match e {
        PeerEvent::Up { name, addr } => {
            json!({"event": "up", "name": name, "addr": addr.to_string()})
        }
        PeerEvent::Down { name, addr, cause } => {
            let cause = match cause {
                DownCause::Silent => "silent",
                DownCause::Closed => "closed",
                _ => "other",
            };
            json!({"event": "down", "name": name, "addr": addr.to_string(), "cause": cause})
        }
        other => json!({"event": "other", "debug": format!("{other:?}")}),
    }
}

type Failure = Box<dyn std::error::Error>;

async fn run(o: Options) -> Result<(), Failure> {
    let runtime = Application::start(
        server()?,
        ApplicationConfig::new().workers(o.workers).queue(IN_FLIGHT),
    )
    .await?;
    let mut config = NodeConfig::new(o.name.clone(), o.cookie).bind(o.bind);
    if let Some(detect) = o.detect {
        config = config.detect(detect);
    }
    if let Some(reconnect) = o.reconnect {
        config = config.reconnect(reconnect);
    }
    let node = ClusterNode::start(config).await?;
    let mut events = node.subscribe();
    let events_task = tokio::spawn(async move {
        loop {
            match events.recv().await {
                Ok(e) => say(event(&e)),
                Err(tokio::sync::broadcast::error::RecvError::Lagged(n)) => {
                    say(json!({"error": format!("{n} peer events missed")}));
                }
                Err(tokio::sync::broadcast::error::RecvError::Closed) => break,
            }
        }
    });
    say(json!({"node": o.name, "addr": node.addr().to_string()}));
    let (asker, _) = Actor::spawn(None, Asker, ()).await?;
    if let Some(peer) = o.connect {
        match node.connect(peer).await {
            Ok(()) => say(json!({"connected": true})),
            Err(e) => say(json!({"connected": false, "error": format!("connect {peer}: {e}")})),
        }
    }

    let mut lines = BufReader::new(tokio::io::stdin()).lines();
    loop {
        let line = match lines.next_line().await {
            Ok(Some(line)) => line,
            Ok(None) => break,
            Err(e) => {
                say(json!({"error": format!("stdin: {e}")}));
                break;
            }
        };
        if line.trim().is_empty() {
            continue;
        }
        match parse(&line) {
            Err(e) => say(json!({"error": e, "line": line})),
            Ok(Command::Quit) => break,
            Ok(Command::Dispatchers) => say(json!({"dispatchers": remote_dispatchers().len()})),
            Ok(Command::Rss) => match rss_kib() {
                Ok(kib) => say(json!({
                    "rss_kib": kib,
                    "heap_bytes": LIVE.load(std::sync::atomic::Ordering::Relaxed),
                })),
                Err(e) => say(json!({"error": e})),
            },
            Ok(Command::Call {
                id,
                tool,
                arguments,
                via_actor,
            }) => {
                tokio::spawn(call(asker.clone(), id, tool, arguments, via_actor));
            }
            Ok(Command::Calls {
                n,
                prefix,
                tool,
                arguments,
            }) => {
                let tagged = arguments.get("tag").is_some();
                for i in 0..n {
                    let id = format!("{prefix}{i}");
                    let mut arguments = arguments.clone();
                    if tagged {
                        arguments["tag"] = json!(id);
                    }
                    tokio::spawn(call(asker.clone(), id, tool.clone(), arguments, false));
                }
            }
        }
    }
    asker.stop(None);
    events_task.abort();
    node.stop(STOP).await;
    runtime.stop(STOP).await?;
    Ok(())
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> ExitCode {
    // The library's warnings (a peer declared down, a failed reconnect) on stderr.
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_max_level(tracing_subscriber::filter::LevelFilter::WARN)
        .init();
    start_writer();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let code = match options(&args) {
        Err(e) => {
            say(json!({"error": e}));
            ExitCode::from(2)
        }
        Ok(o) => match run(o).await {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                say(json!({"error": e.to_string()}));
                ExitCode::FAILURE
            }
        },
    };
    flush();
    code
}
