//! `multipleOf`, exactly, in decimal.

use serde_json::Number;

/// Whether `n` is an integer multiple of `m`, exactly, in the decimal the JSON text wrote:
/// `0.3` is a multiple of `0.1`, `9007199254740993` is not one of `2.0`, `1e20` is not one of
/// `0.3`. (Floats are read back as their shortest decimal, which is what a sender wrote.)
pub(super) fn is_multiple(n: &Number, m: &Number) -> bool {
    let (Some((a, ea)), Some((b, eb))) = (decimal(n), decimal(m)) else {
        return false;
    };
    if b == 0 {
        return false;
    }
    if a == 0 {
        return true;
    }
    // a·10^ea = q · b·10^eb for an integer q.
    if ea >= eb {
        let k = (ea - eb) as u64;
        mul_mod(a % b, pow_mod(10, k, b), b) == 0
    } else {
        let k = (eb - ea) as u32;
        match 10u128.checked_pow(k).and_then(|p| p.checked_mul(b)) {
            Some(d) => a % d == 0,
            // b·10^k above 2^128 exceeds every mantissa a JSON number has here.
            None => false,
        }
    }
}

/// `|n|` as `mantissa × 10^exponent`, the mantissa without trailing zeros (below 2^64: a `u64`
/// or `i64` has at most 20 digits, a float's shortest decimal at most 17).
fn decimal(n: &Number) -> Option<(u128, i64)> {
    let text = n.to_string();
    let text = text.strip_prefix('-').unwrap_or(&text);
    let (digits, exponent) = match text.find(['e', 'E']) {
        Some(i) => (&text[..i], text[i + 1..].parse::<i64>().ok()?),
        None => (text, 0),
    };
    let (whole, fraction) = digits.split_once('.').unwrap_or((digits, ""));
    let mut mantissa: u128 = 0;
    for c in whole.chars().chain(fraction.chars()) {
        let d = c.to_digit(10)?;
        mantissa = mantissa.checked_mul(10)?.checked_add(u128::from(d))?;
    }
    let mut exponent = exponent - fraction.len() as i64;
    while mantissa != 0 && mantissa.is_multiple_of(10) {
        mantissa /= 10;
        exponent += 1;
    }
    Some((mantissa, exponent))
}

/// `a · b mod m` for `a, b < m < 2^64`.
fn mul_mod(a: u128, b: u128, m: u128) -> u128 {
    (a * b) % m
}

/// `base^exp mod m` for `m < 2^64`.
fn pow_mod(base: u128, mut exp: u64, m: u128) -> u128 {
    let mut result = 1 % m;
    let mut base = base % m;
    while exp > 0 {
        if exp & 1 == 1 {
            result = mul_mod(result, base, m);
        }
        base = mul_mod(base, base, m);
        exp >>= 1;
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    fn multiple(n: Value, m: Value) -> bool {
        match (n, m) {
            (Value::Number(n), Value::Number(m)) => is_multiple(&n, &m),
            _ => unreachable!("numbers only"),
        }
    }

    #[test]
    fn multiple_of_is_exact_in_decimal() {
        for (n, m, expected) in [
            (json!(0.3), json!(0.1), true),
            (json!(1.5), json!(0.5), true),
            (json!(0.3), json!(0.5), false),
            (json!(9_007_199_254_740_993_u64), json!(2.0), false),
            (json!(9_007_199_254_740_992_u64), json!(2.0), true),
            (json!(1e20), json!(0.3), false),
            (json!(9_007_199_254_740_993_u64), json!(1.5), true),
            (json!(-12), json!(4), true),
            (json!(-12), json!(5), false),
            (json!(0), json!(0.7), true),
            (json!(1e300), json!(1e-300), true),
            (json!(1e-300), json!(1e300), false),
            (json!(u64::MAX), json!(u64::MAX), true),
            (json!(i64::MIN), json!(2), true),
            (json!(4.0), json!(2), true),
            (json!(4.5), json!(2), false),
        ] {
            assert_eq!(
                multiple(n.clone(), m.clone()),
                expected,
                "{n} multipleOf {m}"
            );
        }
    }
}
