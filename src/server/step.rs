//! What the core asks of its caller: a [`Step`] for one frame, or an [`Answer`] once the host
//! work is done.

use super::pending::Pending;
use super::reply::Reply;
use crate::protocol::RequestId;

/// What the core asks a transport to do with one frame.
#[derive(Debug)]
#[must_use]
pub enum Step {
    /// Write this reply.
    Reply(Reply),
    /// Write nothing: the frame was a notification.
    Silent,
    /// Write nothing, and cancel the request with this id if its host work still runs on this
    /// connection: the frame was a `notifications/cancelled` naming it. A cancelled request is
    /// never answered. An id that names nothing in flight (unknown, already answered) is
    /// ignored, as the specifications say; a malformed one never gets here ([`Step::Silent`]).
    Cancel(RequestId),
    /// Run this host work, then write the reply it yields.
    Pending(Pending),
    /// Write the reply, if any, then end the connection once the work in flight is answered
    /// (`shutdown`, `exit`).
    Close(Option<Reply>),
}

/// What [`Server::answer`](super::Server::answer) asks the caller to write: a [`Step`] with its host work done.
#[derive(Debug)]
#[must_use]
pub enum Answer {
    /// Write this reply.
    Reply(Reply),
    /// Write nothing.
    Silent,
    /// Write the reply, if any, then end the connection.
    Close(Option<Reply>),
}
