//! OTP-style supervision on [`ractor`].
//!
//! A [`Supervisor`] starts an ordered list of [`ChildSpec`]s, each linked to it through
//! ractor's own supervision tree, and reacts to their `SupervisionEvent`s:
//!
//! - **Restart policy** per child ([`Restart`]): permanent children are always
//!   restarted, transient ones only after an abnormal exit (a panic, a handler error,
//!   or a stop reason that [`is_normal_exit`] rejects), temporary ones never.
//! - **Strategy** ([`Strategy`]): `OneForOne` restarts the exited child, `RestForOne`
//!   it and every child started after it, `OneForAll` every child. Siblings are stopped
//!   last-started first, then started again in order.
//! - **Intensity** ([`Intensity`]): more than `max_restarts` restarts within `period`
//!   makes the supervisor stop its children and fail with [`Meltdown`]; its parent
//!   (another supervisor, through ractor's linking) sees `ActorFailed` and applies its
//!   own strategy.
//! - **Ordered shutdown**: when a supervisor stops, its children are stopped one at a
//!   time in reverse start order, each by its [`Shutdown`] policy (graceful stop within
//!   a timeout, then a kill).
//! - **Dynamic children**: [`SupervisorRef::start_child`] / [`SupervisorRef::terminate_child`],
//!   typically temporary children, one per connection.
//!
//! The crate knows nothing of what the children do.
//!
//! # Example
//!
//! A one_for_one supervisor with two children; one is made to fail and only it is restarted.
//!
//! ```
//! use std::time::Duration;
//! use beam_mcp_supervisors::{ChildSpec, Strategy, SupervisorRef, SupervisorSpec};
//! use ractor::{Actor, ActorProcessingErr, ActorRef};
//!
//! struct Worker;
//! impl Actor for Worker {
//!     type Msg = ();
//!     type State = ();
//!     type Arguments = ();
//!     async fn pre_start(&self, _: ActorRef<()>, _: ()) -> Result<(), ActorProcessingErr> {
//!         Ok(())
//!     }
//! }
//!
//! fn worker(id: &str) -> ChildSpec {
//!     ChildSpec::new(id, |sup| async move {
//!         let (child, _) = Actor::spawn_linked(None, Worker, (), sup).await?;
//!         Ok(child.get_cell())
//!     })
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let spec = SupervisorSpec::new(Strategy::OneForOne)
//!     .intensity(3, Duration::from_secs(5))
//!     .child(worker("a"))
//!     .child(worker("b"));
//! let (sup, join) = SupervisorRef::spawn(None, spec).await?;
//!
//! let before = sup.which_children().await?;
//! let a = before[0].cell.clone().expect("a is running");
//! a.stop(Some("boom".into())); // an abnormal exit
//!
//! // Restarting is asynchronous: wait (boundedly) for it.
//! let mut restarted = false;
//! for _ in 0..200 {
//!     if sup.restart_count("a").await? == Some(1) {
//!         restarted = true;
//!         break;
//!     }
//!     tokio::time::sleep(Duration::from_millis(5)).await;
//! }
//! assert!(restarted);
//! let after = sup.which_children().await?;
//! assert_ne!(after[0].cell.as_ref().map(|c| c.get_id()), Some(a.get_id()));
//! assert_eq!(after[1].cell.as_ref().map(|c| c.get_id()),
//!            before[1].cell.as_ref().map(|c| c.get_id()));
//! assert_eq!(sup.restart_count("b").await?, Some(0));
//!
//! sup.stop_gracefully(Duration::from_secs(5)).await?;
//! join.await?;
//! # Ok(())
//! # }
//! ```
#![deny(missing_docs, unsafe_code)]
#![warn(unreachable_pub, missing_debug_implementations)]
#![cfg_attr(not(test), warn(clippy::unwrap_used, clippy::expect_used))]

mod child;
mod error;
mod handle;
mod intensity;
mod shutdown;
mod strategy;
mod supervisor;

pub use child::{is_normal_exit, ChildInfo, ChildSpec, Restart, StartFuture};
pub use error::{
    CallError, Meltdown, Request, StartChildError, StartError, StopError, TerminateChildError,
};
pub use handle::{SupervisorRef, DEFAULT_CALL_TIMEOUT};
pub use intensity::Intensity;
pub use shutdown::{Shutdown, KILL_WAIT, SHUTDOWN_REASON};
pub use strategy::Strategy;
pub use supervisor::{Supervisor, SupervisorMsg, SupervisorSpec, SupervisorState, SupervisorStats};
