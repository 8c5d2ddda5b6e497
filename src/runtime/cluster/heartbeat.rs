//! The beat that keeps every session audible: each node runs a heartbeat actor in the group
//! [`HEARTBEAT_GROUP`] and casts a beat over each of its sessions to the peer's heartbeat
//! actor at a quarter of its detection bound, so a peer that is there is heard well within the bound (`link.rs`), whatever else
//! the session carries. A beat is a cast of no bytes under [`BEAT_VARIANT`]; the heartbeat
//! actor reads and drops it.

use ractor::message::{BoxedDowncastErr, SerializedMessage};
use ractor::{Actor, ActorProcessingErr, ActorRef};
use ractor_cluster::NodeServerMessage;
use std::collections::HashSet;
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

/// Casts a beat over each of `server`'s sessions each `interval`, until aborted: to every
/// heartbeat actor the session reaches (its remote actors whose pid a remote member of
/// [`HEARTBEAT_GROUP`] has).
///
/// Found through each session rather than through the group alone: the group keeps one
/// reference per remote id, and the ids of two node servers in one process can be the same
/// (each counts its sessions from 0), so a group member may be another session's reference.
///
/// # Cancel safety
/// Dropping it stops the beats; nothing is half sent.
pub(super) async fn beat(server: ActorRef<NodeServerMessage>, interval: Duration) {
    let mut ticks = tokio::time::interval(interval);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let asked = u64::try_from(interval.as_millis()).unwrap_or(u64::MAX);
    loop {
        ticks.tick().await;
        let hearts: HashSet<u64> = ractor::pg::get_members(&HEARTBEAT_GROUP.to_owned())
            .iter()
            .map(|member| member.get_id())
            .filter(|id| !id.is_local())
            .map(|id| id.pid())
            .collect();
        if hearts.is_empty() {
            continue;
        }
        let Ok(sessions) = ractor::call_t!(server, NodeServerMessage::GetSessions, asked) else {
            continue;
        };
        for session in sessions.values() {
            for child in session.actor.get_children() {
                let id = child.get_id();
                if !id.is_local() && hearts.contains(&id.pid()) {
                    let _ = ActorRef::<HeartbeatMsg>::from(child).cast(HeartbeatMsg::Beat);
                }
            }
        }
    }
}
