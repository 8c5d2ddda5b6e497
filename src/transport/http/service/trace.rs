//! What the request span reads of an HTTP request's head: its W3C trace context and its
//! HTTP version (`crate::otel`). Read only when the span is recorded.

use crate::otel::TransportContext;
use http::HeaderMap;
use std::borrow::Cow;

/// The W3C trace context of a request's head, and its HTTP version, for its request span: the
/// `traceparent` header when there is exactly one (W3C Trace Context: several are no parent),
/// and every `tracestate` header joined with `,` (several are one list). A value that is not
/// visible ASCII is not read.
pub(crate) fn trace_context(headers: &HeaderMap, version: http::Version) -> TransportContext<'_> {
    let mut parents = headers.get_all("traceparent").iter();
    let traceparent = match (parents.next(), parents.next()) {
        (Some(one), None) => one.to_str().ok(),
        _ => None,
    };
    let mut states = headers
        .get_all("tracestate")
        .iter()
        .filter_map(|v| v.to_str().ok());
    let tracestate = states.next().map(|first| match states.next() {
        None => Cow::Borrowed(first),
        Some(second) => {
            let mut all = format!("{first},{second}");
            for more in states {
                all.push(',');
                all.push_str(more);
            }
            Cow::Owned(all)
        }
    });
    let http_version = match version {
        http::Version::HTTP_2 => Some("2"),
        http::Version::HTTP_11 => Some("1.1"),
        http::Version::HTTP_10 => Some("1.0"),
        _ => None,
    };
    TransportContext {
        traceparent,
        tracestate,
        http_version,
    }
}
