//! What a transport knows of a request's trace beside its frame.

use std::borrow::Cow;

/// What a transport read beside a request's frame that its span records: over HTTP, the
/// `traceparent` and `tracestate` headers and the protocol version; over stdio, nothing.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct TransportContext<'a> {
    /// The one `traceparent` header's value (absent when there are none or several).
    pub(crate) traceparent: Option<&'a str>,
    /// The `tracestate` headers' values, joined with `,` as W3C Trace Context combines them.
    pub(crate) tracestate: Option<Cow<'a, str>>,
    /// The HTTP version the request came in: `1.1` or `2`.
    pub(crate) http_version: Option<&'static str>,
}
