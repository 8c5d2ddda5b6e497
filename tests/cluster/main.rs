//! The cluster tests (feature `cluster`, `required-features` in Cargo.toml), in one binary of
//! their own: `cargo test --features cluster --test cluster`. Apart from `tests/it` because the
//! feature changes every actor message type (a default build does not build them), and because
//! `ractor`'s process-group registry is process-wide: the two tests that start nodes in this
//! process take `NODES` in turn, so neither sees the other's nodes.

#[allow(dead_code)] // shared with `tests/it`; these tests use part of it
#[path = "../it/support/child.rs"]
mod child;
#[allow(dead_code)] // shared with `tests/it`; these tests use part of it
#[path = "../it/support/runtime_host.rs"]
mod host;

mod cluster_dispatch;
mod cluster_example;
mod cluster_federation;
mod cluster_hardening;
mod cluster_partition;
mod cluster_silence;
mod relay;

/// Held by each test that starts `ractor_cluster` nodes in this process, for its whole run.
static NODES: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// A process group's changes, as events: an actor that monitors the group (`ractor::pg`) and
/// forwards every join and leave. A test waits on these instead of polling the membership.
pub(crate) struct GroupWatch {
    changes: tokio::sync::mpsc::UnboundedReceiver<()>,
    watcher: ractor::ActorRef<WatchMsg>,
}

pub(crate) enum WatchMsg {}
impl ractor::Message for WatchMsg {}

struct Watcher;

impl ractor::Actor for Watcher {
    type Msg = WatchMsg;
    type State = tokio::sync::mpsc::UnboundedSender<()>;
    type Arguments = (String, tokio::sync::mpsc::UnboundedSender<()>);

    async fn pre_start(
        &self,
        myself: ractor::ActorRef<WatchMsg>,
        (group, changes): Self::Arguments,
    ) -> Result<Self::State, ractor::ActorProcessingErr> {
        ractor::pg::monitor(group, myself.get_cell());
        Ok(changes)
    }

    async fn handle_supervisor_evt(
        &self,
        _: ractor::ActorRef<WatchMsg>,
        event: ractor::SupervisionEvent,
        changes: &mut Self::State,
    ) -> Result<(), ractor::ActorProcessingErr> {
        if let ractor::SupervisionEvent::ProcessGroupChanged(_) = event {
            let _ = changes.send(());
        }
        Ok(())
    }
}

impl GroupWatch {
    /// Watches `group` from now on.
    pub(crate) async fn start(group: &str) -> GroupWatch {
        let (tx, changes) = tokio::sync::mpsc::unbounded_channel();
        let (watcher, _) = ractor::Actor::spawn(None, Watcher, (group.to_owned(), tx))
            .await
            .expect("the group watcher starts");
        GroupWatch { changes, watcher }
    }

    /// Waits until `check` holds, checking now and after each change of the group; false if
    /// it does not within `limit` (a safety net against a hang, not a timing assertion).
    pub(crate) async fn until(
        &mut self,
        limit: std::time::Duration,
        mut check: impl FnMut() -> bool,
    ) -> bool {
        let deadline = tokio::time::Instant::now() + limit;
        loop {
            if check() {
                return true;
            }
            match tokio::time::timeout_at(deadline, self.changes.recv()).await {
                Ok(Some(())) => {}
                _ => return check(),
            }
        }
    }

    /// The next change of the group; false if none comes within `limit`.
    pub(crate) async fn changed(&mut self, limit: std::time::Duration) -> bool {
        matches!(
            tokio::time::timeout(limit, self.changes.recv()).await,
            Ok(Some(()))
        )
    }

    pub(crate) fn stop(self) {
        self.watcher.stop(None);
    }
}

/// The next event on `events` that `pick` takes, or `None` after `limit` (or when the
/// subscription ends or lags).
pub(crate) async fn next_event<T>(
    events: &mut tokio::sync::broadcast::Receiver<beam_mcp::runtime::cluster::PeerEvent>,
    limit: std::time::Duration,
    mut pick: impl FnMut(beam_mcp::runtime::cluster::PeerEvent) -> Option<T>,
) -> Option<T> {
    let deadline = tokio::time::Instant::now() + limit;
    loop {
        match tokio::time::timeout_at(deadline, events.recv()).await {
            Ok(Ok(event)) => {
                if let Some(t) = pick(event) {
                    return Some(t);
                }
            }
            _ => return None,
        }
    }
}

/// An `Up`'s peer name.
pub(crate) fn up(event: beam_mcp::runtime::cluster::PeerEvent) -> Option<String> {
    match event {
        beam_mcp::runtime::cluster::PeerEvent::Up { name, .. } => Some(name),
        _ => None,
    }
}

/// A `Down`'s peer name and cause.
pub(crate) fn down(
    event: beam_mcp::runtime::cluster::PeerEvent,
) -> Option<(String, beam_mcp::runtime::cluster::DownCause)> {
    match event {
        beam_mcp::runtime::cluster::PeerEvent::Down { name, cause, .. } => Some((name, cause)),
        _ => None,
    }
}

/// Nodes A and B (`node_a`, `node_b`), each started with `config` given its name; not connected.
pub(crate) async fn nodes_a_and_b(
    config: impl Fn(&'static str) -> beam_mcp::runtime::cluster::NodeConfig,
) -> (
    beam_mcp::runtime::cluster::ClusterNode,
    beam_mcp::runtime::cluster::ClusterNode,
) {
    use beam_mcp::runtime::cluster::ClusterNode;
    let a = ClusterNode::start(config("node_a"))
        .await
        .expect("A starts");
    let b = ClusterNode::start(config("node_b"))
        .await
        .expect("B starts");
    (a, b)
}

/// Stops node B, node A, then the runtime.
pub(crate) async fn stop_all(
    node_b: beam_mcp::runtime::cluster::ClusterNode,
    node_a: beam_mcp::runtime::cluster::ClusterNode,
    runtime: beam_mcp::runtime::ApplicationRef,
) {
    node_b.stop(host::SAFETY).await;
    node_a.stop(host::SAFETY).await;
    runtime.stop(host::SAFETY).await.expect("runtime stops");
}
