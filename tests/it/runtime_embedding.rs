//! Embedding the runtime in a host's own actor system: Root linked under a host supervisor,
//! `Dispatch` messages from a host actor, transports restarted and crashed under a
//! catalog and a pool that stay.

use crate::support::runtime_host as host;

use beam_mcp::runtime::{
    Application, ApplicationConfig, ApplicationMsg, DispatchResult, StdioIo, CATALOG,
    DISPATCH_POOL, STDIO, TRANSPORTS,
};
use beam_mcp::transport::stdio::StdioOptions;
use beam_mcp::{Answer, Carrier, Extensions};
use ractor::{Actor, ActorProcessingErr, ActorRef, RpcReplyPort, SupervisionEvent};
use serde_json::{json, Value};
use std::time::Duration;
use tokio::sync::mpsc;

const LIMIT: Duration = Duration::from_secs(5);

/// The host's own supervisor: it only reports the supervision events it receives.
struct HostSupervisor;

impl Actor for HostSupervisor {
    type Msg = ();
    type State = mpsc::UnboundedSender<String>;
    type Arguments = mpsc::UnboundedSender<String>;

    async fn pre_start(
        &self,
        _: ActorRef<()>,
        events: Self::Arguments,
    ) -> Result<Self::State, ActorProcessingErr> {
        Ok(events)
    }

    async fn handle_supervisor_evt(
        &self,
        _: ActorRef<()>,
        event: SupervisionEvent,
        events: &mut Self::State,
    ) -> Result<(), ActorProcessingErr> {
        let seen = match event {
            SupervisionEvent::ActorFailed(..) => "failed",
            SupervisionEvent::ActorTerminated(..) => "terminated",
            _ => return Ok(()),
        };
        let _ = events.send(seen.to_owned());
        Ok(())
    }
}

/// A host actor that asks the runtime for tool calls on behalf of its own callers.
struct Asker;

enum AskMsg {
    Ask(String, Value, RpcReplyPort<DispatchResult>),
}

// Under the `cluster` feature ractor has no blanket `Message` impl: a host's message type
// says it is local only.
#[cfg(feature = "cluster")]
impl ractor::Message for AskMsg {}

impl Actor for Asker {
    type Msg = AskMsg;
    type State = ActorRef<ApplicationMsg>;
    type Arguments = ActorRef<ApplicationMsg>;

    async fn pre_start(
        &self,
        _: ActorRef<AskMsg>,
        dispatcher: Self::Arguments,
    ) -> Result<Self::State, ActorProcessingErr> {
        Ok(dispatcher)
    }

    async fn handle(
        &self,
        _: ActorRef<AskMsg>,
        AskMsg::Ask(tool, arguments, reply): AskMsg,
        dispatcher: &mut Self::State,
    ) -> Result<(), ActorProcessingErr> {
        // Forward the caller's port: the runtime answers it directly, the asker never waits.
        dispatcher.cast(ApplicationMsg::Dispatch {
            tool,
            arguments,
            extensions: Extensions::new(),
            reply,
        })?;
        Ok(())
    }
}

fn idle_stdio() -> StdioIo {
    let (client, server) = tokio::io::duplex(1024);
    std::mem::forget(client);
    let (r, w) = tokio::io::split(server);
    StdioIo::new(tokio::io::BufReader::new(r), w)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn root_runs_linked_under_a_host_supervisor() {
    let (events, mut seen) = mpsc::unbounded_channel();
    let (host_sup, host_join) = Actor::spawn(None, HostSupervisor, events).await.unwrap();
    let rt = Application::start_linked(
        host::server(),
        ApplicationConfig::new(),
        host_sup.get_cell(),
    )
    .await
    .unwrap();
    let parent = rt
        .root()
        .cell()
        .try_get_supervisor()
        .expect("Root is linked");
    assert_eq!(parent.get_id(), host_sup.get_id());

    // Stopping the runtime is an exit the host supervisor sees.
    rt.stop(LIMIT).await.unwrap();
    let event = tokio::time::timeout(LIMIT, seen.recv())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(event, "terminated");
    host_sup.stop(None);
    host_join.await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_root_past_its_intensity_fails_into_the_host_supervisor() {
    let (events, mut seen) = mpsc::unbounded_channel();
    let (host_sup, host_join) = Actor::spawn(None, HostSupervisor, events).await.unwrap();
    let config = ApplicationConfig::new().intensity(0, Duration::from_secs(5));
    let rt = Application::start_linked(host::server(), config, host_sup.get_cell())
        .await
        .unwrap();
    rt.pool_actor().unwrap().kill();
    let event = tokio::time::timeout(LIMIT, seen.recv())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(event, "failed");
    host_sup.stop(None);
    host_join.await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_host_actor_dispatches_through_the_same_validator_as_tools_call() {
    let rt = Application::start(host::server(), ApplicationConfig::new())
        .await
        .unwrap();
    let (asker, join) = Actor::spawn(None, Asker, rt.dispatcher().unwrap())
        .await
        .unwrap();
    let ask = |tool: &str, args: Value| {
        let asker = asker.clone();
        let tool = tool.to_owned();
        async move {
            asker
                .call(|reply| AskMsg::Ask(tool, args, reply), Some(LIMIT))
                .await
                .unwrap()
                .unwrap()
        }
    };

    let ok = ask("echo", json!({"text": "from an actor"})).await.unwrap();
    assert_eq!(ok.texts(), ["from an actor"]);
    assert!(!ok.is_error());

    // The refusal a host actor gets is the one a wire client gets, data and all.
    let bad = json!({"text": 42, "extra": true});
    let refused = ask("echo", bad.clone()).await.unwrap_err();
    assert!(refused.is_invalid_arguments(), "{refused}");
    // At 2026-07-28 the wire refusal is -32602 too (2025-11-25 makes it an isError result).
    let mut frame: Value = serde_json::from_slice(&host::call_frame(1, "echo", bad)).unwrap();
    frame["params"]["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}
    });
    let Answer::Reply(wire) = rt
        .answer(&serde_json::to_vec(&frame).unwrap(), Carrier::Stdio)
        .await
    else {
        panic!("answered")
    };
    let wire: Value = serde_json::from_slice(wire.bytes()).unwrap();
    assert_eq!(wire["error"]["code"], refused.code());
    assert_eq!(wire["error"]["message"], refused.message());
    assert_eq!(&wire["error"]["data"], refused.data());

    let unknown = ask("nope", json!({})).await.unwrap_err();
    assert!(unknown.is_unknown_tool(), "{unknown}");
    assert!(ask("echo", json!([1])).await.is_err());

    asker.stop(None);
    join.await.unwrap();
    rt.stop(LIMIT).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_transport_restart_keeps_the_catalog_and_the_pool() {
    let config = ApplicationConfig::new().stdio(idle_stdio, StdioOptions::default());
    let rt = Application::start(host::server(), config).await.unwrap();
    let catalog = rt.dispatcher().unwrap().get_id();
    let pool = rt.pool_actor().unwrap().get_id();
    let transports = rt.transports().await.unwrap();
    let first = transports.which_children().await.unwrap()[0]
        .cell
        .clone()
        .unwrap();

    rt.restart_transport(STDIO).await.unwrap();
    let second = transports.which_children().await.unwrap()[0]
        .cell
        .clone()
        .unwrap();
    assert_ne!(first.get_id(), second.get_id());
    assert_eq!(first.get_status(), ractor::ActorStatus::Stopped);

    rt.stop_transport(STDIO).await.unwrap();
    assert!(transports.which_children().await.unwrap().is_empty());
    rt.start_transport(STDIO).await.unwrap();
    assert_eq!(transports.which_children().await.unwrap().len(), 1);

    assert_eq!(rt.dispatcher().unwrap().get_id(), catalog);
    assert_eq!(rt.pool_actor().unwrap().get_id(), pool);
    for id in [CATALOG, DISPATCH_POOL, TRANSPORTS] {
        assert_eq!(rt.root().restart_count(id).await.unwrap(), Some(0), "{id}");
    }
    assert!(rt.restart_transport("http").await.is_err());
    rt.stop(LIMIT).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_transport_crash_does_not_take_the_catalog_down() {
    let config = ApplicationConfig::new().stdio(idle_stdio, StdioOptions::default());
    let rt = Application::start(host::server(), config).await.unwrap();
    let catalog = rt.dispatcher().unwrap().get_id();
    let transports = rt.transports().await.unwrap();
    for crash in 1..=3 {
        let conn = transports.which_children().await.unwrap()[0]
            .cell
            .clone()
            .unwrap();
        conn.stop(Some("injected crash".into()));
        host::exited(&conn).await;
        assert_eq!(transports.restart_count(STDIO).await.unwrap(), Some(crash));
    }
    conn_is_running(&transports).await;
    assert_eq!(rt.dispatcher().unwrap().get_id(), catalog);
    for id in [CATALOG, DISPATCH_POOL, TRANSPORTS] {
        assert_eq!(rt.root().restart_count(id).await.unwrap(), Some(0), "{id}");
    }
    let reply = rt
        .dispatch("echo", json!({"text": "unharmed"}))
        .await
        .unwrap();
    assert_eq!(reply.texts(), ["unharmed"]);
    rt.stop(LIMIT).await.unwrap();
}

async fn conn_is_running(transports: &beam_mcp_supervisors::SupervisorRef) {
    // The restart is counted when the child is spawned; it reaches Running once its pre_start
    // has returned, a moment later. A poll: an actor's status has no event.
    let running = host::eventually(LIMIT, || async {
        transports.which_children().await.unwrap()[0]
            .cell
            .as_ref()
            .is_some_and(|c| c.get_status() == ractor::ActorStatus::Running)
    })
    .await;
    assert!(
        running,
        "the restarted stdio connection never reached Running"
    );
}
