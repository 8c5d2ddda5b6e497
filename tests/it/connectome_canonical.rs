//! Canonical bytes: cross-checked against a second RFC 8785 implementation (`serde_jcs`) on
//! generated values, idempotent, and independent of key insertion order.

use beam_mcp::connectome::canonical::{canonicalize_json, format_double, to_canonical_bytes};
use proptest::prelude::*;
use serde_json::{Map, Value};
use unicode_normalization::UnicodeNormalization;

fn nfc(s: String) -> String {
    s.nfc().collect()
}

/// Strings already in NFC (the second implementation does not normalize), drawn from ASCII,
/// control characters, BMP and astral planes so UTF-16 key order differs from code points.
fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            prop::char::range('\u{0}', '\u{7f}'),
            prop::char::range('\u{e000}', '\u{ffff}'),
            prop::char::range('\u{10000}', '\u{1f9ff}'),
            any::<char>(),
        ],
        0..6,
    )
    .prop_map(|cs| nfc(cs.into_iter().collect()))
}

const SAFE: f64 = 9007199254740991.0;

fn safe_double() -> impl Strategy<Value = f64> {
    any::<f64>().prop_filter("finite, within ±(2^53 − 1)", |f| {
        f.is_finite() && f.abs() <= SAFE
    })
}

fn number() -> impl Strategy<Value = Value> {
    prop_oneof![
        (-(1i64 << 53) + 1..(1i64 << 53)).prop_map(Value::from),
        safe_double().prop_map(Value::from),
        (-1e6f64..1e6).prop_map(Value::from),
        (-30i32..15).prop_map(|e| Value::from(1.5f64 * 10f64.powi(e))),
    ]
}

fn value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        number(),
        text().prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map(text(), inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn reversed(v: &Value) -> Value {
    match v {
        Value::Array(items) => Value::Array(items.iter().map(reversed).collect()),
        Value::Object(m) => {
            let mut out = Map::new();
            for (k, x) in m.iter().rev() {
                out.insert(k.clone(), reversed(x));
            }
            Value::Object(out)
        }
        other => other.clone(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn agrees_with_serde_jcs(v in value()) {
        let ours = to_canonical_bytes(&v).unwrap();
        let theirs = serde_jcs::to_vec(&v).unwrap();
        prop_assert_eq!(String::from_utf8(ours).unwrap(), String::from_utf8(theirs).unwrap());
    }

    #[test]
    fn is_idempotent(v in value()) {
        let once = to_canonical_bytes(&v).unwrap();
        let twice = canonicalize_json(&once).unwrap();
        prop_assert_eq!(once, twice);
    }

    #[test]
    fn ignores_key_insertion_order(v in value()) {
        prop_assert_eq!(to_canonical_bytes(&v).unwrap(), to_canonical_bytes(&reversed(&v)).unwrap());
    }

    #[test]
    fn doubles_agree_with_serde_jcs(f in any::<f64>().prop_filter("finite", |f| f.is_finite())) {
        // format_double itself has no range rule: compare over every finite double.
        let theirs = String::from_utf8(serde_jcs::to_vec(&f).unwrap()).unwrap();
        prop_assert_eq!(format_double(f).unwrap(), theirs);
    }
}

#[test]
fn numbers_beyond_2_pow_53_are_refused_whatever_their_spelling() {
    for text in ["9007199254740992", "-9007199254740992", "1.5e16", "1e300"] {
        assert!(canonicalize_json(text.as_bytes()).is_err(), "{text}");
    }
    assert_eq!(
        canonicalize_json(b"9007199254740991").unwrap(),
        b"9007199254740991"
    );
    assert_eq!(canonicalize_json(b"1.0").unwrap(), b"1");
    assert_eq!(canonicalize_json(b"-0.0").unwrap(), b"0");
}

#[test]
fn strings_are_written_in_nfc() {
    let v = serde_json::json!({"k": "e\u{301}"});
    assert_eq!(
        to_canonical_bytes(&v).unwrap(),
        "{\"k\":\"\u{e9}\"}".as_bytes()
    );
}
