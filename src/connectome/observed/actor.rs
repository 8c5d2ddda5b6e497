//! The collector's actor: lifecycle, attach/detach, snapshot, reset.

use ractor::{Actor, ActorProcessingErr, ActorRef, RpcReplyPort};

use super::collector::Collector;
use crate::connectome::model::ObservedGraph;

/// Messages to a [`CollectorActor`].
#[derive(Debug)]
pub enum CollectorMsg {
    /// Start recording.
    Attach,
    /// Stop recording; counts are kept.
    Detach,
    /// Zero every count.
    Reset,
    /// Reply with the observed graph.
    Snapshot(RpcReplyPort<ObservedGraph>),
    /// Reply with a handle to the collector (for the dispatch site and the layer).
    Handle(RpcReplyPort<Collector>),
}

// Local only: under ractor's `cluster` feature (which removes ractor's blanket impl) it says
// so; the federated export asks other nodes through its own message (`cluster` module).
#[cfg(feature = "cluster")]
impl ractor::Message for CollectorMsg {}

/// The actor owning a [`Collector`]. Its argument is the collector (so the host may hand
/// clones to the dispatch site first); it detaches the collector when it stops.
///
/// ```
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// use beam_mcp::connectome::observed::{Collector, CollectorActor, CollectorMsg};
/// let collector = Collector::new();
/// let (actor, handle) = ractor::Actor::spawn(None, CollectorActor, collector.clone()).await.unwrap();
/// actor.cast(CollectorMsg::Attach).unwrap();
/// let graph = ractor::call!(actor, CollectorMsg::Snapshot).unwrap();
/// assert_eq!(graph.edge_count(), 0);
/// assert!(collector.is_attached());
/// actor.stop(None);
/// handle.await.unwrap();
/// assert!(!collector.is_attached());
/// # });
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct CollectorActor;

impl Actor for CollectorActor {
    type Msg = CollectorMsg;
    type State = Collector;
    type Arguments = Collector;

    async fn pre_start(
        &self,
        _myself: ActorRef<Self::Msg>,
        collector: Collector,
    ) -> Result<Collector, ActorProcessingErr> {
        Ok(collector)
    }

    async fn post_stop(
        &self,
        _myself: ActorRef<Self::Msg>,
        collector: &mut Collector,
    ) -> Result<(), ActorProcessingErr> {
        collector.detach();
        Ok(())
    }

    async fn handle(
        &self,
        _myself: ActorRef<Self::Msg>,
        message: CollectorMsg,
        collector: &mut Collector,
    ) -> Result<(), ActorProcessingErr> {
        match message {
            CollectorMsg::Attach => collector.attach(),
            CollectorMsg::Detach => collector.detach(),
            CollectorMsg::Reset => collector.reset(),
            CollectorMsg::Snapshot(reply) => {
                // A caller that gave up waiting is no fault of the collector's.
                let _ = reply.send(collector.snapshot());
            }
            CollectorMsg::Handle(reply) => {
                let _ = reply.send(collector.clone());
            }
        }
        Ok(())
    }
}
