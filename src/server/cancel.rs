//! What a request's host work leaves behind when it is dropped before it answered: its
//! cancellation token fired, and the cancellation counted against its carrier.

use crate::dispatch::{CancellationToken, Carrier};
use crate::metrics;

/// Armed while a request's host work may still be cancelled. Dropped armed (the work's future
/// dropped, or the work never started), it fires the call's token, so that work the host
/// handed elsewhere stops too, and counts a cancellation, unless whoever dropped the work
/// fired the token first (the dispatch pool at a deadline counts its own).
#[derive(Debug)]
pub(crate) struct CancelOnDrop {
    token: CancellationToken,
    carrier: Carrier,
    armed: bool,
}

impl CancelOnDrop {
    pub(crate) fn new(token: CancellationToken, carrier: Carrier) -> Self {
        CancelOnDrop {
            token,
            carrier,
            armed: true,
        }
    }

    pub(crate) fn token(&self) -> &CancellationToken {
        &self.token
    }

    /// The work answered (or was refused without running): nothing to cancel.
    pub(crate) fn disarm(mut self) {
        self.armed = false;
    }
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        if !self.token.is_cancelled() {
            metrics::cancelled(self.carrier);
            self.token.cancel();
        }
    }
}
