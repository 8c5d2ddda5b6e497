//! Host dispatch across nodes (feature `cluster`): two `ractor_cluster` nodes in this process
//! over loopback; a host actor on node B dispatches to the runtime of node A and gets the
//! answers a local caller gets, validation included; node A killed mid-call leaves no caller
//! waiting.
//!
//! One test function: the process group registry is process-wide, so the scenarios run in
//! sequence on one pair of nodes.
//!
//! Ordered by events: the calls in flight at the loss are `gate` calls of the test host, known
//! to run when they report so and held until the end, so an answer before then cannot be the
//! tool's; the lost node's leaving is seen as a change of the process group.

use crate::host::{self, SAFETY};
use crate::GroupWatch;

use beam_mcp::runtime::cluster::{
    dispatch_to, remote_dispatchers, wait_for_remote_dispatcher, ClusterNode, NodeConfig,
    DISPATCH_GROUP,
};
use beam_mcp::runtime::{Application, ApplicationConfig, ApplicationMsg, DispatchResult};
use beam_mcp::Extensions;
use ractor::{Actor, ActorProcessingErr, ActorRef, RpcReplyPort};
use serde_json::{json, Value};
use std::time::Duration;

const COOKIE: &str = "cluster-dispatch-test-cookie";
const LIMIT: Duration = Duration::from_secs(10);

/// A host actor on node B: asks the remote runtime for calls on behalf of its callers.
struct RemoteAsker;

enum AskMsg {
    Ask(String, Value, RpcReplyPort<DispatchResult>),
}

impl ractor::Message for AskMsg {}

impl Actor for RemoteAsker {
    type Msg = AskMsg;
    type State = ActorRef<ApplicationMsg>;
    type Arguments = ActorRef<ApplicationMsg>;

    async fn pre_start(
        &self,
        _: ActorRef<AskMsg>,
        dispatcher: ActorRef<ApplicationMsg>,
    ) -> Result<Self::State, ActorProcessingErr> {
        Ok(dispatcher)
    }

    async fn handle(
        &self,
        _: ActorRef<AskMsg>,
        message: AskMsg,
        dispatcher: &mut Self::State,
    ) -> Result<(), ActorProcessingErr> {
        let AskMsg::Ask(tool, arguments, reply) = message;
        // The answer goes straight to the asker's caller: the actor never waits.
        dispatcher.send_message(ApplicationMsg::Dispatch {
            tool,
            arguments,
            extensions: Extensions::new(),
            reply,
        })?;
        Ok(())
    }
}

/// Asks the host actor on node B, waiting at most [`LIMIT`].
async fn ask(asker: &ActorRef<AskMsg>, tool: &str, arguments: Value) -> DispatchResult {
    match asker
        .call(
            |reply| AskMsg::Ask(tool.to_owned(), arguments, reply),
            Some(LIMIT),
        )
        .await
    {
        Ok(ractor::rpc::CallResult::Success(answer)) => answer,
        other => panic!("the host actor did not answer: {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_host_actor_on_node_b_dispatches_through_node_a_and_a_lost_node_answers_unavailable() {
    // ractor's process groups are process-wide: no other test's nodes while these run.
    let _nodes = crate::NODES.lock().await;
    let (server, mut gate) = host::gated();
    // Room for the four calls held at the loss.
    let runtime = Application::start(server, ApplicationConfig::new().workers(4))
        .await
        .expect("runtime starts");
    let node_a = ClusterNode::start(NodeConfig::new("node_a", COOKIE))
        .await
        .expect("node A starts");
    let node_b = ClusterNode::start(NodeConfig::new("node_b", COOKIE))
        .await
        .expect("node B starts");
    assert!(node_a.addr().ip().is_loopback() && node_b.addr().ip().is_loopback());
    assert!(
        remote_dispatchers().is_empty(),
        "no session, nothing remote"
    );

    node_b.connect(node_a.addr()).await.expect("B joins A");
    let remote = wait_for_remote_dispatcher(LIMIT)
        .await
        .expect("A's catalog actor appears in B's process group");
    assert!(!remote.get_id().is_local());

    let (asker, asker_join) = Actor::spawn(None, RemoteAsker, remote.clone())
        .await
        .expect("the host actor starts");

    // The same answers as a local caller, validation included.
    let cases = [
        ("echo", json!({"text": "hi"})),
        ("echo", json!({})),
        ("echo", json!({"text": "x", "extra": 1})),
        ("nope", json!({})),
        ("fail", json!({})),
        ("boom", json!({})),
        ("slow", json!({"ms": -1})),
    ];
    for (tool, arguments) in cases {
        let local = runtime.dispatch(tool, arguments.clone()).await;
        let through_actor = ask(&asker, tool, arguments.clone()).await;
        assert_eq!(through_actor, local, "{tool} {arguments}");
        let direct = dispatch_to(&remote, tool, arguments.clone(), LIMIT).await;
        assert_eq!(direct, local, "{tool} {arguments}");
    }
    let ok = dispatch_to(&remote, "echo", json!({"text": "hi"}), LIMIT)
        .await
        .expect("echo answers");
    assert_eq!(ok.texts(), ["hi"]);
    assert!(!ok.is_error());
    let invalid = dispatch_to(&remote, "echo", json!({}), LIMIT)
        .await
        .expect_err("invalid arguments are refused");
    assert!(invalid.is_invalid_arguments());
    assert!(dispatch_to(&remote, "nope", json!({}), LIMIT)
        .await
        .expect_err("unknown")
        .is_unknown_tool());

    // Node A lost mid-call: every pending remote dispatch is answered "unavailable", while
    // the tool is still held (so the answer is not the tool's).
    let pending: Vec<_> = (0..3)
        .map(|_| {
            let remote = remote.clone();
            tokio::spawn(async move { dispatch_to(&remote, "gate", json!({}), SAFETY).await })
        })
        .collect();
    let actor_pending = tokio::spawn({
        let asker = asker.clone();
        async move { ask(&asker, "gate", json!({})).await }
    });
    // The calls have reached node A's pool: they run, held.
    let held = gate.started_n(4).await;
    let mut group = GroupWatch::start(DISPATCH_GROUP).await;
    node_a.stop(LIMIT).await;
    for task in pending {
        let answer = tokio::time::timeout(SAFETY, task)
            .await
            .expect("the caller is answered")
            .expect("the caller task ends");
        let refused = answer.expect_err("a lost node refuses");
        assert!(refused.is_unavailable(), "{refused}");
        assert_eq!(refused.data(), &json!({"reason": "unavailable"}));
    }
    let from_actor = actor_pending.await.expect("the actor's caller ends");
    assert!(from_actor.expect_err("refused").is_unavailable());
    // Only now are the tools let go: every answer above came while they were held.
    drop(held);
    // A dispatch sent after the loss is refused the same way, at once.
    assert!(
        group
            .until(SAFETY, || remote_dispatchers().is_empty())
            .await,
        "the lost node's catalog actor leaves B's group"
    );
    group.stop();
    let after = dispatch_to(&remote, "echo", json!({"text": "late"}), LIMIT)
        .await
        .expect_err("nothing to serve it");
    assert!(after.is_unavailable());

    asker.stop(None);
    let _ = asker_join.await;
    node_b.stop(LIMIT).await;
    runtime.stop(LIMIT).await.expect("runtime stops");
}
