//! JSON equality as JSON Schema defines it (`1` equals `1.0`, objects ignore member order), and
//! a hash that agrees with it, for `enum`, `const` and `uniqueItems`.
//!
//! The hash is keyed per process (std's `RandomState`, SipHash) and a number is hashed by its
//! exact value, so that integers a caller picks near 2^63 do not land in one bucket: each item
//! of a `uniqueItems` array is hashed once and compared only with the items sharing its hash.
//! An array or object is hashed from its children's hashes, and one holding an array or object
//! keeps its hash for the rest of the validation ([`Hashes`]): `uniqueItems` arrays nested in
//! each other hash each value once, not once per enclosing array.

use std::cmp::Ordering;
use std::collections::hash_map::RandomState;
use std::collections::HashMap;
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

/// The keys of [`hash`], and the hashes of the arrays and objects hashed so far in one
/// validation that hold an array or object, by address. Without them, an array nested `d` deep
/// under arrays with `uniqueItems` would be hashed `d` times: steps growing with the nesting
/// times the values (a 1 MiB request of arrays nested 60 deep took 36 steps per value, four
/// times the default budget). One without a nested array or object is cheaper to hash again
/// than to keep: hashing it is one step per child, and it is hashed at most twice (within its
/// parent, and as an item of its own array).
pub(super) struct Hashes {
    keys: RandomState,
    seen: HashMap<usize, u64>,
}

impl Hashes {
    pub(super) fn new() -> Hashes {
        Hashes {
            keys: RandomState::new(),
            seen: HashMap::new(),
        }
    }
}

/// A hash of `v` that equal values share; `None` when `v` nests deeper than `depth` levels.
/// One step per value hashed, one per 64 bytes of string, one for an array or object already
/// hashed.
pub(super) fn hash(hashes: &mut Hashes, v: &Value, work: &mut u64, depth: usize) -> Option<u64> {
    *work += 1;
    let at = v as *const Value as usize;
    let mut h = hashes.keys.build_hasher();
    let mut nested = false;
    match v {
        Value::Array(items) => {
            if let Some(&known) = hashes.seen.get(&at) {
                return Some(known);
            }
            (4u8, items.len()).hash(&mut h);
            for item in items {
                let below = depth.checked_sub(1)?;
                child(hashes, item, &mut h, work, below, &mut nested)?;
            }
        }
        Value::Object(map) => {
            if let Some(&known) = hashes.seen.get(&at) {
                return Some(known);
            }
            // Order-independent: each member hashed apart, the hashes summed.
            let mut sum = 0u64;
            for (k, v) in map {
                let mut member = hashes.keys.build_hasher();
                k.hash(&mut member);
                let below = depth.checked_sub(1)?;
                child(hashes, v, &mut member, work, below, &mut nested)?;
                sum = sum.wrapping_add(member.finish());
            }
            (5u8, map.len(), sum).hash(&mut h);
        }
        scalar => feed_scalar(scalar, &mut h, work),
    }
    let out = h.finish();
    if nested {
        hashes.seen.insert(at, out);
    }
    Some(out)
}

/// Feeds a child of an array or object: a scalar as itself, an array or object as its hash.
fn child(
    hashes: &mut Hashes,
    v: &Value,
    h: &mut impl Hasher,
    work: &mut u64,
    depth: usize,
    nested: &mut bool,
) -> Option<()> {
    if matches!(v, Value::Array(_) | Value::Object(_)) {
        *nested = true;
        (6u8, hash(hashes, v, work, depth)?).hash(h);
    } else {
        *work += 1;
        feed_scalar(v, h, work);
    }
    Some(())
}

fn feed_scalar(v: &Value, h: &mut impl Hasher, work: &mut u64) {
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
        Value::Array(_) | Value::Object(_) => {}
    }
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
        let mut keys = Hashes::new();
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
            let (x, y) = (
                hash(&mut keys, &a, &mut w, 8),
                hash(&mut keys, &b, &mut w, 8),
            );
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
        assert_eq!(hash(&mut keys, &json!([[[1]]]), &mut w, 2), None);
    }

    #[test]
    fn integers_near_two_to_the_63_spread_over_hashes() {
        let mut keys = Hashes::new();
        let mut w = 0;
        let base = 1u64 << 63;
        let hashes: std::collections::HashSet<u64> = (0..1000u64)
            .filter_map(|i| hash(&mut keys, &json!([base + i, base - i]), &mut w, 8))
            .collect();
        assert_eq!(hashes.len(), 1000);
    }

    #[test]
    fn nested_arrays_are_hashed_once() {
        // [[[...[1, 2]...]]], 40 deep: hashing it, then each level inside it (as nested
        // `uniqueItems` arrays do, outermost first), costs steps linear in its size.
        let mut v = json!([1, 2]);
        for _ in 0..40 {
            v = json!([v]);
        }
        let mut levels = vec![&v];
        while let Some(Value::Array(items)) = levels.last().copied() {
            match items.first() {
                Some(inner @ Value::Array(_)) => levels.push(inner),
                _ => break,
            }
        }
        assert_eq!(levels.len(), 41);
        let mut keys = Hashes::new();
        let mut w = 0;
        let whole = hash(&mut keys, &v, &mut w, 64);
        assert!(whole.is_some());
        for level in &levels {
            assert!(hash(&mut keys, level, &mut w, 64).is_some());
        }
        assert!(w <= 2 * 43 + 41, "{w} steps");
        // The same value elsewhere (no address in common) hashes alike.
        let copy = v.clone();
        assert_eq!(hash(&mut keys, &copy, &mut w, 64), whole);
        assert_eq!(
            hash(&mut keys, &json!([[1.0, 2]]), &mut w, 8),
            hash(&mut keys, &json!([[1, 2.0]]), &mut w, 8)
        );
    }
}
