//! The federated observed graph across nodes (features `cluster` and `connectome`).
//!
//! **Pull, not push.** Each node that takes part runs an [`ObservedPeer`] in the process
//! group [`OBSERVED_GROUP`]; [`federate`] asks every peer for its node's observed graph when
//! an export is wanted, and merges the answers into a [`Federation`]. Pull because the
//! collectors stay untouched on the hot path (a peer reads a snapshot, as the local reporter
//! does), because nothing crosses the network while nobody exports, and because an export
//! then reflects the counts at the time it was asked for, not as of the last interval. A peer
//! that does not answer within the timeout is left out, and so absent from the export's
//! contributors: a reader sees a graph of two nodes, not a silently partial graph of three.
//!
//! Wire: the call [`OBSERVED_VARIANT`] carries no argument; its reply is the UTF-8 JSON
//! object `{"node": <name>, "edges": [{"kind", "from", "to", "count"}…]}`.

use crate::connectome::federation::Federation;
use crate::connectome::model::{EdgeKey, EdgeKind, Graph};
use crate::connectome::observed::Collector;
use crate::runtime::message::Forwarded;
use ractor::concurrency::oneshot;
use ractor::message::{BoxedDowncastErr, SerializedMessage};
use ractor::{Actor, ActorProcessingErr, ActorRef, RpcReplyPort};
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// The process group of the nodes' observed peers.
pub const OBSERVED_GROUP: &str = "beam_mcp.observed";

/// The variant name an observed-graph request travels under.
pub const OBSERVED_VARIANT: &str = "beam_mcp.observed.v1";

/// One node's observed graph as it crosses the wire.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Contribution {
    node: String,
    edges: Vec<WireEdge>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct WireEdge {
    kind: String,
    from: String,
    to: String,
    count: u64,
}

impl Contribution {
    /// `node`'s observed graph, ready to cross.
    pub fn of(node: &str, graph: &Graph) -> Self {
        Contribution {
            node: node.to_owned(),
            edges: graph
                .edges()
                .map(|(k, a)| WireEdge {
                    kind: k.kind.as_str().to_owned(),
                    from: k.from.clone(),
                    to: k.to.clone(),
                    count: a.count.unwrap_or(0),
                })
                .collect(),
        }
    }

    /// The contributing node's name.
    pub fn node(&self) -> &str {
        &self.node
    }

    /// The graph; `None` when an edge names a kind this version does not know (the whole
    /// contribution is then refused, never half read).
    pub fn graph(&self) -> Option<Graph> {
        let mut graph = Graph::new();
        for e in &self.edges {
            let kind = EdgeKind::from_name(&e.kind)?;
            graph.add_count(EdgeKey::new(kind, e.from.clone(), e.to.clone()), e.count);
        }
        Some(graph)
    }
}

/// What an [`ObservedPeer`] is asked.
#[derive(Debug)]
pub enum ObservedMsg {
    /// Reply with this node's observed graph (`None` from a peer whose answer could not be
    /// read).
    Snapshot(RpcReplyPort<Option<Contribution>>),
}

impl ractor::Message for ObservedMsg {
    fn serializable() -> bool {
        true
    }

    fn serialize(self) -> Result<SerializedMessage, BoxedDowncastErr> {
        let ObservedMsg::Snapshot(reply) = self;
        let handle = tokio::runtime::Handle::try_current().map_err(|_| BoxedDowncastErr)?;
        let raw =
            crate::runtime::message::forward_bytes(&handle, reply, |forwarded| match forwarded {
                Forwarded::Answer(b) => serde_json::from_slice::<Contribution>(&b).ok(),
                Forwarded::Lost | Forwarded::Expired => None,
            });
        Ok(SerializedMessage::Call {
            variant: OBSERVED_VARIANT.to_owned(),
            args: Vec::new(),
            reply: raw,
            metadata: None,
        })
    }

    fn deserialize(bytes: SerializedMessage) -> Result<Self, BoxedDowncastErr> {
        match bytes {
            SerializedMessage::Call { variant, reply, .. } if variant == OBSERVED_VARIANT => {
                let handle = tokio::runtime::Handle::try_current().map_err(|_| BoxedDowncastErr)?;
                let (tx, rx) = oneshot::<Option<Contribution>>();
                handle.spawn(async move {
                    // Bounded: the peer answers from a snapshot, without waiting on anything.
                    if let Ok(Some(c)) = rx.await {
                        if let Ok(bytes) = serde_json::to_vec(&c) {
                            let _ = reply.send(bytes);
                        }
                    }
                });
                Ok(ObservedMsg::Snapshot(RpcReplyPort::from(tx)))
            }
            _ => Err(BoxedDowncastErr),
        }
    }
}

/// A node's observed peer: answers [`ObservedMsg::Snapshot`] with its collector's snapshot
/// under its node's name. Joins [`OBSERVED_GROUP`] when it starts.
#[derive(Debug, Clone, Copy, Default)]
pub struct ObservedPeer;

/// What an [`ObservedPeer`] starts with: the name it contributes under, and its collector.
#[derive(Debug, Clone)]
pub struct ObservedPeerArgs {
    /// The node's name in the federation.
    pub node: String,
    /// The collector whose snapshot it answers.
    pub collector: Collector,
}

impl Actor for ObservedPeer {
    type Msg = ObservedMsg;
    type State = ObservedPeerArgs;
    type Arguments = ObservedPeerArgs;

    async fn pre_start(
        &self,
        myself: ActorRef<ObservedMsg>,
        args: ObservedPeerArgs,
    ) -> Result<ObservedPeerArgs, ActorProcessingErr> {
        ractor::pg::join(OBSERVED_GROUP.to_owned(), vec![myself.get_cell()]);
        Ok(args)
    }

    async fn handle(
        &self,
        _myself: ActorRef<ObservedMsg>,
        message: ObservedMsg,
        state: &mut ObservedPeerArgs,
    ) -> Result<(), ActorProcessingErr> {
        let ObservedMsg::Snapshot(reply) = message;
        let _ = reply.send(Some(Contribution::of(
            &state.node,
            &state.collector.snapshot(),
        )));
        Ok(())
    }
}

/// The federation of `local` (this node's name and observed graph) and of every remote
/// observed peer that answers within `timeout` (asked all at once). A peer reached through
/// several sessions counts once: merging is idempotent per node.
///
/// # Cancel safety
/// Cancelling it abandons the answers; the peers are unaffected.
pub async fn federate(local: (&str, &Graph), timeout: Duration) -> Federation {
    let mut federation = Federation::new();
    federation.contribute(local.0, local.1);
    let peers: Vec<ActorRef<ObservedMsg>> = ractor::pg::get_members(&OBSERVED_GROUP.to_owned())
        .into_iter()
        .filter(|cell| !cell.get_id().is_local())
        .map(ActorRef::<ObservedMsg>::from)
        .collect();
    let asks = peers.into_iter().map(|peer| async move {
        match peer.call(ObservedMsg::Snapshot, Some(timeout)).await {
            Ok(ractor::rpc::CallResult::Success(Some(c))) => Some(c),
            _ => None,
        }
    });
    let mut tasks = Vec::new();
    for ask in asks {
        tasks.push(tokio::spawn(ask));
    }
    for task in tasks {
        if let Ok(Some(contribution)) = task.await {
            if let Some(graph) = contribution.graph() {
                federation.contribute(contribution.node(), &graph);
            }
        }
    }
    federation
}
