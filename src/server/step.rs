//! What the core asks of its caller: a [`Step`] for one frame, or an [`Answer`] once the host
//! work is done.

use super::pending::Pending;
use super::reply::Reply;

/// What the core asks a transport to do with one frame.
#[derive(Debug)]
#[must_use]
pub enum Step {
    /// Write this reply.
    Reply(Reply),
    /// Write nothing: the frame was a notification.
    Silent,
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
