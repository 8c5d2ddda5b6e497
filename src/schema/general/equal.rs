//! JSON equality as JSON Schema defines it (`1` equals `1.0`, objects ignore member order), and
//! a hash that agrees with it, for `enum`, `const` and `uniqueItems`.
//!
//! The hash is keyed per process (std's `RandomState`, SipHash) and a number is hashed by its
//! exact value, so that integers a caller picks near 2^63 do not land in one bucket: each item
//! of a `uniqueItems` array is hashed once and compared only with the items sharing its hash.

use std::cmp::Ordering;
use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hash, Hasher};

use serde_json::{Number, Value};

use super::super::number;

/// Whether two values are equal as JSON Schema compares them, counting the values looked at
/// into `work`; `None` when telling would take more than `depth` levels of recursion.
pub(super) fn equal(a: &Value, b: &Value, work: &mut u64, depth: usize) -> Option<bool> {
    *work += 1;
    let nested = |x: &Value, y: &Value, work: &mut u64| {
        depth.checked_sub(1).and_then(|d| equal(x, y, work, d))
    };
    Some(match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Number(x), Value::Number(y)) => number::compare(x, y) == Some(Ordering::Equal),
        (Value::String(x), Value::String(y)) => {
            *work += (x.len() / 64) as u64;
            x == y
        }
        (Value::Array(x), Value::Array(y)) => {
            if x.len() != y.len() {
                return Some(false);
            }
            for (a, b) in x.iter().zip(y) {
                if !nested(a, b, work)? {
                    return Some(false);
                }
            }
            true
        }
        (Value::Object(x), Value::Object(y)) => {
            if x.len() != y.len() {
                return Some(false);
            }
            for (k, a) in x {
                match y.get(k) {
                    Some(b) if nested(a, b, work)? => {}
                    _ => return Some(false),
                }
            }
            true
        }
        _ => false,
    })
}

/// A hash of `v` that equal values share; `None` when `v` nests deeper than `depth` levels.
pub(super) fn hash(keys: &RandomState, v: &Value, work: &mut u64, depth: usize) -> Option<u64> {
    let mut h = keys.build_hasher();
    feed(keys, v, &mut h, work, depth)?;
    Some(h.finish())
}

fn feed(
    keys: &RandomState,
    v: &Value,
    h: &mut impl Hasher,
    work: &mut u64,
    depth: usize,
) -> Option<()> {
    *work += 1;
    match v {
        Value::Null => 0u8.hash(h),
        Value::Bool(b) => (1u8, *b).hash(h),
        Value::Number(n) => {
            2u8.hash(h);
            hash_number(n, h);
        }
        Value::String(s) => {
            *work += (s.len() / 64) as u64;
            (3u8, s.as_str()).hash(h);
        }
        Value::Array(items) => {
            (4u8, items.len()).hash(h);
            for item in items {
                feed(keys, item, h, work, depth.checked_sub(1)?)?;
            }
        }
        Value::Object(map) => {
            // Order-independent: each member hashed apart, the hashes summed.
            let mut sum = 0u64;
            for (k, v) in map {
                let mut member = keys.build_hasher();
                k.hash(&mut member);
                feed(keys, v, &mut member, work, depth.checked_sub(1)?)?;
                sum = sum.wrapping_add(member.finish());
            }
            (5u8, map.len(), sum).hash(h);
        }
    }
    Some(())
}

/// The hasher of a table keyed by [`hash`]'s output: the key is already a keyed hash, so it is
/// taken as is.
#[derive(Default)]
pub(super) struct Prehashed(u64);

impl Hasher for Prehashed {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        // Only `write_u64` is used; anything else is folded in rather than lost.
        for b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(*b);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

/// Integers (and floats with an integral value within `i128`) hash as that integer, so that
/// `1` and `1.0` agree; other floats by their bits (`-0.0` as `0`).
fn hash_number(n: &Number, h: &mut impl Hasher) {
    const TWO_POW_127: f64 = 170_141_183_460_469_231_731_687_303_715_884_105_728.0;
    if let Some(u) = n.as_u64() {
        (0u8, i128::from(u)).hash(h);
    } else if let Some(i) = n.as_i64() {
        (0u8, i128::from(i)).hash(h);
    } else {
        let f = n.as_f64().unwrap_or(f64::NAN);
        if f.fract() == 0.0 && f.abs() < TWO_POW_127 {
            (0u8, f as i128).hash(h);
        } else {
            (1u8, f.to_bits()).hash(h);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn equal_values_hash_alike() {
        let keys = RandomState::new();
        let mut w = 0;
        for (a, b) in [
            (json!(1), json!(1.0)),
            (json!(-3), json!(-3.0)),
            (
                json!({"a": [1, 2.0], "b": null}),
                json!({"b": null, "a": [1.0, 2]}),
            ),
            (json!(0.0), json!(-0.0)),
            (
                json!(9_223_372_036_854_775_808_u64),
                json!(9_223_372_036_854_775_808.0),
            ),
        ] {
            assert_eq!(equal(&a, &b, &mut w, 8), Some(true), "{a} {b}");
            let (x, y) = (hash(&keys, &a, &mut w, 8), hash(&keys, &b, &mut w, 8));
            assert!(x.is_some() && x == y, "{a} {b}");
        }
        for (a, b) in [
            (
                json!(9_007_199_254_740_993_u64),
                json!(9_007_199_254_740_992.0),
            ),
            (json!([1]), json!([1, 1])),
            (json!({"a": 1}), json!({"b": 1})),
            (json!("1"), json!(1)),
        ] {
            assert_eq!(equal(&a, &b, &mut w, 8), Some(false), "{a} {b}");
        }
        // Past the depth it says so rather than recursing.
        assert_eq!(equal(&json!([[[1]]]), &json!([[[1]]]), &mut w, 2), None);
        assert_eq!(
            equal(&json!([[[1]]]), &json!([[[1]]]), &mut w, 3),
            Some(true)
        );
        assert_eq!(hash(&keys, &json!([[[1]]]), &mut w, 2), None);
    }

    #[test]
    fn integers_near_two_to_the_63_spread_over_hashes() {
        let keys = RandomState::new();
        let mut w = 0;
        let base = 1u64 << 63;
        let hashes: std::collections::HashSet<u64> = (0..1000u64)
            .filter_map(|i| hash(&keys, &json!([base + i, base - i]), &mut w, 8))
            .collect();
        assert_eq!(hashes.len(), 1000);
    }
}
