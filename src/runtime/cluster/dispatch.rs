//! Host dispatch to the runtimes of other nodes: finding their catalog actors (the members of
//! [`DISPATCH_GROUP`] that are not local) and dispatching to one with a bound.

use super::DISPATCH_GROUP;
use crate::protocol::outcome::Unserved;
use crate::runtime::message::{unserved, ApplicationMsg, DispatchResult};
use ractor::{ActorCell, ActorRef, MessagingErr};
use serde_json::Value;
use std::time::Duration;

/// The catalog actors of the runtimes on other nodes this process has a session with (the
/// members of [`DISPATCH_GROUP`] that are not local).
pub fn remote_dispatchers() -> Vec<ActorRef<ApplicationMsg>> {
    ractor::pg::get_members(&DISPATCH_GROUP.to_owned())
        .into_iter()
        .filter(|cell| !cell.get_id().is_local())
        .map(ActorRef::<ApplicationMsg>::from)
        .collect()
}

/// Waits up to `timeout` for a remote dispatcher to appear (after [`ClusterNode::connect`](super::ClusterNode::connect),
/// the peer's groups arrive shortly after the session is ready) and returns the first.
pub async fn wait_for_remote_dispatcher(timeout: Duration) -> Option<ActorRef<ApplicationMsg>> {
    let deadline = tokio::time::Instant::now() + timeout;
    loop {
        if let Some(first) = remote_dispatchers().into_iter().next() {
            return Some(first);
        }
        if tokio::time::Instant::now() >= deadline {
            return None;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Dispatches `tool` with `arguments` to `dispatcher` (a local or a remote catalog actor) and
/// waits at most `timeout` for the answer: the same answer a local caller gets, validation
/// included.
///
/// # Errors
/// As [`ApplicationRef::dispatch`](crate::runtime::ApplicationRef::dispatch); and -32603 with
/// `data.reason = "unavailable"` when the dispatcher's node is gone (before or during the
/// call), or `"deadline"` when no answer came within `timeout`.
///
/// # Cancel safety
/// Cancelling it abandons the answer; the tool may still run on the serving node.
pub async fn dispatch_to(
    dispatcher: &ActorRef<ApplicationMsg>,
    tool: &str,
    arguments: Value,
    timeout: Duration,
) -> DispatchResult {
    let (tx, rx) = ractor::concurrency::oneshot();
    let msg = ApplicationMsg::Dispatch {
        tool: tool.to_owned(),
        arguments,
        extensions: crate::dispatch::Extensions::new(),
        reply: ractor::RpcReplyPort::from((tx, timeout)),
    };
    // Every send failure means the same here: nothing on the other side will run the call.
    if let Err(
        _e @ (MessagingErr::SendErr(_)
        | MessagingErr::ChannelClosed
        | MessagingErr::InvalidActorType),
    ) = dispatcher.send_message(msg)
    {
        return Err(unserved(Unserved::Unavailable));
    }
    match tokio::time::timeout(timeout, rx).await {
        Ok(Ok(answer)) => answer,
        Ok(Err(_)) => Err(unserved(Unserved::Unavailable)),
        Err(_) => Err(unserved(Unserved::Deadline)),
    }
}

/// Joins `cell` (a catalog actor starting) to [`DISPATCH_GROUP`].
pub(crate) fn join_dispatch_group(cell: ActorCell) {
    ractor::pg::join(DISPATCH_GROUP.to_owned(), vec![cell]);
}
