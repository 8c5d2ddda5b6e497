//! W3C Trace Context: a `traceparent` value, with its `tracestate`, read into the remote span
//! context a request span is parented on. Pure: strings in, a span context or nothing out.
//!
//! The form is W3C Trace Context's (§3.2): `version "-" trace-id "-" parent-id "-"
//! trace-flags`, every field lower-case hex, the ids not all zero, version `ff` invalid;
//! version `00` exactly 55 characters, a later version at least 55 with a `-` after the flags
//! if it goes on (its further fields are not read). Nothing is trimmed: an HTTP header's
//! surrounding whitespace is gone before it gets here, and a `_meta` string is the client's
//! own. Anything else is not a trace context, and the request is traced as if none was sent.

use opentelemetry::trace::{SpanContext, SpanId, TraceFlags, TraceId, TraceState};

/// The characters of `version "-" trace-id "-" parent-id "-" trace-flags`.
const LEN: usize = 2 + 1 + 32 + 1 + 16 + 1 + 2;

/// A `traceparent`'s fields, when the value is one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct TraceParent {
    pub(super) trace_id: [u8; 16],
    pub(super) parent_id: [u8; 8],
    pub(super) flags: u8,
}

/// The remote span context `traceparent` names, carrying `tracestate`'s entries when it is a
/// valid list (an invalid one is dropped, as W3C Trace Context allows, and OpenTelemetry's
/// own propagator does); `None` when `traceparent` is not W3C Trace Context's form. Of the
/// flags, only `sampled` is kept (OpenTelemetry's W3C propagator keeps no other).
pub(super) fn remote_parent(traceparent: &str, tracestate: Option<&str>) -> Option<SpanContext> {
    let parent = parse(traceparent)?;
    let state = tracestate
        .and_then(|s| s.parse::<TraceState>().ok())
        .unwrap_or_default();
    Some(SpanContext::new(
        TraceId::from_bytes(parent.trace_id),
        SpanId::from_bytes(parent.parent_id),
        TraceFlags::new(parent.flags) & TraceFlags::SAMPLED,
        true,
        state,
    ))
}

/// The fields of `value`, when it is a `traceparent`.
pub(super) fn parse(value: &str) -> Option<TraceParent> {
    let b = value.as_bytes();
    if b.len() < LEN {
        return None;
    }
    let version = hex::<1>(&b[0..2])?[0];
    let sized = match version {
        0xff => false,
        0x00 => b.len() == LEN,
        _ => b.len() == LEN || b[LEN] == b'-',
    };
    if !sized || b[2] != b'-' || b[35] != b'-' || b[52] != b'-' {
        return None;
    }
    let trace_id = hex::<16>(&b[3..35])?;
    let parent_id = hex::<8>(&b[36..52])?;
    let flags = hex::<1>(&b[53..55])?[0];
    if trace_id == [0; 16] || parent_id == [0; 8] {
        return None;
    }
    Some(TraceParent {
        trace_id,
        parent_id,
        flags,
    })
}

/// `N` bytes from `2 * N` lower-case hex digits.
fn hex<const N: usize>(digits: &[u8]) -> Option<[u8; N]> {
    if digits.len() != 2 * N {
        return None;
    }
    let mut out = [0u8; N];
    for (byte, pair) in out.iter_mut().zip(digits.chunks_exact(2)) {
        *byte = (nibble(pair[0])? << 4) | nibble(pair[1])?;
    }
    Some(out)
}

fn nibble(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use opentelemetry::propagation::TextMapPropagator;
    use opentelemetry::trace::TraceContextExt;
    use proptest::prelude::*;
    use std::collections::HashMap;

    const GOOD: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    #[test]
    fn the_w3c_example_reads_as_its_fields() {
        let p = parse(GOOD).expect("valid");
        assert_eq!(
            TraceId::from_bytes(p.trace_id).to_string(),
            "4bf92f3577b34da6a3ce929d0e0e4736"
        );
        assert_eq!(
            SpanId::from_bytes(p.parent_id).to_string(),
            "00f067aa0ba902b7"
        );
        assert_eq!(p.flags, 1);
        let cx = remote_parent(GOOD, Some("rojo=00f067aa0ba902b7,congo=t61rcWkgMzE")).unwrap();
        assert!(cx.is_remote() && cx.is_sampled());
        assert_eq!(cx.trace_state().get("congo"), Some("t61rcWkgMzE"));
    }

    #[test]
    fn odd_values_are_not_trace_contexts() {
        let odd = [
            "",
            "00",
            "-",
            "garbage",
            // Upper case anywhere.
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00F067AA0BA902B7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0A",
            "0A-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            // All-zero ids.
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
            // Version ff, and version 00 with anything after the flags.
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-00",
            // A later version that goes on without a dash.
            "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01x",
            // Short fields that a lenient parser (a radix parse) would take.
            "00-+bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-+0f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e473-600f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-1",
            // Whitespace, wrong separators, non-ASCII of the right byte length.
            " 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01 ",
            "00_4bf92f3577b34da6a3ce929d0e0e4736_00f067aa0ba902b7_01",
            "00-4bf92f3577b34da6a3ce929d0e0e47é-00f067aa0ba902b7-01",
        ];
        for value in odd {
            assert_eq!(parse(value), None, "{value:?}");
            assert!(remote_parent(value, Some("a=b")).is_none(), "{value:?}");
        }
    }

    #[test]
    fn a_later_version_is_read_for_its_first_four_fields() {
        let later = "cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-09-whatever-follows";
        let p = parse(later).expect("a future version is parsed as version 00");
        assert_eq!(p.flags, 9);
        // Only `sampled` is carried.
        let cx = remote_parent(later, None).unwrap();
        assert_eq!(cx.trace_flags(), TraceFlags::SAMPLED);
        assert!(parse("cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-09").is_some());
    }

    #[test]
    fn a_bad_tracestate_is_dropped_and_the_parent_kept() {
        for state in ["no equals sign", "UPPER=case", "a=b,c", "k=v=w"] {
            let cx = remote_parent(GOOD, Some(state)).expect("the parent stands");
            assert_eq!(cx.trace_state().header(), "", "{state:?}");
        }
    }

    /// OpenTelemetry's own W3C propagator, for comparison.
    fn sdk(traceparent: &str) -> Option<SpanContext> {
        let carrier = HashMap::from([("traceparent".to_owned(), traceparent.to_owned())]);
        let cx = opentelemetry_sdk::propagation::TraceContextPropagator::new().extract(&carrier);
        let sc = cx.span().span_context().clone();
        sc.is_valid().then_some(sc)
    }

    fn lower_hex(n: usize) -> impl Strategy<Value = String> {
        proptest::collection::vec(proptest::sample::select(b"0123456789abcdef".to_vec()), n)
            .prop_map(|v| String::from_utf8(v).unwrap_or_default())
    }

    proptest! {
        /// Any string at all: an answer, never a panic.
        #[test]
        fn any_string_is_answered(s in "\\PC{0,80}") {
            let _ = remote_parent(&s, Some(&s));
        }

        /// Every well-formed value is read as its fields, and OpenTelemetry's propagator reads
        /// the same ids from it.
        #[test]
        fn a_well_formed_value_agrees_with_the_sdk(
            trace in lower_hex(32), parent in lower_hex(16), flags in lower_hex(2)
        ) {
            let value = format!("00-{trace}-{parent}-{flags}");
            let ours = remote_parent(&value, None);
            let zero = trace.bytes().all(|c| c == b'0') || parent.bytes().all(|c| c == b'0');
            prop_assert_eq!(ours.is_none(), zero);
            if let Some(cx) = ours {
                let theirs = sdk(&value).expect("the SDK reads it too");
                prop_assert_eq!(cx.trace_id(), theirs.trace_id());
                prop_assert_eq!(cx.span_id(), theirs.span_id());
                prop_assert_eq!(cx.trace_flags(), theirs.trace_flags());
                prop_assert_eq!(cx.trace_id().to_string(), trace);
            }
        }

        /// One byte of a valid value changed to anything that breaks its form: not a parent.
        #[test]
        fn one_broken_byte_is_not_a_parent(at in 0usize..LEN, byte in any::<u8>()) {
            let mut bytes = GOOD.as_bytes().to_vec();
            let dash = matches!(at, 2 | 35 | 52);
            let fits = if dash { byte == b'-' } else { byte.is_ascii_digit() || (b'a'..=b'f').contains(&byte) };
            bytes[at] = byte;
            let value = String::from_utf8_lossy(&bytes).into_owned();
            let version_ff = at < 2 && value.starts_with("ff");
            if !fits || version_ff {
                prop_assert!(parse(&value).is_none(), "{:?}", value);
            }
        }
    }
}
