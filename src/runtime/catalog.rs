//! The catalog actor: the address host actors send `Dispatch` and `Change` to (and, with the
//! `cluster` feature, the member of the dispatch process group remote nodes find). It hands
//! each `Dispatch`'s host work to the pool without waiting for it, and applies each `Change`
//! to the live catalog, one at a time, in mailbox order.
//!
//! The catalog's state is not the actor's: it is the `Server`'s shared cell, which the
//! supervisor hands every life of the actor and every transport reads without asking it. A
//! change is published there, whole, before the actor answers; the actor keeps nothing a
//! crash could lose. A restart restores the address (a fresh actor, put back in the slot
//! `ApplicationRef::dispatcher` reads and in the process group) and serves the latest catalog,
//! because that is the only one there is.

use super::message::{answer, ApplicationMsg};
use super::pool::{Pool, ReplyTo};
use crate::server::Server;
use ractor::{Actor, ActorProcessingErr, ActorRef};
use std::sync::{Arc, RwLock};

/// The slot where the current catalog actor is found (it changes when the actor restarts).
pub(crate) type DispatcherSlot = Arc<RwLock<Option<ActorRef<ApplicationMsg>>>>;

pub(crate) struct CatalogArgs {
    pub(crate) server: Server,
    pub(crate) pool: Pool,
    pub(crate) slot: DispatcherSlot,
}

pub(crate) struct CatalogState {
    server: Server,
    pool: Pool,
}

/// The catalog actor.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct CatalogActor;

impl Actor for CatalogActor {
    type Msg = ApplicationMsg;
    type State = CatalogState;
    type Arguments = CatalogArgs;

    async fn pre_start(
        &self,
        myself: ActorRef<ApplicationMsg>,
        args: CatalogArgs,
    ) -> Result<CatalogState, ActorProcessingErr> {
        #[cfg(feature = "cluster")]
        super::cluster::join_dispatch_group(myself.get_cell());
        *args.slot.write().unwrap_or_else(|e| e.into_inner()) = Some(myself);
        Ok(CatalogState {
            server: args.server,
            pool: args.pool,
        })
    }

    async fn handle(
        &self,
        _myself: ActorRef<ApplicationMsg>,
        message: ApplicationMsg,
        state: &mut CatalogState,
    ) -> Result<(), ActorProcessingErr> {
        match message {
            ApplicationMsg::Dispatch {
                tool,
                arguments,
                extensions,
                reply,
            } => match state.server.host_call(&tool, arguments, extensions) {
                // The actor never waits for host work: the pool answers the port.
                Ok(p) => state.pool.submit(p, ReplyTo::Host(reply)),
                Err(r) => {
                    let _ = reply.send(answer(r));
                }
            },
            // Applied in full before the answer: a change the actor started is never half done.
            ApplicationMsg::Change { change, reply } => {
                let _ = reply.send(state.server.change(change));
            }
        }
        Ok(())
    }
}

impl std::fmt::Debug for CatalogArgs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CatalogArgs").finish_non_exhaustive()
    }
}

impl std::fmt::Debug for CatalogState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CatalogState")
            .field("server", &self.server)
            .finish_non_exhaustive()
    }
}
