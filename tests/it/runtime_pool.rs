//! The dispatch pool, ordered by events the host reports (`support::gate`), never by sleeping:
//! `workers` bounds the host calls running at once, a host blocking its thread past its
//! deadline included; panics and deadlines answer the caller; a caller that goes away cancels
//! its call (the host's future dropped, its token fired, its slot back) or, still queued, gives
//! its place back and never reaches the host; a full queue refuses; a pool that goes answers
//! whoever waits.

use crate::support::gate::{self, Event, Gates};

use beam_mcp::runtime::{
    Application, ApplicationConfig, ApplicationRef, DispatchResult, RUNTIME_REFUSAL_CODE,
};
use beam_mcp::{Answer, Carrier, Unserved};
use serde_json::{json, Value};
use std::time::Duration;

const STOP: Duration = Duration::from_secs(5);

async fn start(config: ApplicationConfig) -> (ApplicationRef, Gates) {
    let (server, gates) = gate::host();
    let rt = Application::start(server, config)
        .await
        .expect("the runtime starts");
    (rt, gates)
}

/// A call of `tool` tagged `tag`, on a task of its own (its caller).
fn call(rt: &ApplicationRef, tool: &str, tag: &str) -> tokio::task::JoinHandle<DispatchResult> {
    let (rt, tool, tag) = (rt.clone(), tool.to_owned(), tag.to_owned());
    tokio::spawn(async move { rt.dispatch(&tool, json!({ "tag": tag })).await })
}

/// Waits until the pool's stats satisfy `check`. The stats are the only observable of what
/// this waits for (a slot handed back as a task ends), so it polls, yielding between reads;
/// the bound is a safety net, not a timing assertion.
async fn until(rt: &ApplicationRef, check: impl Fn(&beam_mcp::runtime::PoolStats) -> bool) {
    let waited = tokio::time::timeout(Duration::from_secs(60), async {
        while !check(&rt.pool_stats()) {
            tokio::task::yield_now().await;
        }
    })
    .await;
    assert!(
        waited.is_ok(),
        "the pool never got there: {:?}",
        rt.pool_stats()
    );
}

/// With one worker held by the call `busy` and a queue of one that a caller just left: the
/// place is free again, so a call waits in it (rather than being refused) and runs once `busy`
/// ends.
async fn the_freed_place_serves(
    rt: &ApplicationRef,
    gates: &Gates,
    busy: tokio::task::JoinHandle<DispatchResult>,
) {
    let next = call(rt, "gate", "next");
    until(rt, |s| s.queued == 1).await;
    gates.release("busy");
    gates.release("next");
    assert_eq!(texts(busy.await.unwrap()), ["busy"]);
    assert_eq!(texts(next.await.unwrap()), ["next"]);
}

fn texts(r: DispatchResult) -> Vec<String> {
    r.expect("answered")
        .texts()
        .iter()
        .map(|s| s.to_string())
        .collect()
}

/// The bound holds against a host that blocks its thread past its deadline: its slot is held
/// until it returns (counted as overrunning), calls meanwhile are refused, and its late return
/// hands back exactly its own slot. The host counts what runs at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn workers_bound_the_host_calls_running_at_once_a_blocked_host_included() {
    let (rt, mut gates) = start(
        ApplicationConfig::new()
            .workers(2)
            .queue(0)
            .deadline(Duration::from_millis(100)),
    )
    .await;
    let blocked = [call(&rt, "hold", "h1"), call(&rt, "hold", "h2")];
    gates.saw(Event::Started("h1".into())).await;
    gates.saw(Event::Started("h2".into())).await;
    for caller in blocked {
        let err = caller.await.unwrap().unwrap_err();
        assert!(err.is_deadline(), "{err}");
        assert_eq!(err.code(), RUNTIME_REFUSAL_CODE);
    }
    let stats = rt.pool_stats();
    assert_eq!((stats.overrunning, stats.deadlines), (2, 2), "{stats:?}");
    // Both slots are held by the blocked hosts: four more calls find none and never start.
    for i in 0..4 {
        let err = rt
            .dispatch("gate", json!({"tag": format!("g{i}")}))
            .await
            .unwrap_err();
        assert!(err.is_overloaded(), "{err}");
    }
    assert_eq!(gates.starts(), 2);
    gates.release("h1");
    gates.release("h2");
    gates.saw(Event::Ended("h1".into())).await;
    gates.saw(Event::Ended("h2".into())).await;
    until(&rt, |s| s.overrunning == 0).await;
    // The late returns handed back their own slots and no more: two calls run, a third is
    // refused.
    let running = [call(&rt, "gate", "a"), call(&rt, "gate", "b")];
    gates.saw(Event::Started("a".into())).await;
    gates.saw(Event::Started("b".into())).await;
    let err = rt.dispatch("gate", json!({"tag": "c"})).await.unwrap_err();
    assert!(err.is_overloaded(), "{err}");
    gates.release("a");
    gates.release("b");
    for (caller, tag) in running.into_iter().zip(["a", "b"]) {
        assert_eq!(texts(caller.await.unwrap()), [tag]);
    }
    assert_eq!(
        gates.most_at_once(),
        2,
        "the host saw more calls at once than workers"
    );
    assert_eq!(gates.starts(), 4);
    rt.stop(STOP).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_panicking_tool_answers_a_tool_error_and_its_slot_comes_back() {
    let (rt, _gates) = start(ApplicationConfig::new().workers(1).queue(0)).await;
    for round in 1..=4 {
        let reply = rt.dispatch("boom", json!({})).await.expect("answered");
        assert!(reply.is_error());
        assert_eq!(reply.texts(), ["the tool failed"]);
        // Counted before the answer, and the one slot is back: the next call runs.
        let stats = rt.pool_stats();
        assert_eq!((stats.panics, stats.worker_restarts), (round, round));
    }
    assert_eq!(
        texts(rt.dispatch("echo", json!({"tag": "still here"})).await),
        ["still here"]
    );
    // The pool replaced its workers itself: the pool actor was never restarted.
    assert_eq!(
        rt.root().restart_count("dispatch_pool").await.unwrap(),
        Some(0)
    );
    rt.stop(STOP).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_tool_error_costs_no_worker() {
    let (rt, _gates) = start(ApplicationConfig::new().workers(1)).await;
    let reply = rt.dispatch("fail", json!({})).await.expect("answered");
    assert!(reply.is_error());
    assert_eq!(reply.texts(), ["it failed"]);
    let stats = rt.pool_stats();
    assert_eq!((stats.worker_restarts, stats.completed), (0, 1));
    rt.stop(STOP).await.unwrap();
}

/// Past its deadline an awaiting host is answered `deadline`, its token fires, its future is
/// dropped and its slot returns.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_call_past_the_deadline_is_refused_cancelled_and_its_slot_returned() {
    let (rt, mut gates) = start(
        ApplicationConfig::new()
            .workers(1)
            .queue(1)
            .deadline(Duration::from_millis(100)),
    )
    .await;
    let err = rt
        .dispatch("gate", json!({"tag": "late"}))
        .await
        .unwrap_err();
    assert!(err.is_deadline(), "{err}");
    gates.saw(Event::TokenFired("late".into())).await;
    gates.saw(Event::Dropped("late".into())).await;
    until(&rt, |s| s.overrunning == 0).await;
    let stats = rt.pool_stats();
    assert_eq!((stats.deadlines, stats.cancelled), (1, 0), "{stats:?}");
    assert_eq!(
        texts(rt.dispatch("echo", json!({"tag": "next"})).await),
        ["next"]
    );
    rt.stop(STOP).await.unwrap();
}

/// A caller that goes away cancels its call: the host's future is dropped, its token fires,
/// and the one worker serves the next call. No deadline is near: only the cancellation can
/// end the call.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_caller_that_goes_away_cancels_its_call() {
    let (rt, mut gates) = start(
        ApplicationConfig::new()
            .workers(1)
            .queue(1)
            .deadline(Duration::from_secs(3600)),
    )
    .await;
    let caller = call(&rt, "gate", "left");
    gates.saw(Event::Started("left".into())).await;
    caller.abort();
    gates.saw(Event::TokenFired("left".into())).await;
    gates.saw(Event::Dropped("left".into())).await;
    until(&rt, |s| s.overrunning == 0).await;
    let stats = rt.pool_stats();
    assert_eq!(
        (stats.cancelled, stats.completed, stats.deadlines),
        (1, 0, 0)
    );
    assert_eq!(
        texts(rt.dispatch("echo", json!({"tag": "next"})).await),
        ["next"]
    );
    rt.stop(STOP).await.unwrap();
}

/// A caller that goes away while its call waits for a slot gives its place in the queue back,
/// and its host work never starts.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_queued_caller_that_goes_away_frees_its_place_and_never_reaches_the_host() {
    let (rt, mut gates) = start(ApplicationConfig::new().workers(1).queue(1)).await;
    let busy = call(&rt, "gate", "busy");
    gates.saw(Event::Started("busy".into())).await;
    let queued = call(&rt, "gate", "queued");
    until(&rt, |s| s.queued == 1).await;
    queued.abort();
    until(&rt, |s| s.queued == 0).await;
    assert_eq!(rt.pool_stats().cancelled, 1);
    the_freed_place_serves(&rt, &gates, busy).await;
    assert_eq!(gates.starts(), 2, "the cancelled call reached the host");
    assert!(!gates.has_seen(&Event::Started("queued".into())));
    rt.stop(STOP).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_full_queue_refuses_at_once_with_overloaded() {
    let (rt, mut gates) = start(ApplicationConfig::new().workers(1).queue(1)).await;
    let busy = call(&rt, "gate", "busy");
    gates.saw(Event::Started("busy".into())).await;
    let queued = call(&rt, "gate", "queued");
    until(&rt, |s| s.queued == 1).await;

    let err = rt
        .dispatch("gate", json!({"tag": "third"}))
        .await
        .unwrap_err();
    assert!(err.is_overloaded(), "{err}");
    // Over the wire too: a JSON-RPC error, not a hang.
    let frame = serde_json::to_vec(&json!({
        "jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": "gate", "arguments": {"tag": "wire"}}
    }))
    .unwrap();
    let Answer::Reply(reply) = rt.answer(&frame, Carrier::Stdio).await else {
        panic!("a tools/call is answered")
    };
    let wire: Value = serde_json::from_slice(reply.bytes()).unwrap();
    assert_eq!(wire["id"], 7);
    assert_eq!(wire["error"]["code"], -32603);
    assert_eq!(wire["error"]["data"]["reason"], "overloaded");

    // What was accepted is answered.
    gates.release("busy");
    gates.release("queued");
    assert_eq!(texts(busy.await.unwrap()), ["busy"]);
    assert_eq!(texts(queued.await.unwrap()), ["queued"]);
    assert_eq!(rt.pool_stats().overloaded, 2);
    assert_eq!(gates.starts(), 2);
    rt.stop(STOP).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_pool_that_goes_answers_the_waiting_and_finishes_the_running() {
    let (rt, mut gates) = start(ApplicationConfig::new().workers(1).queue(4)).await;
    let running = call(&rt, "gate", "running");
    gates.saw(Event::Started("running".into())).await;
    let waiting = call(&rt, "gate", "waiting");
    until(&rt, |s| s.queued == 1).await;
    rt.pool_actor().expect("the pool runs").kill();
    let err = waiting.await.unwrap().unwrap_err();
    assert_eq!(err.reason(), Some(Unserved::ShuttingDown), "{err}");
    assert!(err.is_unavailable());
    gates.release("running");
    assert_eq!(texts(running.await.unwrap()), ["running"]);
    rt.stop(STOP).await.unwrap();
}

/// A pool restarted while a host blocks its thread does not hand out that host's slot again:
/// the bound holds across the pool's lives.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_restarted_pool_keeps_the_slot_of_a_host_still_running() {
    let (rt, mut gates) = start(ApplicationConfig::new().workers(1).queue(0)).await;
    let blocked = call(&rt, "hold", "blocked");
    gates.saw(Event::Started("blocked".into())).await;
    let before = rt.pool_actor().expect("the pool runs");
    before.kill();
    // The supervisor restarts the pool; its new life admits again, without a free slot.
    let restarted = tokio::time::timeout(Duration::from_secs(60), async {
        loop {
            match rt.pool_actor() {
                Some(cell) if cell.get_id() != before.get_id() => break,
                _ => tokio::task::yield_now().await,
            }
        }
    })
    .await;
    assert!(restarted.is_ok(), "the pool was not restarted");
    let err = rt
        .dispatch("gate", json!({"tag": "beside"}))
        .await
        .unwrap_err();
    assert!(err.is_overloaded(), "{err}");
    gates.release("blocked");
    assert_eq!(texts(blocked.await.unwrap()), ["blocked"]);
    gates.release("after");
    assert_eq!(
        texts(rt.dispatch("gate", json!({"tag": "after"})).await),
        ["after"]
    );
    assert_eq!(gates.most_at_once(), 1);
    rt.stop(STOP).await.unwrap();
}

/// The same over the wire: an HTTP client that hangs up while its call is queued (hyper drops
/// the request's future) frees its place, and its call never reaches the host.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_http_client_that_hangs_up_while_queued_frees_its_place() {
    use beam_mcp::transport::http::{AllowedOrigins, HttpService, ServeOptions};
    use tokio::io::AsyncWriteExt;
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let (server, mut gates) = gate::host();
    let service = HttpService::new(server.clone(), |_| Ok(()), AllowedOrigins::Any).path("/mcp");
    let config = ApplicationConfig::new().workers(1).queue(1).http(
        listener,
        service,
        ServeOptions::default(),
    );
    let rt = Application::start(server, config).await.unwrap();
    let busy = call(&rt, "gate", "busy");
    gates.saw(Event::Started("busy".into())).await;
    let body = serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "gate", "arguments": {"tag": "wire"}, "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}}}}))
    .unwrap();
    let mut request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
         Mcp-Method: tools/call\r\nMcp-Name: gate\r\nContent-Length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    request.extend(body);
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream.write_all(&request).await.unwrap();
    until(&rt, |s| s.queued == 1).await;
    drop(stream);
    until(&rt, |s| s.queued == 0).await;
    assert_eq!(rt.pool_stats().cancelled, 1);
    the_freed_place_serves(&rt, &gates, busy).await;
    assert!(!gates.has_seen(&Event::Started("wire".into())));
    rt.stop(STOP).await.expect("stops");
}
