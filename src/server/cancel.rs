//! What a request's host work leaves behind when it is dropped before it answered: its
//! cancellation token fired, the cancellation counted against its carrier, and its request
//! span marked cancelled.

use crate::dispatch::{CancellationToken, Carrier};
use crate::metrics;
use crate::otel::RequestSpan;

/// Armed while a request's host work may still be cancelled. Dropped armed (the work's future
/// dropped, or the work never started), it fires the call's token, so that work the host
/// handed elsewhere stops too, and counts a cancellation, unless whoever dropped the work
/// fired the token first (the dispatch pool at a deadline counts its own, and records the
/// answer it makes on the request's span).
#[derive(Debug)]
pub(crate) struct CancelOnDrop {
    token: CancellationToken,
    carrier: Carrier,
    armed: bool,
    /// The request's span (feature `otel`; nothing without it).
    span: RequestSpan,
}

impl CancelOnDrop {
    pub(crate) fn new(token: CancellationToken, carrier: Carrier) -> Self {
        CancelOnDrop {
            token,
            carrier,
            armed: true,
            span: RequestSpan::none(),
        }
    }

    pub(crate) fn token(&self) -> &CancellationToken {
        &self.token
    }

    /// The request's span, which the work runs in and records its answer on.
    pub(crate) fn span(&self) -> &RequestSpan {
        &self.span
    }

    /// The work is the request `span`'s.
    pub(crate) fn trace(&mut self, span: RequestSpan) {
        self.span = span;
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
            self.span.cancelled();
            self.token.cancel();
        }
    }
}
