//! The beat that keeps every session audible: each node runs a heartbeat actor in the group
//! [`HEARTBEAT_GROUP`] and casts a beat to every remote member at a quarter of its detection
//! bound, so a peer that is there is heard well within the bound (`link.rs`), whatever else
//! the session carries. A beat is a cast of no bytes under [`BEAT_VARIANT`]; the heartbeat
//! actor reads and drops it.

use ractor::message::{BoxedDowncastErr, SerializedMessage};
use ractor::{Actor, ActorProcessingErr, ActorRef};
use std::time::Duration;

/// The process group of the nodes' heartbeat actors.
pub const HEARTBEAT_GROUP: &str = "beam_mcp.heartbeat";

/// The variant a beat travels under.
pub const BEAT_VARIANT: &str = "beam_mcp.beat.v1";

/// The shortest interval between beats, whatever the bound.
const MIN_INTERVAL: Duration = Duration::from_millis(50);

/// A heartbeat actor's one message.
#[derive(Debug)]
pub(super) enum HeartbeatMsg {
    Beat,
}

impl ractor::Message for HeartbeatMsg {
    fn serializable() -> bool {
        true
    }

    fn serialize(self) -> Result<SerializedMessage, BoxedDowncastErr> {
        Ok(SerializedMessage::Cast {
            variant: BEAT_VARIANT.to_owned(),
            args: Vec::new(),
            metadata: None,
        })
    }

    fn deserialize(bytes: SerializedMessage) -> Result<Self, BoxedDowncastErr> {
        match bytes {
            SerializedMessage::Cast { variant, .. } if variant == BEAT_VARIANT => {
                Ok(HeartbeatMsg::Beat)
            }
            _ => Err(BoxedDowncastErr),
        }
    }
}

pub(super) struct Heartbeat;

impl Actor for Heartbeat {
    type Msg = HeartbeatMsg;
    type State = ();
    type Arguments = ();

    async fn pre_start(
        &self,
        myself: ActorRef<HeartbeatMsg>,
        (): (),
    ) -> Result<(), ActorProcessingErr> {
        ractor::pg::join(HEARTBEAT_GROUP.to_owned(), vec![myself.get_cell()]);
        Ok(())
    }

    async fn handle(
        &self,
        _: ActorRef<HeartbeatMsg>,
        HeartbeatMsg::Beat: HeartbeatMsg,
        (): &mut (),
    ) -> Result<(), ActorProcessingErr> {
        // Hearing it was the point (the link noted the bytes).
        Ok(())
    }
}

/// The interval between beats for a detection bound.
pub(super) fn interval(detect: Duration) -> Duration {
    (detect / 4).max(MIN_INTERVAL)
}

/// Casts a beat to every remote heartbeat actor each `interval`, until aborted.
///
/// # Cancel safety
/// Dropping it stops the beats; nothing is half sent.
pub(super) async fn beat(interval: Duration) {
    let mut ticks = tokio::time::interval(interval);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        ticks.tick().await;
        for member in ractor::pg::get_members(&HEARTBEAT_GROUP.to_owned()) {
            if !member.get_id().is_local() {
                let _ = ActorRef::<HeartbeatMsg>::from(member).cast(HeartbeatMsg::Beat);
            }
        }
    }
}
