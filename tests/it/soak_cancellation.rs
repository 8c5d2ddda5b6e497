//! A bounded soak of cancellation: the stdio and HTTP transports, bare and under the runtime,
//! answer every accepted request exactly once or say why — completed, refused, or cancelled
//! by its caller — under a seeded random mix of cancellations, disconnects, deadlines and
//! panics, and every request id is reconciled at the end.
//!
//! The host is this module's own (modelled on `support::gate`, whose event stream a test
//! cannot select on beside its answers): `echo` answers its tag, `fail` is a tool error,
//! `boom` panics, `gate` awaits a release from the test. A gate reports `Started`, then
//! `Ended` (it returned) or `Dropped` (its future was dropped), and `TokenFired` when its
//! `CallContext::cancellation` fires; the host counts every call running at once.
//!
//! **stdio** (`stdio::serve` over `tokio::io::duplex`, and a stdio connection under the
//! runtime: 4 workers, a queue of 8, a 100 ms deadline): a few thousand requests on one
//! connection, unique ids, each at random an `echo`, a `fail`, a `boom`, a gate the test
//! releases later, a gate the test cancels (`notifications/cancelled`) once it has `Started`,
//! a gate it cancels at random before (at once, or a few requests later), and under the
//! runtime a gate never released. Between them: releases, a release followed at once by a
//! cancellation (the only case where a cancelled call may still be answered: the completion
//! raced the cancellation), and cancellations that must change nothing: unknown ids, the
//! string form of an id in flight, the id the next request will carry, ids already answered,
//! and `requestId`s that are no id at all (an object, an array, a fraction, null, true, a
//! string over the id limit, none). The writer never waits: at most a window of calls is
//! outstanding (now and then a burst of a few dozen `echo` calls goes past it: under the
//! runtime more than the pool's workers and queue take, so some are refused `overloaded`),
//! and the test waits only for answers and host events. At the end the input is
//! closed and the output read to its end, so every answer the server will ever write is in.
//!
//! **HTTP** (`http::serve`, and `ApplicationConfig::http` with the same pool), HTTP/1.1 and
//! h2c at random per request (a connection of its own for each HTTP/1.1 request, a few
//! shared h2 connections): a few hundred requests, a window of them at once, each an `echo`,
//! `fail`, `boom`, a gate released when it starts, a gate disconnected when it starts (h1:
//! the task owning the `TcpStream` is aborted; h2: the task holding hyper's response future
//! is aborted, which resets the stream), and under the runtime a gate never released; now and
//! then a burst of 16 to 24 requests goes past the window.
//!
//! What is reconciled, per id:
//! - every answer names an id that was sent, no id is answered twice, and each answer is one
//!   the request's kind allows: `echo` its tag, `fail` "it failed", `boom` "the tool failed"
//!   (tool errors), a released gate its tag, a never-released gate `-32603`
//!   `data.reason = "deadline"`; under the runtime any call may instead be refused
//!   `overloaded` or `deadline` (the deadline counts the wait for a worker). Over HTTP the
//!   status goes with it (200 for answers and tool errors, 500 for refusals).
//! - a cancelled call is never answered (a refusal that came before the cancellation aside),
//!   unless the test released it before cancelling it; a disconnected call gets no response.
//! - the host's books: every started gate ended exactly once, returned or dropped; every
//!   dropped gate's token fired; a gate answered with its tag returned (and its token did not
//!   fire); one refused `overloaded` never started; one never released never returned; a
//!   cancelled or disconnected gate that started was dropped (on the bare transport a
//!   cancelled gate that returned was answered, as both happen in one poll); the most calls
//!   at once stay within the workers (the runtime) or the in-flight bound (bare stdio).
//! - under the runtime, once the pool is idle (`overrunning == 0`, `queued == 0`), its counts
//!   against the answers (`O`, `D`: answers refused overloaded, deadline; `E`: gates that
//!   returned; `T`, `F`, `P`: echo tags, `fail` and `boom` tool errors): `overloaded == O`;
//!   over stdio `deadlines == D` and `cancelled` between the cancelled gates that started and
//!   were dropped unanswered and all unanswered calls; over HTTP `deadlines + cancelled == D +
//!   X` (`X` disconnected: each was cancelled, or hit its deadline with nobody to read it) and
//!   `cancelled <= X`; `completed - E - T - F` between 0 and the echo and `fail` calls
//!   answered `deadline`, and `panics - P` between 0 and the `boom` calls answered `deadline`
//!   (a host that returned just as its deadline passed counts both). So over HTTP, where every
//!   request reaches the pool, `completed + panics + deadlines + overloaded + cancelled` is
//!   the number of requests plus exactly those races. Over stdio a call cancelled before its
//!   task first ran never reached the pool and counts nothing, so only the bounds hold.
//! - coverage: a run of the default size (or more) saw at least one call of each outcome its
//!   mix makes all but certain, refusals `overloaded` under the runtime included (the bursts
//!   see to those); over stdio under the runtime, at least one gate cancelled after it started
//!   was dropped unanswered: a cancellation that did nothing would leave every one to its
//!   deadline, which the rules above must allow. A smaller run prints its coverage instead.
//!
//! Nothing waits on a clock: the test waits for answers and host events; a wait that sees
//! nothing for 30 s fails with what is still outstanding. `SOAK_CANCEL_SEED` (decimal or
//! `0x` hex) replays a run's random plan (printed, per test); `SOAK_CANCEL_SCALE` multiplies
//! the request counts for longer local runs. Which gate a release or a bogus cancellation
//! picks also depends on what was answered by then, so a replay repeats the plan, not the
//! interleaving.

use crate::support::http::{mcp_headers, rpc};
use crate::support::splitmix::Rng;

use beam_mcp::runtime::{Application, ApplicationConfig, ApplicationRef, PoolStats, StdioIo};
use beam_mcp::transport::http::{AllowedOrigins, HttpService, ServeOptions};
use beam_mcp::transport::stdio::{self, StdioOptions, DEFAULT_MAX_IN_FLIGHT};
use beam_mcp::{CallContext, Catalog, Server, ServerConfig, ToolCall, ToolError, ToolOutput};
use beam_mcp::{CancellationToken, ToolSpec};
use bytes::Bytes;
use http::Request;
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http2::SendRequest;
use hyper_util::rt::{TokioExecutor, TokioIo};
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::future::Future;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream};
use tokio::net::TcpStream;
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinSet;

/// The runtime's pool in every test under it.
const WORKERS: usize = 4;
const QUEUE: usize = 8;
const DEADLINE: Duration = Duration::from_millis(100);

/// A safety net, not a timing assertion: a wait that sees nothing happen for this long fails.
const NEVER: Duration = Duration::from_secs(30);

const STDIO_BARE_CALLS: usize = 3000;
const STDIO_RUNTIME_CALLS: usize = 2000;
const HTTP_CALLS: usize = 300;

/// Calls outstanding at once (sent, neither answered nor cancelled yet).
const STDIO_BARE_WINDOW: usize = 32;
const STDIO_RUNTIME_WINDOW: usize = 10;
const HTTP_BARE_WINDOW: usize = 64;
const HTTP_RUNTIME_WINDOW: usize = 10;
const H2_CONNECTIONS: usize = 4;

/// One burst past the window in every this many stdio steps, HTTP requests.
const STDIO_BURST_EVERY: usize = 100;
const HTTP_BURST_EVERY: usize = 50;

/// The panic message of `boom`, kept out of the log (see [`quiet_injected_panics`]).
const INJECTED: &str = "soak_cancellation: injected host panic";

// ---------------------------------------------------------------------------------------------
// Knobs: the seed and the scale.

/// The seed of one test: `SOAK_CANCEL_SEED` when set, else a fresh one; printed either way.
fn seed(label: &str) -> u64 {
    let seed = match std::env::var("SOAK_CANCEL_SEED") {
        Ok(s) => {
            let s = s.trim();
            let parsed = match s.strip_prefix("0x") {
                Some(hex) => u64::from_str_radix(hex, 16),
                None => s.parse(),
            };
            parsed.unwrap_or_else(|e| panic!("SOAK_CANCEL_SEED={s:?}: {e}"))
        }
        Err(_) => {
            use std::hash::BuildHasher;
            std::collections::hash_map::RandomState::new().hash_one(std::time::SystemTime::now())
        }
    };
    eprintln!("soak_cancellation {label}: seed {seed:#018x} (replay: SOAK_CANCEL_SEED={seed:#x})");
    seed
}

/// `n` times `SOAK_CANCEL_SCALE` (default 1).
fn scaled(n: usize) -> usize {
    let scale: f64 = match std::env::var("SOAK_CANCEL_SCALE") {
        Ok(s) => s
            .trim()
            .parse()
            .unwrap_or_else(|e| panic!("SOAK_CANCEL_SCALE={s:?}: {e}")),
        Err(_) => 1.0,
    };
    ((n as f64 * scale).round() as usize).max(1)
}

/// Keeps `boom`'s panic reports out of the log (thousands of them); any other panic is
/// reported as before.
fn quiet_injected_panics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let report = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !info.to_string().contains(INJECTED) {
                report(info);
            }
        }));
    });
}

/// The pool every runtime test runs.
fn pool() -> ApplicationConfig {
    ApplicationConfig::new()
        .workers(WORKERS)
        .queue(QUEUE)
        .deadline(DEADLINE)
}

// ---------------------------------------------------------------------------------------------
// The host.

/// What the host saw of a gate, by request id (the gate's tag).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Event {
    Started(u64),
    /// The gate returned (after its release).
    Ended(u64),
    /// The gate's future was dropped before it returned.
    Dropped(u64),
    /// The call's cancellation token fired.
    TokenFired(u64),
}

/// A gate's release: its waiting gate, or a release given before the gate started. One lock
/// for both, so a release racing the gate's start is never lost.
enum Slot {
    Waiting(oneshot::Sender<()>),
    Released,
}

#[derive(Default)]
struct HostState {
    slots: Mutex<HashMap<u64, Slot>>,
    running: AtomicUsize,
    most: AtomicUsize,
}

/// The test's side of the host.
#[derive(Clone)]
struct Host(Arc<HostState>);

impl Host {
    /// Lets gate `id` return, now or as soon as it starts.
    fn release(&self, id: u64) {
        let mut slots = self.0.slots.lock().unwrap();
        match slots.remove(&id) {
            Some(Slot::Waiting(tx)) => {
                let _ = tx.send(());
            }
            Some(Slot::Released) | None => {
                slots.insert(id, Slot::Released);
            }
        }
    }

    /// The most host calls (of any tool) the host ever saw running at once.
    fn most_at_once(&self) -> usize {
        self.0.most.load(Ordering::SeqCst)
    }
}

/// One host call running, from its start to its end however it ends (a panic included).
struct Busy(Arc<HostState>);

impl Busy {
    fn enter(state: &Arc<HostState>) -> Busy {
        let now = state.running.fetch_add(1, Ordering::SeqCst) + 1;
        state.most.fetch_max(now, Ordering::SeqCst);
        Busy(state.clone())
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        self.0.running.fetch_sub(1, Ordering::SeqCst);
    }
}

/// A gate from its start: says `Ended` or `Dropped` when it goes.
struct Life {
    id: u64,
    events: mpsc::UnboundedSender<Event>,
    /// Told when the gate returned, so its token's watcher stops watching.
    returned: Option<oneshot::Sender<()>>,
    ended: bool,
}

impl Drop for Life {
    fn drop(&mut self) {
        let event = if self.ended {
            if let Some(tx) = self.returned.take() {
                let _ = tx.send(());
            }
            Event::Ended(self.id)
        } else {
            Event::Dropped(self.id)
        };
        let _ = self.events.send(event);
    }
}

/// Reports `TokenFired` when the call's token fires, unless the gate returned first; a gate
/// dropped is watched until its token fires.
fn watch_token(
    id: u64,
    token: CancellationToken,
    returned: oneshot::Receiver<()>,
    events: mpsc::UnboundedSender<Event>,
) {
    tokio::spawn(async move {
        let returned = tokio::select! {
            biased;
            () = token.cancelled() => false,
            r = returned => r.is_ok(),
        };
        if returned {
            return;
        }
        token.cancelled().await;
        let _ = events.send(Event::TokenFired(id));
    });
}

async fn gate(
    state: &Arc<HostState>,
    events: &mpsc::UnboundedSender<Event>,
    id: u64,
    context: &CallContext,
) {
    let (tx, rx) = oneshot::channel();
    let early = {
        let mut slots = state.slots.lock().unwrap();
        match slots.remove(&id) {
            Some(Slot::Released) => true,
            _ => {
                slots.insert(id, Slot::Waiting(tx));
                false
            }
        }
    };
    let (returned_tx, returned_rx) = oneshot::channel();
    watch_token(
        id,
        context.cancellation.clone(),
        returned_rx,
        events.clone(),
    );
    let mut life = Life {
        id,
        events: events.clone(),
        returned: Some(returned_tx),
        ended: false,
    };
    let _ = events.send(Event::Started(id));
    if !early {
        let _ = rx.await;
    }
    life.ended = true;
}

/// The host's server, the test's side of it, and its events.
fn gated_host() -> (Server, Host, mpsc::UnboundedReceiver<Event>) {
    let tagged = json!({
        "type": "object",
        "properties": {"tag": {"type": "string", "maxLength": 32}},
        "required": ["tag"]
    });
    let catalog = Catalog::new()
        .tool(ToolSpec::new("gate", "Awaits its release.").with_input_schema(tagged.clone()))
        .tool(ToolSpec::new("echo", "Answers its tag.").with_input_schema(tagged.clone()))
        .tool(ToolSpec::new("fail", "A tool error.").with_input_schema(tagged.clone()))
        .tool(ToolSpec::new("boom", "Panics.").with_input_schema(tagged));
    let state = Arc::new(HostState::default());
    let (events_tx, events) = mpsc::unbounded_channel();
    let shared = state.clone();
    let config = ServerConfig::new(catalog).dispatch(move |call: ToolCall| {
        let (state, events) = (shared.clone(), events_tx.clone());
        async move {
            let _busy = Busy::enter(&state);
            let tag = call
                .arguments
                .get("tag")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned();
            match &*call.tool {
                "echo" => Ok(ToolOutput::text(tag)),
                "fail" => Err(ToolError::new("it failed")),
                "boom" => panic!("{INJECTED}"),
                "gate" => {
                    let id = tag.parse().unwrap_or(u64::MAX);
                    gate(&state, &events, id, &call.context).await;
                    Ok(ToolOutput::text(tag))
                }
                other => Err(ToolError::new(format!("no such tool {other}"))),
            }
        }
    });
    let server = Server::new(config).expect("the soak host's catalog is valid");
    (server, Host(state), events)
}

/// The host's events, gathered: what every gate did.
#[derive(Debug, Default)]
struct Books {
    started: BTreeSet<u64>,
    ended: BTreeSet<u64>,
    dropped: BTreeSet<u64>,
    fired: BTreeSet<u64>,
    /// Events seen twice for the same gate.
    twice: Vec<Event>,
}

impl Books {
    fn note(&mut self, event: Event) {
        let fresh = match event {
            Event::Started(id) => self.started.insert(id),
            Event::Ended(id) => self.ended.insert(id),
            Event::Dropped(id) => self.dropped.insert(id),
            Event::TokenFired(id) => self.fired.insert(id),
        };
        if !fresh {
            self.twice.push(event);
        }
    }

    /// Every started gate has ended one way or the other, and every dropped one's token fired.
    fn settled(&self) -> bool {
        self.started
            .iter()
            .all(|id| self.ended.contains(id) || self.dropped.contains(id))
            && self.dropped.iter().all(|id| self.fired.contains(id))
    }

    fn outstanding(&self) -> String {
        let running: Vec<_> = self
            .started
            .iter()
            .filter(|id| !self.ended.contains(id) && !self.dropped.contains(id))
            .take(20)
            .collect();
        let unfired: Vec<_> = self
            .dropped
            .iter()
            .filter(|id| !self.fired.contains(id))
            .take(20)
            .collect();
        format!(
            "{} started, {} ended, {} dropped, {} tokens fired; still running (first 20): \
             {running:?}; dropped without their token firing (first 20): {unfired:?}",
            self.started.len(),
            self.ended.len(),
            self.dropped.len(),
            self.fired.len()
        )
    }

    /// What the books say on their own: no event twice, no gate both returned and dropped,
    /// no end without a start.
    fn check(&self, v: &mut Vec<String>) {
        if !self.twice.is_empty() {
            v.push(format!("host events seen twice: {:?}", self.twice));
        }
        for id in self.ended.intersection(&self.dropped) {
            v.push(format!("gate {id} both returned and was dropped"));
        }
        for id in self.ended.union(&self.dropped) {
            if !self.started.contains(id) {
                v.push(format!("gate {id} ended without starting"));
            }
        }
    }
}

/// Reads host events until the books settle; fails if they do not.
async fn settle(books: &mut Books, events: &mut mpsc::UnboundedReceiver<Event>, label: &str) {
    let mut reads = 0usize;
    while !books.settled() {
        reads += 1;
        assert!(reads < 10_000_000, "{label}: the books never settle");
        match tokio::time::timeout(NEVER, events.recv()).await {
            Ok(Some(e)) => books.note(e),
            Ok(None) => panic!("{label}: the host's events ended"),
            Err(_) => panic!(
                "{label}: the host's books did not settle in {NEVER:?}: {}",
                books.outstanding()
            ),
        }
    }
    while let Ok(e) = events.try_recv() {
        books.note(e);
    }
}

// ---------------------------------------------------------------------------------------------
// What a request is, what came back, and what may come back.

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Kind {
    Echo,
    Fail,
    Boom,
    /// A gate the test releases.
    Release,
    /// A gate the test cancels once it has started (stdio).
    CancelStarted,
    /// A gate the test cancels at random before it knows it started (stdio).
    CancelEarly,
    /// A gate never released (the runtime's deadline ends it).
    Never,
    /// A gate whose connection or stream the test drops once it has started (HTTP).
    Disconnect,
}

impl Kind {
    fn tool(self) -> &'static str {
        match self {
            Kind::Echo => "echo",
            Kind::Fail => "fail",
            Kind::Boom => "boom",
            _ => "gate",
        }
    }

    fn is_gate(self) -> bool {
        !matches!(self, Kind::Echo | Kind::Fail | Kind::Boom)
    }
}

fn pick(rng: &mut Rng, weights: &[(Kind, u64)]) -> Kind {
    let total: u64 = weights.iter().map(|(_, w)| w).sum();
    let mut x = rng.next() % total;
    for &(kind, w) in weights {
        if x < w {
            return kind;
        }
        x -= w;
    }
    unreachable!("x < total")
}

/// What came back for a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Got {
    /// The result, with the request's tag.
    Tag,
    /// The tool error of `fail`.
    ToolError,
    /// The tool error of a host panic.
    Panic,
    /// -32603, `data.reason = "overloaded"`.
    Overloaded,
    /// -32603, `data.reason = "deadline"`.
    Deadline,
    /// Nothing (stdio).
    Unanswered,
    /// The test dropped the connection or the stream (HTTP).
    Disconnected,
}

/// The answer `v` to request `id`, classified.
fn classify(id: u64, v: &Value) -> Result<Got, String> {
    if v["id"].as_u64() != Some(id) {
        return Err(format!("the answer to {id} carries id {}: {v}", v["id"]));
    }
    if let Some(e) = v.get("error") {
        return match (e["code"].as_i64(), e["data"]["reason"].as_str()) {
            (Some(-32603), Some("overloaded")) => Ok(Got::Overloaded),
            (Some(-32603), Some("deadline")) => Ok(Got::Deadline),
            _ => Err(format!("an unexpected error for {id}: {v}")),
        };
    }
    let result = &v["result"];
    let is_error = result["isError"].as_bool().unwrap_or(false);
    match (is_error, result["content"][0]["text"].as_str()) {
        (false, Some(text)) if text == id.to_string() => Ok(Got::Tag),
        (true, Some("it failed")) => Ok(Got::ToolError),
        (true, Some("the tool failed")) => Ok(Got::Panic),
        _ => Err(format!("an unexpected answer for {id}: {v}")),
    }
}

/// One request as the test saw it end.
#[derive(Debug, Clone, Copy)]
struct Record {
    kind: Kind,
    /// The test released the gate (before cancelling it, if it did).
    released: bool,
    /// The test sent `notifications/cancelled` for it.
    cancelled: bool,
    got: Got,
}

/// What a request of its kind may get back. Under the runtime any call may be refused.
fn allowed(r: &Record, runtime: bool) -> Vec<Got> {
    let mut may = match r.kind {
        Kind::Echo => vec![Got::Tag],
        Kind::Fail => vec![Got::ToolError],
        Kind::Boom => vec![Got::Panic],
        // Released, then cancelled: the completion may win the race.
        Kind::Release if r.cancelled => vec![Got::Tag, Got::Unanswered],
        Kind::Release => vec![Got::Tag],
        Kind::CancelStarted | Kind::CancelEarly if r.cancelled => vec![Got::Unanswered],
        // Not cancelled: it was refused before it started (the runtime), or the test lost it.
        Kind::CancelStarted | Kind::CancelEarly => vec![],
        Kind::Never => vec![Got::Deadline],
        Kind::Disconnect => vec![Got::Disconnected],
    };
    if runtime {
        may.extend([Got::Overloaded, Got::Deadline]);
    }
    may
}

/// Reconciles every request with what it got and with the host's books.
fn reconcile(records: &BTreeMap<u64, Record>, books: &Books, runtime: bool, v: &mut Vec<String>) {
    books.check(v);
    for (&id, r) in records {
        let may = allowed(r, runtime);
        if !may.contains(&r.got) {
            v.push(format!("{id} ({r:?}) may get only {may:?}"));
        }
        let (started, ended, dropped) = (
            books.started.contains(&id),
            books.ended.contains(&id),
            books.dropped.contains(&id),
        );
        if !r.kind.is_gate() {
            if started {
                v.push(format!(
                    "{id} ({r:?}) is no gate, yet the host saw it as one"
                ));
            }
            continue;
        }
        let fine = match r.got {
            Got::Tag => started && ended && !books.fired.contains(&id),
            Got::Overloaded => !started,
            // Past its deadline (running or waiting); a host that returned just then raced it.
            Got::Deadline => !started || dropped || (ended && r.released),
            // Cancelled. On the bare transport a gate that returned was answered (both in one
            // poll of its task); under the runtime the answer of one that returned can be lost
            // to the cancellation, when the test released it first.
            Got::Unanswered => !started || dropped || (runtime && ended && r.released),
            Got::Disconnected => started && dropped && !ended,
            Got::ToolError | Got::Panic => false,
        };
        if !fine {
            v.push(format!(
                "{id} ({r:?}) disagrees with the host: started {started}, returned {ended}, \
                 dropped {dropped}, token fired {}",
                books.fired.contains(&id)
            ));
        }
        if ended && !r.released {
            v.push(format!("{id} ({r:?}) returned though never released"));
        }
        if !runtime && r.kind == Kind::Release && !r.cancelled && !ended {
            v.push(format!("{id} ({r:?}) was released but never returned"));
        }
    }
    for id in books.started.iter() {
        if !records.get(id).is_some_and(|r| r.kind.is_gate()) {
            v.push(format!("the host ran a gate {id} no request asked for"));
        }
    }
}

/// Counts by kind and outcome.
fn tally(records: &BTreeMap<u64, Record>) -> BTreeMap<(Kind, Got), usize> {
    let mut t = BTreeMap::new();
    for r in records.values() {
        *t.entry((r.kind, r.got)).or_insert(0) += 1;
    }
    t
}

fn count(t: &BTreeMap<(Kind, Got), usize>, f: impl Fn(Kind, Got) -> bool) -> usize {
    t.iter()
        .filter(|((k, g), _)| f(*k, *g))
        .map(|(_, n)| n)
        .sum()
}

/// Each path the mix makes all but certain at the default size was taken at least once. A
/// smaller run (`SOAK_CANCEL_SCALE` below 1) promises none of them: its coverage is printed.
fn check_coverage(label: &str, coverage: &[(&str, usize)], full: bool, v: &mut Vec<String>) {
    for (what, n) in coverage {
        if *n > 0 {
            continue;
        }
        if full {
            v.push(format!("the run never saw {what}"));
        } else {
            eprintln!("{label}: this run, below the default size, never saw {what}");
        }
    }
}

fn fail_with(label: &str, violations: &[String], summary: &str) {
    if violations.is_empty() {
        return;
    }
    let shown: Vec<_> = violations.iter().take(30).cloned().collect();
    panic!(
        "{label}: {} violation(s), first {}:\n  {}\n{summary}",
        violations.len(),
        shown.len(),
        shown.join("\n  ")
    );
}

// ---------------------------------------------------------------------------------------------
// The pool's counts.

/// What the runtime tests know of the answers, for the pool's counts.
struct Expect {
    /// Answers refused overloaded, deadline.
    overloaded: usize,
    deadline: usize,
    /// Gates that returned (the host's books).
    returned: usize,
    /// Echo tags, `fail` and `boom` tool errors.
    echo_tags: usize,
    fail_errors: usize,
    boom_errors: usize,
    /// Echo and `fail` calls, `boom` calls, answered `deadline`.
    quick_deadlines: usize,
    boom_deadlines: usize,
    /// The carrier's own terms for the callers that went away.
    gone: Gone,
}

enum Gone {
    /// stdio: `cancelled` lies between the cancelled gates that started and were dropped
    /// unanswered, and all unanswered calls.
    Stdio {
        started_dropped: usize,
        unanswered: usize,
    },
    /// HTTP: every disconnected call was cancelled or hit its deadline unread.
    Http { disconnected: usize },
}

impl Expect {
    fn check(&self, s: &PoolStats) -> Vec<String> {
        let mut v = Vec::new();
        let u = |n: u64| n as usize;
        if u(s.overloaded) != self.overloaded {
            v.push(format!(
                "pool overloaded {} != {} answers refused overloaded",
                s.overloaded, self.overloaded
            ));
        }
        match self.gone {
            Gone::Stdio {
                started_dropped,
                unanswered,
            } => {
                if u(s.deadlines) != self.deadline {
                    v.push(format!(
                        "pool deadlines {} != {} answers refused deadline",
                        s.deadlines, self.deadline
                    ));
                }
                if !(started_dropped..=unanswered).contains(&u(s.cancelled)) {
                    v.push(format!(
                        "pool cancelled {} outside [{started_dropped}, {unanswered}]",
                        s.cancelled
                    ));
                }
            }
            Gone::Http { disconnected } => {
                if u(s.deadlines + s.cancelled) != self.deadline + disconnected {
                    v.push(format!(
                        "pool deadlines {} + cancelled {} != {} answers refused deadline + {} \
                         disconnected",
                        s.deadlines, s.cancelled, self.deadline, disconnected
                    ));
                }
                if u(s.cancelled) > disconnected {
                    v.push(format!(
                        "pool cancelled {} > {disconnected} disconnected",
                        s.cancelled
                    ));
                }
            }
        }
        let answered = self.returned + self.echo_tags + self.fail_errors;
        let completed = u(s.completed);
        if !(answered..=answered + self.quick_deadlines).contains(&completed) {
            v.push(format!(
                "pool completed {completed} outside [{answered}, {}] ({} gates returned, {} \
                 echo tags, {} fail errors, {} echo/fail deadlines)",
                answered + self.quick_deadlines,
                self.returned,
                self.echo_tags,
                self.fail_errors,
                self.quick_deadlines
            ));
        }
        let panics = u(s.panics);
        if !(self.boom_errors..=self.boom_errors + self.boom_deadlines).contains(&panics) {
            v.push(format!(
                "pool panics {panics} outside [{}, {}]",
                self.boom_errors,
                self.boom_errors + self.boom_deadlines
            ));
        }
        v
    }
}

/// Waits until the pool is idle and its counts agree with `expect` (counters move on the
/// pool's tasks, a hair after the events the test saw); fails if they never do. The stats
/// are the only observable of this, so it polls, yielding between reads.
async fn pool_settled(rt: &ApplicationRef, expect: &Expect, label: &str) -> PoolStats {
    let settled = tokio::time::timeout(NEVER, async {
        loop {
            let s = rt.pool_stats();
            if s.overrunning == 0 && s.queued == 0 && expect.check(&s).is_empty() {
                return s;
            }
            tokio::task::yield_now().await;
        }
    })
    .await;
    match settled {
        Ok(s) => s,
        Err(_) => {
            let s = rt.pool_stats();
            let mut v = expect.check(&s);
            if s.overrunning != 0 || s.queued != 0 {
                v.push(format!("the pool is not idle: {s:?}"));
            }
            fail_with(label, &v, &format!("{s:?}"));
            // Settled just as the wait gave up.
            s
        }
    }
}

// ---------------------------------------------------------------------------------------------
// stdio.

/// One step of the stdio plan: a request, and what the test does beside it. Drawn from the
/// seed up front, so a seed replays the plan.
#[derive(Debug, Clone, Copy)]
struct StdioStep {
    kind: Kind,
    /// CancelEarly: cancel right after the request line, or this many steps later.
    cancel_now: bool,
    cancel_after: usize,
    /// Release: released before it can have started.
    release_now: bool,
    /// Beside the request: release a gate; release one and cancel it at once; a bogus
    /// cancellation of this class.
    release_one: bool,
    release_then_cancel: bool,
    bogus: Option<usize>,
    /// Echo calls sent right after it, past the window: under the runtime, more than the
    /// pool's workers and queue take, so some are refused `overloaded`.
    burst: usize,
}

const BOGUS: [&str; 12] = [
    "an id never sent",
    "the string form of an id in flight",
    "an id already answered",
    "the id of the next request",
    "an object",
    "an array",
    "a fraction",
    "null",
    "true",
    "a string over the id limit",
    "no requestId",
    "no params",
];

fn stdio_plan(rng: &mut Rng, n: usize, runtime: bool) -> Vec<StdioStep> {
    let mut weights = vec![
        (Kind::Echo, 34),
        (Kind::Fail, 8),
        (Kind::Boom, 6),
        (Kind::Release, 22),
        (Kind::CancelStarted, 16),
        (Kind::CancelEarly, 14),
    ];
    if runtime {
        weights.push((Kind::Never, 3));
    }
    // One burst in every block of steps, at a random place in it.
    let mut burst_at = 0;
    (0..n)
        .map(|i| {
            if i % STDIO_BURST_EVERY == 0 {
                burst_at = i + rng.below(STDIO_BURST_EVERY);
            }
            StdioStep {
                kind: pick(rng, &weights),
                cancel_now: rng.chance(50),
                cancel_after: 1 + rng.below(4),
                release_now: rng.chance(10),
                release_one: rng.chance(40),
                release_then_cancel: rng.chance(3),
                bogus: rng.chance(10).then(|| rng.below(BOGUS.len())),
                burst: if i == burst_at { 24 + rng.below(17) } else { 0 },
            }
        })
        .collect()
}

/// A request the stdio soak sent.
struct Call {
    kind: Kind,
    released: bool,
    cancelled: bool,
    answers: Vec<Value>,
}

/// The stdio soak: the test's end of one connection, and what it knows.
struct StdioSoak {
    label: String,
    runtime: bool,
    /// Which gate a release or a bogus cancellation picks (the plan's own draws are apart).
    rng: Rng,
    host: Host,
    /// Lines to the connection's writer task; `None` once the input is closed.
    lines: Option<mpsc::UnboundedSender<Vec<u8>>>,
    answers: mpsc::UnboundedReceiver<Value>,
    events: mpsc::UnboundedReceiver<Event>,
    books: Books,
    calls: BTreeMap<u64, Call>,
    /// Calls the test waits for: not answered yet, and not cancelled.
    open: BTreeSet<u64>,
    /// Release gates the test has not released yet (and not seen answered).
    unreleased: Vec<u64>,
    /// CancelStarted gates whose start the test waits for, to cancel them.
    await_start: BTreeSet<u64>,
    /// CancelEarly gates to cancel at a later step.
    early: Vec<(usize, u64)>,
    answered: Vec<u64>,
    /// Answers naming no id that was sent.
    strays: Vec<Value>,
    next_id: u64,
    bogus: BTreeMap<&'static str, usize>,
}

enum Next {
    Answer(Option<Value>),
    Event(Option<Event>),
}

impl StdioSoak {
    fn write(&self, v: &Value) {
        let mut line = serde_json::to_vec(v).expect("a JSON value encodes");
        line.push(b'\n');
        self.lines
            .as_ref()
            .expect("the input is still open")
            .send(line)
            .expect("the writer task runs");
    }

    fn send_call(&mut self, kind: Kind) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        self.write(&json!({
            "jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": kind.tool(), "arguments": {"tag": id.to_string()}}
        }));
        self.calls.insert(
            id,
            Call {
                kind,
                released: false,
                cancelled: false,
                answers: Vec::new(),
            },
        );
        match kind {
            // Cancelled within a few steps: not waited for.
            Kind::CancelEarly => {}
            Kind::CancelStarted => {
                self.open.insert(id);
                self.await_start.insert(id);
            }
            Kind::Release => {
                self.open.insert(id);
                self.unreleased.push(id);
            }
            _ => {
                self.open.insert(id);
            }
        }
        id
    }

    fn cancel(&mut self, id: u64) {
        self.write(&cancellation(Some(json!(id))));
        if let Some(call) = self.calls.get_mut(&id) {
            call.cancelled = true;
        }
        self.open.remove(&id);
        self.await_start.remove(&id);
    }

    fn release(&mut self, id: u64) {
        self.host.release(id);
        if let Some(call) = self.calls.get_mut(&id) {
            call.released = true;
        }
        self.unreleased.retain(|x| *x != id);
    }

    /// Takes one unreleased gate at random.
    fn take_unreleased(&mut self) -> Option<u64> {
        if self.unreleased.is_empty() {
            return None;
        }
        let at = self.rng.below(self.unreleased.len());
        Some(self.unreleased.swap_remove(at))
    }

    fn release_one(&mut self) {
        if let Some(id) = self.take_unreleased() {
            self.release(id);
        }
    }

    fn release_then_cancel(&mut self) {
        if let Some(id) = self.take_unreleased() {
            self.release(id);
            self.cancel(id);
        }
    }

    /// A cancellation that must change nothing.
    fn bogus_cancel(&mut self, class: usize) {
        let live = match self.open.len() {
            0 => self.next_id.saturating_sub(1),
            n => *self.open.iter().nth(self.rng.below(n)).expect("n > 0"),
        };
        let frame = match class {
            0 => cancellation(Some(json!(1_000_000_000 + self.rng.next() % 1_000_000))),
            1 => cancellation(Some(json!(live.to_string()))),
            2 => {
                let id = match self.answered.len() {
                    0 => 1_000_000_000,
                    n => self.answered[self.rng.below(n)],
                };
                cancellation(Some(json!(id)))
            }
            3 => cancellation(Some(json!(self.next_id))),
            4 => cancellation(Some(json!({ "id": live }))),
            5 => cancellation(Some(json!([live]))),
            6 => cancellation(Some(json!(live as f64 + 0.5))),
            7 => cancellation(Some(Value::Null)),
            8 => cancellation(Some(json!(true))),
            9 => cancellation(Some(json!("7".repeat(300)))),
            10 => cancellation(None),
            _ => json!({"jsonrpc": "2.0", "method": "notifications/cancelled"}),
        };
        self.write(&frame);
        *self.bogus.entry(BOGUS[class]).or_insert(0) += 1;
    }

    fn on_answer(&mut self, v: Value) {
        let Some(id) = v["id"].as_u64() else {
            self.strays.push(v);
            return;
        };
        let Some(call) = self.calls.get_mut(&id) else {
            self.strays.push(v);
            return;
        };
        call.answers.push(v);
        self.answered.push(id);
        self.open.remove(&id);
        self.await_start.remove(&id);
        self.unreleased.retain(|x| *x != id);
    }

    fn on_event(&mut self, e: Event) {
        self.books.note(e);
        if let Event::Started(id) = e {
            if self.await_start.contains(&id) {
                self.cancel(id);
            }
        }
    }

    /// Takes whatever has arrived, without waiting.
    fn drain(&mut self) {
        for _ in 0..1_000_000 {
            if let Ok(v) = self.answers.try_recv() {
                self.on_answer(v);
            } else if let Ok(e) = self.events.try_recv() {
                self.on_event(e);
            } else {
                return;
            }
        }
    }

    /// Waits for the next answer or host event.
    async fn wait_one(&mut self) {
        let (answers, events) = (&mut self.answers, &mut self.events);
        let next = tokio::time::timeout(NEVER, async {
            tokio::select! {
                a = answers.recv() => Next::Answer(a),
                e = events.recv() => Next::Event(e),
            }
        })
        .await;
        match next {
            Ok(Next::Answer(Some(v))) => self.on_answer(v),
            Ok(Next::Event(Some(e))) => self.on_event(e),
            Ok(Next::Answer(None)) => panic!("{}: the output ended early", self.label),
            Ok(Next::Event(None)) => panic!("{}: the host's events ended", self.label),
            Err(_) => panic!(
                "{}: no answer and no host event for {NEVER:?}; {}",
                self.label,
                self.state()
            ),
        }
    }

    fn state(&self) -> String {
        let open: Vec<_> = self
            .open
            .iter()
            .take(20)
            .map(|id| (id, self.calls[id].kind))
            .collect();
        let cancelled_running: Vec<_> = self
            .calls
            .iter()
            .filter(|(id, c)| {
                c.cancelled
                    && self.books.started.contains(id)
                    && !self.books.ended.contains(id)
                    && !self.books.dropped.contains(id)
            })
            .map(|(id, _)| id)
            .take(20)
            .collect();
        format!(
            "{} calls sent, {} waited for (first 20: {open:?}), {} unreleased; cancelled gates \
             still running (first 20): {cancelled_running:?}; books: {}",
            self.calls.len(),
            self.open.len(),
            self.unreleased.len(),
            self.books.outstanding()
        )
    }

    /// Waits until fewer than `window` calls are outstanding, releasing gates as it goes (the
    /// only thing nothing but the test will do).
    async fn make_room(&mut self, window: usize) {
        self.drain();
        let mut turns = 0usize;
        while self.open.len() >= window {
            turns += 1;
            assert!(
                turns < 1_000_000,
                "{}: no room: {}",
                self.label,
                self.state()
            );
            let others = self.open.len().saturating_sub(self.unreleased.len());
            if !self.unreleased.is_empty() && (others == 0 || self.rng.chance(50)) {
                self.release_one();
            } else {
                self.wait_one().await;
            }
            self.drain();
        }
    }

    async fn run(&mut self, plan: &[StdioStep], window: usize) {
        for (n, step) in plan.iter().enumerate() {
            self.make_room(window).await;
            let id = self.send_call(step.kind);
            match step.kind {
                Kind::CancelEarly if step.cancel_now => self.cancel(id),
                Kind::CancelEarly => self.early.push((n + step.cancel_after, id)),
                Kind::Release if step.release_now => self.release(id),
                _ => {}
            }
            if step.release_one {
                self.release_one();
            }
            if step.release_then_cancel {
                self.release_then_cancel();
            }
            if let Some(class) = step.bogus {
                self.bogus_cancel(class);
            }
            for _ in 0..step.burst {
                self.send_call(Kind::Echo);
            }
            let due: Vec<_> = self
                .early
                .iter()
                .filter(|(at, _)| *at <= n)
                .copied()
                .collect();
            self.early.retain(|(at, _)| *at > n);
            for (_, id) in due {
                self.cancel(id);
            }
            self.drain();
        }
        // The rest: cancel what is due, release what waits, take every answer.
        for (_, id) in std::mem::take(&mut self.early) {
            self.cancel(id);
        }
        for id in self.unreleased.clone() {
            self.release(id);
        }
        let mut turns = 0usize;
        while !self.open.is_empty() {
            turns += 1;
            assert!(turns < 10_000_000, "{}: {}", self.label, self.state());
            self.wait_one().await;
        }
        // Close the input: the connection answers what it has and ends its output, so every
        // answer it will ever write is read below.
        self.lines = None;
        loop {
            match tokio::time::timeout(NEVER, self.answers.recv()).await {
                Ok(Some(v)) => self.on_answer(v),
                Ok(None) => break,
                Err(_) => panic!(
                    "{}: the connection did not end in {NEVER:?} after its input closed; {}",
                    self.label,
                    self.state()
                ),
            }
        }
        settle(&mut self.books, &mut self.events, &self.label).await;
    }

    fn records(&self, v: &mut Vec<String>) -> BTreeMap<u64, Record> {
        for s in &self.strays {
            v.push(format!("an answer for no request sent: {s}"));
        }
        let mut records = BTreeMap::new();
        for (&id, call) in &self.calls {
            let got = match call.answers.as_slice() {
                [] => Got::Unanswered,
                [one] => match classify(id, one) {
                    Ok(got) => got,
                    Err(e) => {
                        v.push(e);
                        continue;
                    }
                },
                many => {
                    v.push(format!("{id} answered {} times: {many:?}", many.len()));
                    continue;
                }
            };
            records.insert(
                id,
                Record {
                    kind: call.kind,
                    released: call.released,
                    cancelled: call.cancelled,
                    got,
                },
            );
        }
        records
    }
}

/// A `notifications/cancelled` naming `request_id` (none: without a `requestId`).
fn cancellation(request_id: Option<Value>) -> Value {
    match request_id {
        Some(id) => json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                           "params": {"requestId": id, "reason": "soak"}}),
        None => json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                       "params": {"reason": "soak"}}),
    }
}

/// The test's end of a stdio connection: a writer task fed without waiting (the test never
/// blocks on a full pipe) and a reader task parsing each answer line.
fn stdio_client(
    client: DuplexStream,
) -> (
    mpsc::UnboundedSender<Vec<u8>>,
    mpsc::UnboundedReceiver<Value>,
) {
    let (read, mut write) = tokio::io::split(client);
    let (lines_tx, mut lines) = mpsc::unbounded_channel::<Vec<u8>>();
    tokio::spawn(async move {
        while let Some(mut batch) = lines.recv().await {
            while batch.len() < 1 << 16 {
                match lines.try_recv() {
                    Ok(more) => batch.extend(more),
                    Err(_) => break,
                }
            }
            if write.write_all(&batch).await.is_err() {
                return;
            }
        }
        let _ = write.shutdown().await;
    });
    let (answers_tx, answers) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        let mut lines = BufReader::new(read).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            let v = serde_json::from_str(&line)
                .unwrap_or_else(|e| json!({"unparsable": line, "error": e.to_string()}));
            if answers_tx.send(v).is_err() {
                return;
            }
        }
    });
    (lines_tx, answers)
}

async fn stdio_soak(runtime: bool) {
    quiet_injected_panics();
    let label = if runtime {
        "stdio under the runtime"
    } else {
        "stdio, bare transport"
    };
    let seed = seed(label);
    let mut plan_rng = Rng(seed);
    let (server, host, events) = gated_host();
    let (client, rt, served) = if runtime {
        let clients = Arc::new(Mutex::new(Vec::new()));
        let sink = clients.clone();
        let connect = move || {
            let (client, server) = tokio::io::duplex(1 << 16);
            sink.lock().unwrap().push(client);
            let (r, w) = tokio::io::split(server);
            StdioIo::new(BufReader::new(r), w)
        };
        let config = pool().stdio(connect, StdioOptions::default());
        let rt = Application::start(server, config)
            .await
            .expect("the runtime starts");
        let client = clients.lock().unwrap().remove(0);
        (client, Some(rt), None)
    } else {
        let (client, server_end) = tokio::io::duplex(1 << 16);
        let (r, w) = tokio::io::split(server_end);
        let served = tokio::spawn(stdio::serve(
            server,
            BufReader::new(r),
            w,
            StdioOptions::default(),
        ));
        (client, None, Some(served))
    };
    let (lines, answers) = stdio_client(client);
    let (n, window) = if runtime {
        (scaled(STDIO_RUNTIME_CALLS), STDIO_RUNTIME_WINDOW)
    } else {
        (scaled(STDIO_BARE_CALLS), STDIO_BARE_WINDOW)
    };
    let plan = stdio_plan(&mut plan_rng, n, runtime);
    let full = n
        >= if runtime {
            STDIO_RUNTIME_CALLS
        } else {
            STDIO_BARE_CALLS
        };
    let mut soak = StdioSoak {
        label: label.to_owned(),
        runtime,
        rng: Rng(seed.rotate_left(17) ^ 0xA5A5_A5A5_5A5A_5A5A),
        host: host.clone(),
        lines: Some(lines),
        answers,
        events,
        books: Books::default(),
        calls: BTreeMap::new(),
        open: BTreeSet::new(),
        unreleased: Vec::new(),
        await_start: BTreeSet::new(),
        early: Vec::new(),
        answered: Vec::new(),
        strays: Vec::new(),
        next_id: 1,
        bogus: BTreeMap::new(),
    };
    soak.run(&plan, window).await;
    if let Some(served) = served {
        let ended = tokio::time::timeout(NEVER, served)
            .await
            .expect("stdio::serve returned after EOF")
            .expect("the serving task did not panic");
        assert!(ended.is_ok(), "{label}: serve ended with {ended:?}");
    }

    let mut v = Vec::new();
    let records = soak.records(&mut v);
    reconcile(&records, &soak.books, soak.runtime, &mut v);
    let t = tally(&records);
    let most = host.most_at_once();
    let bound = if runtime {
        WORKERS
    } else {
        DEFAULT_MAX_IN_FLIGHT
    };
    if most > bound {
        v.push(format!("the host saw {most} calls at once, over {bound}"));
    }
    // Cancelled gates that started, were never released and got no answer: only their
    // cancellation can have ended them.
    let cancelled_dropped = records
        .iter()
        .filter(|(id, r)| {
            r.cancelled
                && !r.released
                && r.got == Got::Unanswered
                && soak.books.started.contains(id)
                && soak.books.dropped.contains(id)
        })
        .count();
    let mut coverage = vec![
        (
            "an echo answered its tag",
            count(&t, |k, g| k == Kind::Echo && g == Got::Tag),
        ),
        (
            "a fail answered a tool error",
            count(&t, |_, g| g == Got::ToolError),
        ),
        (
            "a boom answered a tool error",
            count(&t, |_, g| g == Got::Panic),
        ),
        (
            "a released gate answered its tag",
            count(&t, |k, g| k == Kind::Release && g == Got::Tag),
        ),
        (
            "a gate cancelled after it started, dropped unanswered",
            cancelled_dropped,
        ),
        (
            "a gate cancelled before it was known to start, unanswered",
            count(&t, |k, g| k == Kind::CancelEarly && g == Got::Unanswered),
        ),
        ("a bogus cancellation", soak.bogus.values().sum()),
    ];
    if runtime {
        coverage.push((
            "a never-released gate answered deadline",
            count(&t, |k, g| k == Kind::Never && g == Got::Deadline),
        ));
        coverage.push((
            "a call refused overloaded",
            count(&t, |_, g| g == Got::Overloaded),
        ));
    }
    check_coverage(label, &coverage, full, &mut v);
    let mut summary = format!(
        "{label}: {} calls, window {window}; outcomes by kind: {t:?}; bogus cancellations: \
         {:?}; host: {} gates started, {} returned, {} dropped, {} tokens fired, most at once \
         {most}",
        records.len(),
        soak.bogus,
        soak.books.started.len(),
        soak.books.ended.len(),
        soak.books.dropped.len(),
        soak.books.fired.len(),
    );
    if let Some(rt) = rt {
        let unanswered = count(&t, |_, g| g == Got::Unanswered);
        let expect = Expect {
            overloaded: count(&t, |_, g| g == Got::Overloaded),
            deadline: count(&t, |_, g| g == Got::Deadline),
            returned: soak.books.ended.len(),
            echo_tags: count(&t, |k, g| k == Kind::Echo && g == Got::Tag),
            fail_errors: count(&t, |_, g| g == Got::ToolError),
            boom_errors: count(&t, |_, g| g == Got::Panic),
            quick_deadlines: count(&t, |k, g| {
                matches!(k, Kind::Echo | Kind::Fail) && g == Got::Deadline
            }),
            boom_deadlines: count(&t, |k, g| k == Kind::Boom && g == Got::Deadline),
            gone: Gone::Stdio {
                started_dropped: cancelled_dropped,
                unanswered,
            },
        };
        let stats = if v.is_empty() {
            pool_settled(&rt, &expect, label).await
        } else {
            rt.pool_stats()
        };
        summary.push_str(&format!("; pool: {stats:?}"));
        rt.stop(Duration::from_secs(10))
            .await
            .expect("the runtime stops");
    }
    eprintln!("{summary}");
    fail_with(label, &v, &summary);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn stdio_bare_transport_answers_or_cancels_every_request_once() {
    stdio_soak(false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn stdio_under_the_runtime_answers_refuses_or_cancels_every_request_once() {
    stdio_soak(true).await;
}

// ---------------------------------------------------------------------------------------------
// HTTP.

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Proto {
    H1,
    H2,
}

#[derive(Debug, Clone, Copy)]
struct HttpStep {
    id: u64,
    kind: Kind,
    proto: Proto,
    /// Release: released before it can have started.
    release_now: bool,
    /// Which h2 connection carries it.
    h2: usize,
    /// Part of a burst, sent past the window: under the runtime, more at once than the
    /// pool's workers and queue take, so some are refused `overloaded`.
    burst: bool,
}

/// What an HTTP exchange came to.
#[derive(Debug)]
enum Outcome {
    Response(u16, Value),
    Disconnected,
    Failed(String),
}

fn http_request(addr: SocketAddr, proto: Proto, id: u64, tool: &str) -> Request<Full<Bytes>> {
    let mut body = rpc(
        "tools/call",
        json!({"name": tool, "arguments": {"tag": id.to_string()}}),
    );
    body["id"] = json!(id);
    let b = match proto {
        Proto::H1 => Request::post("/mcp").header("host", addr.to_string()),
        Proto::H2 => Request::post(format!("http://{addr}/mcp")).version(http::Version::HTTP_2),
    };
    let mut b = b
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream");
    for (k, v) in mcp_headers(&body) {
        b = b.header(k, v);
    }
    b.body(Full::new(Bytes::from(
        serde_json::to_vec(&body).expect("a JSON value encodes"),
    )))
    .expect("a valid request")
}

async fn read_response<F>(response: F) -> Outcome
where
    F: Future<Output = hyper::Result<hyper::Response<hyper::body::Incoming>>>,
{
    let response = match response.await {
        Ok(r) => r,
        Err(e) => return Outcome::Failed(format!("no response: {e}")),
    };
    let status = response.status().as_u16();
    match response.into_body().collect().await {
        Ok(body) => match serde_json::from_slice(&body.to_bytes()) {
            Ok(v) => Outcome::Response(status, v),
            Err(e) => Outcome::Failed(format!("status {status}, a body that is no JSON: {e}")),
        },
        Err(e) => Outcome::Failed(format!("status {status}, the body broke off: {e}")),
    }
}

/// One HTTP/1.1 request on a connection of its own. Told that its gate started, it drops the
/// connection: the task that owns the `TcpStream` is aborted and awaited, so the stream is
/// closed when this returns.
async fn h1_exchange(
    addr: SocketAddr,
    req: Request<Full<Bytes>>,
    started: Option<oneshot::Receiver<()>>,
) -> Outcome {
    let stream = match TcpStream::connect(addr).await {
        Ok(s) => s,
        Err(e) => return Outcome::Failed(format!("connect: {e}")),
    };
    let _ = stream.set_nodelay(true);
    let (mut tx, conn) = match hyper::client::conn::http1::handshake(TokioIo::new(stream)).await {
        Ok(pair) => pair,
        Err(e) => return Outcome::Failed(format!("handshake: {e}")),
    };
    let mut conn = tokio::spawn(conn);
    let response = read_response(tx.send_request(req));
    let Some(started) = started else {
        return response.await;
    };
    tokio::select! {
        biased;
        outcome = response => outcome,
        Ok(()) = started => {
            conn.abort();
            let _ = (&mut conn).await;
            Outcome::Disconnected
        }
    }
}

/// One request on a shared h2 connection. Told that its gate started, it aborts the task
/// holding hyper's response future, which resets the stream.
async fn h2_exchange(
    mut tx: SendRequest<Full<Bytes>>,
    req: Request<Full<Bytes>>,
    started: Option<oneshot::Receiver<()>>,
) -> Outcome {
    if let Err(e) = tx.ready().await {
        return Outcome::Failed(format!("the h2 connection is gone: {e}"));
    }
    let mut response = tokio::spawn(read_response(tx.send_request(req)));
    let joined = match started {
        None => response.await,
        Some(started) => tokio::select! {
            biased;
            joined = &mut response => joined,
            Ok(()) = started => {
                response.abort();
                let _ = (&mut response).await;
                return Outcome::Disconnected;
            }
        },
    };
    joined.unwrap_or_else(|e| Outcome::Failed(format!("the response task: {e}")))
}

async fn h2_connection(addr: SocketAddr) -> SendRequest<Full<Bytes>> {
    let stream = TcpStream::connect(addr).await.expect("connect");
    // A reset is a small frame after the request's: Nagle would hold it back.
    stream.set_nodelay(true).expect("nodelay");
    let (tx, conn) =
        hyper::client::conn::http2::handshake(TokioExecutor::new(), TokioIo::new(stream))
            .await
            .expect("h2 handshake");
    tokio::spawn(conn);
    tx
}

enum HttpNext {
    Event(Event),
    Joined(Result<(u64, Outcome), tokio::task::JoinError>),
}

async fn http_soak(runtime: bool) {
    quiet_injected_panics();
    let label = if runtime {
        "HTTP under the runtime"
    } else {
        "HTTP, bare transport"
    };
    let seed = seed(label);
    let mut rng = Rng(seed);
    let (server, host, mut events) = gated_host();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
    let addr = listener.local_addr().expect("a bound address");
    let service = HttpService::new(server.clone(), |_| Ok(()), AllowedOrigins::Any).path("/mcp");
    let rt = if runtime {
        let config = pool().http(listener, service, ServeOptions::default());
        Some(
            Application::start(server, config)
                .await
                .expect("the runtime starts"),
        )
    } else {
        listener.set_nonblocking(true).expect("nonblocking");
        let listener = tokio::net::TcpListener::from_std(listener).expect("a tokio listener");
        tokio::spawn(beam_mcp::transport::http::serve(listener, service));
        None
    };
    let mut h2 = Vec::new();
    for _ in 0..H2_CONNECTIONS {
        h2.push(h2_connection(addr).await);
    }

    let mut weights = vec![
        (Kind::Echo, 30),
        (Kind::Fail, 10),
        (Kind::Boom, 10),
        (Kind::Release, 20),
        (Kind::Disconnect, 22),
    ];
    if runtime {
        weights.push((Kind::Never, 8));
    }
    let n = scaled(HTTP_CALLS);
    let full = n >= HTTP_CALLS;
    // One burst of 16 to 24 requests in every block, at a random place in it.
    let mut burst = 0..0;
    let plan: Vec<HttpStep> = (0..n)
        .map(|i| {
            if i % HTTP_BURST_EVERY == 0 {
                let start = i + rng.below(HTTP_BURST_EVERY - 24);
                burst = start..start + 16 + rng.below(9);
            }
            HttpStep {
                id: i as u64 + 1,
                kind: pick(&mut rng, &weights),
                proto: if rng.chance(50) { Proto::H1 } else { Proto::H2 },
                release_now: rng.chance(25),
                h2: rng.below(H2_CONNECTIONS),
                burst: burst.contains(&i),
            }
        })
        .collect();
    let by_id: HashMap<u64, HttpStep> = plan.iter().map(|s| (s.id, *s)).collect();
    let window = if runtime {
        HTTP_RUNTIME_WINDOW
    } else {
        HTTP_BARE_WINDOW
    };

    let mut books = Books::default();
    let mut tasks = JoinSet::new();
    let mut signals: HashMap<u64, oneshot::Sender<()>> = HashMap::new();
    let mut outcomes: BTreeMap<u64, Outcome> = BTreeMap::new();
    let mut released = BTreeSet::new();
    let mut next = 0usize;
    let mut turns = 0usize;
    loop {
        while next < plan.len() && (tasks.len() < window || plan[next].burst) {
            let step = plan[next];
            next += 1;
            if step.kind == Kind::Release && step.release_now {
                host.release(step.id);
                released.insert(step.id);
            }
            let started = (step.kind == Kind::Disconnect).then(|| {
                let (tx, rx) = oneshot::channel();
                signals.insert(step.id, tx);
                rx
            });
            let req = http_request(addr, step.proto, step.id, step.kind.tool());
            let conn = h2[step.h2].clone();
            tasks.spawn(async move {
                let outcome = match step.proto {
                    Proto::H1 => h1_exchange(addr, req, started).await,
                    Proto::H2 => h2_exchange(conn, req, started).await,
                };
                (step.id, outcome)
            });
        }
        if tasks.is_empty() {
            break;
        }
        turns += 1;
        assert!(turns < 10_000_000, "{label}: the exchanges never end");
        let got = tokio::time::timeout(NEVER, async {
            tokio::select! {
                Some(e) = events.recv() => HttpNext::Event(e),
                Some(j) = tasks.join_next() => HttpNext::Joined(j),
            }
        })
        .await;
        match got {
            Ok(HttpNext::Event(e)) => {
                books.note(e);
                if let Event::Started(id) = e {
                    match by_id.get(&id).map(|s| s.kind) {
                        Some(Kind::Release) if released.insert(id) => host.release(id),
                        Some(Kind::Disconnect) => {
                            if let Some(tx) = signals.remove(&id) {
                                let _ = tx.send(());
                            }
                        }
                        _ => {}
                    }
                }
            }
            Ok(HttpNext::Joined(j)) => {
                let (id, outcome) = j.expect("an exchange task panicked");
                signals.remove(&id);
                outcomes.insert(id, outcome);
            }
            Err(_) => panic!(
                "{label}: no response and no host event for {NEVER:?}; {} exchanges running, \
                 {} done; books: {}",
                tasks.len(),
                outcomes.len(),
                books.outstanding()
            ),
        }
    }
    settle(&mut books, &mut events, label).await;
    drop(h2);

    let mut v = Vec::new();
    let mut records = BTreeMap::new();
    let mut by_proto: BTreeMap<(Proto, Got), usize> = BTreeMap::new();
    for (&id, outcome) in &outcomes {
        let step = by_id[&id];
        let got = match outcome {
            Outcome::Disconnected => Got::Disconnected,
            Outcome::Failed(e) => {
                v.push(format!("{id} ({:?} over {:?}): {e}", step.kind, step.proto));
                continue;
            }
            Outcome::Response(status, body) => match classify(id, body) {
                Ok(got) => {
                    let want = match got {
                        Got::Overloaded | Got::Deadline => 500,
                        _ => 200,
                    };
                    if *status != want {
                        v.push(format!("{id}: status {status} for {got:?} (want {want})"));
                    }
                    got
                }
                Err(e) => {
                    v.push(e);
                    continue;
                }
            },
        };
        *by_proto.entry((step.proto, got)).or_insert(0) += 1;
        records.insert(
            id,
            Record {
                kind: step.kind,
                released: released.contains(&id),
                cancelled: false,
                got,
            },
        );
    }
    if outcomes.len() != plan.len() {
        v.push(format!(
            "{} exchanges ended, {} were started",
            outcomes.len(),
            plan.len()
        ));
    }
    reconcile(&records, &books, runtime, &mut v);
    let t = tally(&records);
    let most = host.most_at_once();
    if runtime && most > WORKERS {
        v.push(format!("the host saw {most} calls at once, over {WORKERS}"));
    }
    let mut coverage = vec![
        (
            "an echo answered its tag",
            count(&t, |k, g| k == Kind::Echo && g == Got::Tag),
        ),
        (
            "a fail answered a tool error",
            count(&t, |_, g| g == Got::ToolError),
        ),
        (
            "a boom answered a tool error",
            count(&t, |_, g| g == Got::Panic),
        ),
        (
            "an HTTP/1.1 request disconnected",
            by_proto
                .get(&(Proto::H1, Got::Disconnected))
                .copied()
                .unwrap_or(0),
        ),
        (
            "an h2 stream reset",
            by_proto
                .get(&(Proto::H2, Got::Disconnected))
                .copied()
                .unwrap_or(0),
        ),
    ];
    if runtime {
        coverage.push((
            "a never-released gate answered deadline",
            count(&t, |k, g| k == Kind::Never && g == Got::Deadline),
        ));
        coverage.push((
            "a call refused overloaded",
            count(&t, |_, g| g == Got::Overloaded),
        ));
    } else {
        coverage.push((
            "a released gate answered its tag",
            count(&t, |k, g| k == Kind::Release && g == Got::Tag),
        ));
    }
    check_coverage(label, &coverage, full, &mut v);
    let mut summary = format!(
        "{label}: {} requests, window {window}; outcomes by kind: {t:?}; by protocol: \
         {by_proto:?}; host: {} gates started, {} returned, {} dropped, {} tokens fired, most \
         at once {most}",
        records.len(),
        books.started.len(),
        books.ended.len(),
        books.dropped.len(),
        books.fired.len(),
    );
    if let Some(rt) = rt {
        let expect = Expect {
            overloaded: count(&t, |_, g| g == Got::Overloaded),
            deadline: count(&t, |_, g| g == Got::Deadline),
            returned: books.ended.len(),
            echo_tags: count(&t, |k, g| k == Kind::Echo && g == Got::Tag),
            fail_errors: count(&t, |_, g| g == Got::ToolError),
            boom_errors: count(&t, |_, g| g == Got::Panic),
            quick_deadlines: count(&t, |k, g| {
                matches!(k, Kind::Echo | Kind::Fail) && g == Got::Deadline
            }),
            boom_deadlines: count(&t, |k, g| k == Kind::Boom && g == Got::Deadline),
            gone: Gone::Http {
                disconnected: count(&t, |_, g| g == Got::Disconnected),
            },
        };
        let stats = if v.is_empty() {
            pool_settled(&rt, &expect, label).await
        } else {
            rt.pool_stats()
        };
        // Every request reached the pool (a disconnect waits for the gate's start): each is
        // counted once, plus once more where a host returned just as its deadline passed
        // (`raced`: released gates that returned yet were answered deadline; echo, fail and
        // boom calls leave no trace of it, so they only widen the bound).
        let sum =
            (stats.completed + stats.panics + stats.deadlines + stats.overloaded + stats.cancelled)
                as usize;
        let raced = records
            .iter()
            .filter(|(id, r)| r.got == Got::Deadline && books.ended.contains(id))
            .count();
        let widest = raced + expect.quick_deadlines + expect.boom_deadlines;
        let requests = records.len();
        if v.is_empty() && !(requests + raced..=requests + widest).contains(&sum) {
            v.push(format!(
                "completed + panics + deadlines + overloaded + cancelled = {sum}, outside \
                 [{}, {}] for {requests} requests",
                requests + raced,
                requests + widest
            ));
        }
        summary.push_str(&format!(
            "; pool: {stats:?}, completed + panics + deadlines + overloaded + cancelled = \
             {sum} for {requests} requests ({raced} released gates returned as their deadline \
             passed)"
        ));
        rt.stop(Duration::from_secs(10))
            .await
            .expect("the runtime stops");
    }
    eprintln!("{summary}");
    fail_with(label, &v, &summary);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn http_bare_transport_answers_every_request_once_or_drops_its_work() {
    http_soak(false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn http_under_the_runtime_answers_refuses_or_drops_every_request_once() {
    http_soak(true).await;
}
