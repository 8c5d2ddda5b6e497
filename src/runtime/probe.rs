//! The runtime's health: live while the supervision tree is up; ready while, besides, the
//! catalog actor runs, the dispatch pool admits and no stop has begun. Read from the state
//! the tree already keeps (the catalog's slot, the pool's admission), without a message.

use super::catalog::DispatcherSlot;
use super::pool::Pool;
use crate::health::{Health, Probe, Unready};
use ractor::{ActorCell, ActorStatus};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

/// What the runtime's health is read from.
pub(crate) struct RuntimeProbe {
    /// The root supervisor, once it is spawned.
    pub(crate) root: OnceLock<ActorCell>,
    pub(crate) catalog: DispatcherSlot,
    pub(crate) pool: Pool,
    /// Set when [`super::ApplicationRef::stop`] begins.
    pub(crate) stopping: AtomicBool,
}

impl RuntimeProbe {
    pub(crate) fn new(catalog: DispatcherSlot, pool: Pool) -> Self {
        RuntimeProbe {
            root: OnceLock::new(),
            catalog,
            pool,
            stopping: AtomicBool::new(false),
        }
    }

    pub(crate) fn stop_begins(&self) {
        self.stopping.store(true, Ordering::Release);
    }
}

/// Whether an actor is up: started (its status flips to `Running` just after its spawn
/// returns) and not on its way down.
fn running(cell: &ActorCell) -> bool {
    cell.get_status() <= ActorStatus::Upgrading
}

impl Probe for RuntimeProbe {
    fn health(&self) -> Health {
        let mut unready = Vec::new();
        let mut stopping = self.stopping.load(Ordering::Acquire);
        let live = match self.root.get().map(ActorCell::get_status) {
            // Still being built: alive, not yet serving.
            None => {
                unready.push(Unready::Starting);
                true
            }
            Some(ActorStatus::Stopped) => {
                unready.push(Unready::Down);
                false
            }
            // Stopping, by `stop` or because it gave up: alive while it finishes its work.
            Some(ActorStatus::Draining | ActorStatus::Stopping) => {
                stopping = true;
                true
            }
            Some(_) => true,
        };
        if stopping {
            unready.push(Unready::Stopping);
        }
        let catalog = self.catalog.read().unwrap_or_else(|e| e.into_inner());
        if !catalog.as_ref().is_some_and(|a| running(&a.get_cell())) {
            unready.push(Unready::Catalog);
        }
        drop(catalog);
        if !self.pool.admits() {
            unready.push(Unready::Pool);
        }
        Health::new(live, unready)
    }
}

impl std::fmt::Debug for RuntimeProbe {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RuntimeProbe").finish_non_exhaustive()
    }
}
