//! Exact comparison of JSON numbers across their three representations.
//!
//! `serde_json` keeps a number as `u64`, `i64` or `f64`. Converting everything to `f64` would make
//! `9007199254740993 > 9007199254740992.0` false, so integers and floats are compared exactly.

use std::cmp::Ordering;

use serde_json::Number;

/// 2^127 as an `f64` (exactly representable).
const TWO_POW_127: f64 = 170_141_183_460_469_231_731_687_303_715_884_105_728.0;

enum Exact {
    Int(i128),
    Float(f64),
}

fn exact(n: &Number) -> Exact {
    if let Some(u) = n.as_u64() {
        Exact::Int(i128::from(u))
    } else if let Some(i) = n.as_i64() {
        Exact::Int(i128::from(i))
    } else {
        // Without arbitrary_precision every Number is u64, i64 or f64; NaN fails closed below.
        Exact::Float(n.as_f64().unwrap_or(f64::NAN))
    }
}

/// `a` compared with `b`, exactly. `None` only for a NaN, which JSON cannot carry.
pub(crate) fn compare(a: &Number, b: &Number) -> Option<Ordering> {
    match (exact(a), exact(b)) {
        (Exact::Int(x), Exact::Int(y)) => Some(x.cmp(&y)),
        (Exact::Float(x), Exact::Float(y)) => x.partial_cmp(&y),
        (Exact::Int(x), Exact::Float(y)) => int_float(x, y),
        (Exact::Float(x), Exact::Int(y)) => int_float(y, x).map(Ordering::reverse),
    }
}

fn int_float(a: i128, b: f64) -> Option<Ordering> {
    if b.is_nan() {
        return None;
    }
    let floor = b.floor();
    if floor >= TWO_POW_127 {
        return Some(Ordering::Less);
    }
    if floor < -TWO_POW_127 {
        return Some(Ordering::Greater);
    }
    // In range and integral, so the cast is exact.
    #[allow(clippy::cast_possible_truncation)]
    let floor_int = floor as i128;
    Some(match a.cmp(&floor_int) {
        Ordering::Equal if b > floor => Ordering::Less,
        other => other,
    })
}

/// Whether a number has a zero fractional part (JSON Schema 2020-12's "integer").
pub(crate) fn is_integer(n: &Number) -> bool {
    if n.is_u64() || n.is_i64() {
        return true;
    }
    n.as_f64()
        .is_some_and(|f| f.is_finite() && f.fract() == 0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(v: serde_json::Value) -> Number {
        match v {
            serde_json::Value::Number(n) => n,
            _ => panic!("not a number"),
        }
    }

    #[test]
    fn integers_and_floats_compare_exactly() {
        use serde_json::json;
        let big = n(json!(9_007_199_254_740_993_u64));
        let big_f = n(json!(9_007_199_254_740_992.0_f64));
        assert_eq!(compare(&big, &big_f), Some(Ordering::Greater));
        assert_eq!(compare(&big_f, &big), Some(Ordering::Less));
        assert_eq!(compare(&n(json!(5)), &n(json!(5.0))), Some(Ordering::Equal));
        assert_eq!(compare(&n(json!(5)), &n(json!(5.5))), Some(Ordering::Less));
        assert_eq!(
            compare(&n(json!(6)), &n(json!(5.5))),
            Some(Ordering::Greater)
        );
        assert_eq!(
            compare(&n(json!(-6)), &n(json!(-5.5))),
            Some(Ordering::Less)
        );
        assert_eq!(
            compare(&n(json!(-5)), &n(json!(-5.5))),
            Some(Ordering::Greater)
        );
        assert_eq!(
            compare(&n(json!(u64::MAX)), &n(json!(1e300))),
            Some(Ordering::Less)
        );
        assert_eq!(
            compare(&n(json!(i64::MIN)), &n(json!(-1e300))),
            Some(Ordering::Greater)
        );
        assert_eq!(
            compare(&n(json!(-1)), &n(json!(u64::MAX))),
            Some(Ordering::Less)
        );
    }

    #[test]
    fn integer_means_zero_fraction() {
        use serde_json::json;
        assert!(is_integer(&n(json!(42))));
        assert!(is_integer(&n(json!(42.0))));
        assert!(is_integer(&n(json!(-3))));
        assert!(is_integer(&n(json!(1e300))));
        assert!(!is_integer(&n(json!(42.5))));
    }
}
