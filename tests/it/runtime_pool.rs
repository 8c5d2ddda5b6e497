//! The dispatch pool: panics and deadlines answer the caller and replace the worker, a full
//! queue refuses at once, blocking host code is still bounded by the deadline.

use crate::support::runtime_host as host;

use beam_mcp::runtime::{
    Application, ApplicationConfig, ApplicationRef, DispatchResult, RUNTIME_REFUSAL_CODE,
};
use beam_mcp::{Answer, Carrier};
use serde_json::{json, Value};
use std::time::{Duration, Instant};

const LIMIT: Duration = Duration::from_secs(5);

async fn start(config: ApplicationConfig) -> ApplicationRef {
    Application::start(host::server(), config)
        .await
        .expect("the runtime starts")
}

/// With one worker and a queue of one: while a call runs, a second waits its turn and is
/// answered, not refused "overloaded".
async fn assert_the_queue_has_its_place(rt: &ApplicationRef) {
    let busy = slow_in_background(rt, 200);
    tokio::time::sleep(Duration::from_millis(50)).await;
    let second = rt.dispatch("slow", json!({"ms": 1})).await;
    assert!(
        second.is_ok(),
        "an empty queue refused a call: {:?}",
        second.err()
    );
    assert_eq!(busy.await.unwrap().unwrap().texts(), ["slept 200"]);
}

/// A call of the test host's `slow` tool (it sleeps `ms`), on a task of its own.
fn slow_in_background(rt: &ApplicationRef, ms: u64) -> tokio::task::JoinHandle<DispatchResult> {
    let rt = rt.clone();
    tokio::spawn(async move { rt.dispatch("slow", json!({ "ms": ms })).await })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_panicking_tool_answers_a_tool_error_and_its_worker_is_replaced() {
    let rt = start(ApplicationConfig::new().workers(2)).await;
    let before = rt.pool_stats();
    assert_eq!(before.worker_restarts, 0);

    let reply = rt.dispatch("boom", json!({})).await.expect("answered");
    assert!(reply.is_error());
    assert_eq!(reply.texts(), ["the tool failed"]);
    assert!(host::eventually(LIMIT, || async { rt.pool_stats().worker_restarts == 1 }).await);
    assert_eq!(rt.pool_stats().panics, 1);

    // Three more panics, three more replacements; the pool keeps serving.
    for _ in 0..3 {
        assert!(rt
            .dispatch("boom", json!({}))
            .await
            .expect("answered")
            .is_error());
    }
    assert!(host::eventually(LIMIT, || async { rt.pool_stats().worker_restarts == 4 }).await);
    let echo = rt
        .dispatch("echo", json!({"text": "still here"}))
        .await
        .expect("answered");
    assert_eq!(echo.texts(), ["still here"]);
    // The factory replaced its workers itself: the pool actor was never restarted.
    assert_eq!(
        rt.root().restart_count("dispatch_pool").await.unwrap(),
        Some(0)
    );
    rt.stop(LIMIT).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_tool_error_costs_no_worker() {
    let rt = start(ApplicationConfig::new().workers(1)).await;
    let reply = rt.dispatch("fail", json!({})).await.expect("answered");
    assert!(reply.is_error());
    assert_eq!(reply.texts(), ["it failed"]);
    let stats = rt.pool_stats();
    assert_eq!((stats.worker_restarts, stats.completed), (0, 1));
    rt.stop(LIMIT).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_call_past_the_deadline_is_refused_and_its_worker_replaced() {
    let rt = start(
        ApplicationConfig::new()
            .workers(1)
            .deadline(Duration::from_millis(100)),
    )
    .await;
    let started = Instant::now();
    let err = rt
        .dispatch("slow", json!({"ms": 10_000}))
        .await
        .unwrap_err();
    assert!(err.is_deadline(), "{err}");
    assert_eq!(err.code(), RUNTIME_REFUSAL_CODE);
    assert!(started.elapsed() < Duration::from_secs(2));
    assert!(host::eventually(LIMIT, || async { rt.pool_stats().worker_restarts == 1 }).await);
    assert_eq!(rt.pool_stats().deadlines, 1);
    // The one worker was replaced: the next call is served.
    let ok = rt
        .dispatch("slow", json!({"ms": 1}))
        .await
        .expect("answered");
    assert_eq!(ok.texts(), ["slept 1"]);
    rt.stop(LIMIT).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn blocking_host_code_is_still_bounded_by_the_deadline() {
    let rt = start(
        ApplicationConfig::new()
            .workers(1)
            .deadline(Duration::from_millis(100)),
    )
    .await;
    let started = Instant::now();
    let err = rt.dispatch("block", json!({"ms": 1500})).await.unwrap_err();
    assert!(err.is_deadline(), "{err}");
    assert!(
        started.elapsed() < Duration::from_millis(1000),
        "answered after {:?}",
        started.elapsed()
    );
    rt.stop(LIMIT).await.unwrap();
}

/// A host that blocks its thread past the deadline and then returns must not hand its slot
/// back: the deadline already replaced it. Counted with a queue of none, one worker: while one
/// call runs, the next is refused `overloaded`, before and after the late return.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_late_return_after_the_deadline_adds_no_slot() {
    let rt = start(
        ApplicationConfig::new()
            .workers(1)
            .queue(0)
            .deadline(Duration::from_millis(300)),
    )
    .await;
    let err = rt.dispatch("block", json!({"ms": 600})).await.unwrap_err();
    assert!(err.is_deadline(), "{err}");
    // Let the blocked host return on its own thread.
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert!(host::eventually(LIMIT, || async { rt.pool_stats().worker_restarts == 1 }).await);
    for round in 0..2 {
        let busy = slow_in_background(&rt, 200);
        tokio::time::sleep(Duration::from_millis(50)).await;
        let second = rt.dispatch("slow", json!({"ms": 1})).await;
        assert!(
            second.as_ref().is_err_and(|e| e.is_overloaded()),
            "round {round}: a second call ran beside the first, so the pool holds more than one slot"
        );
        assert_eq!(busy.await.unwrap().unwrap().texts(), ["slept 200"]);
    }
    assert_eq!(rt.pool_stats().worker_restarts, 1);
    rt.stop(LIMIT).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_full_queue_refuses_at_once_with_overloaded() {
    let rt = start(ApplicationConfig::new().workers(1).queue(1)).await;
    let busy = slow_in_background(&rt, 400);
    tokio::time::sleep(Duration::from_millis(50)).await;
    let queued = slow_in_background(&rt, 1);
    tokio::time::sleep(Duration::from_millis(50)).await;

    let started = Instant::now();
    let err = rt.dispatch("slow", json!({"ms": 1})).await.unwrap_err();
    assert!(err.is_overloaded(), "{err}");
    assert!(started.elapsed() < Duration::from_millis(200));

    // Over the wire too: a JSON-RPC error, not a hang.
    let frame = host::call_frame(7, "slow", json!({"ms": 1}));
    let Answer::Reply(reply) = rt.answer(&frame, Carrier::Stdio).await else {
        panic!("a tools/call is answered")
    };
    let wire: Value = serde_json::from_slice(reply.bytes()).unwrap();
    assert_eq!(wire["id"], 7);
    assert_eq!(wire["error"]["code"], -32603);
    assert_eq!(wire["error"]["data"]["reason"], "overloaded");

    // What was accepted is answered.
    assert_eq!(busy.await.unwrap().unwrap().texts(), ["slept 400"]);
    assert_eq!(queued.await.unwrap().unwrap().texts(), ["slept 1"]);
    assert_eq!(rt.pool_stats().overloaded, 2);
    rt.stop(LIMIT).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn workers_bound_the_calls_running_at_once() {
    let rt = start(ApplicationConfig::new().workers(4)).await;
    let started = Instant::now();
    let calls: Vec<_> = (0..8).map(|_| slow_in_background(&rt, 150)).collect();
    for c in calls {
        assert_eq!(c.await.unwrap().unwrap().texts(), ["slept 150"]);
    }
    // Eight 150 ms calls on four workers take two rounds, not one.
    assert!(started.elapsed() >= Duration::from_millis(300));
    assert_eq!(rt.pool_stats().completed, 8);
    rt.stop(LIMIT).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_caller_that_goes_away_leaves_its_call_running_to_its_end() {
    let rt = start(ApplicationConfig::new().workers(1)).await;
    let caller = slow_in_background(&rt, 200);
    tokio::time::sleep(Duration::from_millis(50)).await;
    caller.abort();
    // The host work is not cancelled with its caller: it ends and is counted.
    assert!(host::eventually(LIMIT, || async { rt.pool_stats().completed == 1 }).await);
    assert_eq!(rt.pool_stats().worker_restarts, 0);
    rt.stop(LIMIT).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_call_whose_caller_went_away_is_still_held_to_the_deadline() {
    let rt = start(
        ApplicationConfig::new()
            .workers(1)
            .deadline(Duration::from_millis(150)),
    )
    .await;
    let caller = slow_in_background(&rt, 10_000);
    tokio::time::sleep(Duration::from_millis(30)).await;
    caller.abort();
    // Abandoned at its deadline all the same, and its slot replaced: the one worker serves again.
    assert!(host::eventually(LIMIT, || async { rt.pool_stats().deadlines == 1 }).await);
    assert!(host::eventually(LIMIT, || async { rt.pool_stats().worker_restarts == 1 }).await);
    let ok = rt
        .dispatch("slow", json!({"ms": 1}))
        .await
        .expect("answered");
    assert_eq!(ok.texts(), ["slept 1"]);
    rt.stop(LIMIT).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_pool_that_goes_answers_the_waiting_and_finishes_the_running() {
    let rt = start(ApplicationConfig::new().workers(1).queue(4)).await;
    let running = slow_in_background(&rt, 300);
    tokio::time::sleep(Duration::from_millis(50)).await;
    let waiting = slow_in_background(&rt, 1);
    tokio::time::sleep(Duration::from_millis(50)).await;
    let started = Instant::now();
    rt.pool_actor().expect("the pool runs").kill();
    let err = waiting.await.unwrap().unwrap_err();
    assert_eq!(
        err.reason(),
        Some(beam_mcp::Unserved::ShuttingDown),
        "{err}"
    );
    assert!(err.is_unavailable());
    assert!(started.elapsed() < Duration::from_millis(250));
    assert_eq!(running.await.unwrap().unwrap().texts(), ["slept 300"]);
    rt.stop(LIMIT).await.unwrap();
}

/// A caller that goes away while its call waits for a slot gives its place in the queue back:
/// otherwise `queue` such hang-ups would leave every later call "overloaded" for good.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_queued_caller_that_goes_away_frees_its_place_in_the_queue() {
    let rt = start(ApplicationConfig::new().workers(1).queue(1)).await;
    let busy = slow_in_background(&rt, 300);
    tokio::time::sleep(Duration::from_millis(50)).await;
    let queued = slow_in_background(&rt, 1);
    tokio::time::sleep(Duration::from_millis(50)).await;
    queued.abort();
    assert_eq!(busy.await.unwrap().unwrap().texts(), ["slept 300"]);

    assert_the_queue_has_its_place(&rt).await;
    rt.stop(LIMIT).await.expect("stops");
}

/// The same over the wire: an HTTP client that hangs up while its call is queued (hyper drops
/// the request's future) frees its place.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_http_client_that_hangs_up_while_queued_frees_its_place() {
    use beam_mcp::transport::http::{AllowedOrigins, HttpService, ServeOptions};
    use tokio::io::AsyncWriteExt;
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let service = HttpService::new(host::server(), |_| Ok(()), AllowedOrigins::Any).path("/mcp");
    let config = ApplicationConfig::new().workers(1).queue(1).http(
        listener,
        service,
        ServeOptions::default(),
    );
    let rt = Application::start(host::server(), config).await.unwrap();
    let busy = slow_in_background(&rt, 400);
    tokio::time::sleep(Duration::from_millis(50)).await;
    let body = serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "slow", "arguments": {"ms": 1}, "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}}}}))
    .unwrap();
    let mut request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
         Mcp-Method: tools/call\r\nMcp-Name: slow\r\nContent-Length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    request.extend(body);
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream.write_all(&request).await.unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    drop(stream);
    assert_eq!(busy.await.unwrap().unwrap().texts(), ["slept 400"]);
    tokio::time::sleep(Duration::from_millis(50)).await;

    assert_the_queue_has_its_place(&rt).await;
    rt.stop(LIMIT).await.expect("stops");
}
