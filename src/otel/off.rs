//! The request span without the `otel` feature: nothing, at no cost. The core calls the same
//! methods in every build; here each is empty and the type has no size.

use super::context::TransportContext;
use crate::dispatch::Carrier;
use crate::protocol::outcome::Outcome;
use crate::protocol::{Incoming, Revision, RpcError};
use std::future::Future;

/// No span: the `otel` feature is off.
#[derive(Debug, Clone)]
pub(crate) struct RequestSpan;

impl RequestSpan {
    pub(crate) fn none() -> Self {
        RequestSpan
    }

    pub(crate) fn open<'a>(
        _m: &Incoming<'_>,
        _carrier: Carrier,
        _beside: impl FnOnce() -> TransportContext<'a>,
    ) -> Self {
        RequestSpan
    }

    pub(crate) fn revision(&self, _revision: Revision) {}

    pub(crate) fn tool(&self, _tool: &str) {}

    pub(crate) fn prompt(&self, _prompt: &str) {}

    pub(crate) fn resource(&self, _uri: &str) {}

    pub(crate) fn answered(&self, _outcome: Outcome, _error: Option<&RpcError>) {}

    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn refused(&self, _error: &RpcError) {}

    pub(crate) fn cancelled(&self) {}

    pub(crate) fn around<F: Future>(&self, work: F) -> F {
        work
    }
}
