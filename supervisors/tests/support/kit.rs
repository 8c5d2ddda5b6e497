//! Test kit shared by the `supervisor_*` tests: a worker whose failure can be injected,
//! a probe that records what a parent would see, and bounded waiting.
// Each test file uses a different part of the kit.
#![allow(dead_code)]

use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use beam_mcp_supervisors::{
    ChildInfo, ChildSpec, Restart, Shutdown, SupervisorRef, SupervisorSpec,
};
use ractor::{Actor, ActorCell, ActorId, ActorProcessingErr, ActorRef, SupervisionEvent};
use tokio::sync::mpsc;

/// How long any single wait in a test may take.
pub(crate) const WAIT: Duration = Duration::from_secs(5);

/// Shared record of post_stop calls: `begin:<name>` then `end:<name>`.
pub(crate) type Log = Arc<Mutex<Vec<String>>>;

pub(crate) fn new_log() -> Log {
    Arc::new(Mutex::new(Vec::new()))
}

pub(crate) fn entries(log: &Log) -> Vec<String> {
    log.lock().unwrap().clone()
}

/// What a worker can be told to do.
#[derive(Debug)]
pub(crate) enum WorkerMsg {
    /// Panic in the handler.
    Panic,
    /// Return an error from the handler.
    Fail,
}

// Under ractor's `cluster` feature (on in a workspace build with every feature) there is no
// blanket `Message` impl: the test worker's messages are local only.
#[cfg(feature = "cluster")]
impl ractor::Message for WorkerMsg {}

#[derive(Debug, Clone)]
pub(crate) struct WorkerArgs {
    pub(crate) name: String,
    pub(crate) log: Option<Log>,
    pub(crate) stop_delay: Duration,
}

pub(crate) struct Worker;

impl Actor for Worker {
    type Msg = WorkerMsg;
    type State = WorkerArgs;
    type Arguments = WorkerArgs;

    async fn pre_start(
        &self,
        _: ActorRef<WorkerMsg>,
        args: WorkerArgs,
    ) -> Result<WorkerArgs, ActorProcessingErr> {
        Ok(args)
    }

    async fn handle(
        &self,
        _: ActorRef<WorkerMsg>,
        msg: WorkerMsg,
        _: &mut WorkerArgs,
    ) -> Result<(), ActorProcessingErr> {
        match msg {
            WorkerMsg::Panic => panic!("injected panic"),
            WorkerMsg::Fail => Err("injected failure".into()),
        }
    }

    async fn post_stop(
        &self,
        _: ActorRef<WorkerMsg>,
        state: &mut WorkerArgs,
    ) -> Result<(), ActorProcessingErr> {
        if let Some(log) = &state.log {
            log.lock().unwrap().push(format!("begin:{}", state.name));
        }
        tokio::time::sleep(state.stop_delay).await;
        if let Some(log) = &state.log {
            log.lock().unwrap().push(format!("end:{}", state.name));
        }
        Ok(())
    }
}

/// A permanent worker child.
pub(crate) fn worker(id: &str) -> ChildSpec {
    logged_worker(id, None, Duration::ZERO)
}

/// A worker child whose post_stop is recorded in `log` and takes `stop_delay`.
pub(crate) fn logged_worker(id: &str, log: Option<Log>, stop_delay: Duration) -> ChildSpec {
    let args = WorkerArgs {
        name: id.to_owned(),
        log,
        stop_delay,
    };
    ChildSpec::new(id, move |sup| {
        let args = args.clone();
        async move {
            let (child, _) = Actor::spawn_linked(None, Worker, args, sup).await?;
            Ok(child.get_cell())
        }
    })
}

pub(crate) fn worker_with(id: &str, restart: Restart) -> ChildSpec {
    worker(id).restart(restart)
}

/// A child whose `pre_start` always fails.
pub(crate) fn failing_child(id: &str) -> ChildSpec {
    struct Refuses;
    impl Actor for Refuses {
        type Msg = ();
        type State = ();
        type Arguments = ();
        async fn pre_start(&self, _: ActorRef<()>, _: ()) -> Result<(), ActorProcessingErr> {
            Err("refusing to start".into())
        }
    }
    ChildSpec::new(id, |sup| async move {
        let (child, _) = Actor::spawn_linked(None, Refuses, (), sup).await?;
        Ok(child.get_cell())
    })
}

pub(crate) fn inject(cell: &ActorCell, msg: WorkerMsg) {
    cell.send_message::<WorkerMsg>(msg).unwrap();
}

/// The actor ids of the children, in order (`None` for a stopped child).
pub(crate) fn actor_ids(children: &[ChildInfo]) -> Vec<Option<ActorId>> {
    children
        .iter()
        .map(|c| c.cell.as_ref().map(ActorCell::get_id))
        .collect()
}

pub(crate) fn child_ids(children: &[ChildInfo]) -> Vec<String> {
    children.iter().map(|c| c.id.clone()).collect()
}

pub(crate) async fn cell_of(sup: &SupervisorRef, id: &str) -> ActorCell {
    let children = sup.which_children().await.unwrap();
    let child = children.iter().find(|c| c.id == id).unwrap();
    child.cell.clone().unwrap()
}

pub(crate) async fn restarts(sup: &SupervisorRef, id: &str) -> u32 {
    sup.restart_count(id).await.unwrap().unwrap()
}

/// Polls `check` every 2 ms until it holds; panics naming `what` after [`WAIT`].
pub(crate) async fn eventually<F, Fut>(what: &str, mut check: F)
where
    F: FnMut() -> Fut,
    Fut: Future<Output = bool>,
{
    let polled = tokio::time::timeout(WAIT, async {
        while !check().await {
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
    })
    .await;
    assert!(polled.is_ok(), "timed out waiting for: {what}");
}

pub(crate) async fn spawn(spec: SupervisorSpec) -> SupervisorRef {
    SupervisorRef::spawn(None, spec).await.unwrap().0
}

/// A supervision event as the probe saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Seen {
    Terminated(ActorId, Option<String>),
    Failed(ActorId, String),
}

/// An actor that stands in for a parent: it records its children's exits.
pub(crate) struct Probe;

impl Actor for Probe {
    type Msg = ();
    type State = mpsc::UnboundedSender<Seen>;
    type Arguments = mpsc::UnboundedSender<Seen>;

    async fn pre_start(
        &self,
        _: ActorRef<()>,
        tx: mpsc::UnboundedSender<Seen>,
    ) -> Result<Self::State, ActorProcessingErr> {
        Ok(tx)
    }

    async fn handle_supervisor_evt(
        &self,
        _: ActorRef<()>,
        event: SupervisionEvent,
        tx: &mut Self::State,
    ) -> Result<(), ActorProcessingErr> {
        let seen = match event {
            SupervisionEvent::ActorTerminated(who, _, reason) => {
                Seen::Terminated(who.get_id(), reason)
            }
            SupervisionEvent::ActorFailed(who, err) => Seen::Failed(who.get_id(), err.to_string()),
            _ => return Ok(()),
        };
        let _ = tx.send(seen);
        Ok(())
    }
}

pub(crate) async fn probe() -> (ActorRef<()>, mpsc::UnboundedReceiver<Seen>) {
    let (tx, rx) = mpsc::unbounded_channel();
    let (probe, _) = Actor::spawn(None, Probe, tx).await.unwrap();
    (probe, rx)
}

pub(crate) async fn next_seen(rx: &mut mpsc::UnboundedReceiver<Seen>) -> Seen {
    tokio::time::timeout(WAIT, rx.recv())
        .await
        .expect("probe saw nothing in time")
        .expect("probe channel closed")
}

pub(crate) fn quick_shutdown(spec: ChildSpec) -> ChildSpec {
    spec.shutdown(Shutdown::Timeout(Duration::from_millis(500)))
}
