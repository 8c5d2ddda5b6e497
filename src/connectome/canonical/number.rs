//! Numbers: the ±(2^53 − 1) range every written number lies in, and ECMAScript's
//! `Number.prototype.toString` form of a double (shortest round-trip digits, the even one on
//! an exact tie).

use serde_json::Number;

use super::error::CanonicalError;

/// The largest integer magnitude written: 2^53 − 1.
pub const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

/// Writes a number: an integer in decimal, any other as [`format_double`] does, refusing
/// one outside ±(2^53 − 1).
pub(super) fn write_number(n: &Number, out: &mut Vec<u8>) -> Result<(), CanonicalError> {
    if let Some(u) = n.as_u64() {
        if u > MAX_SAFE_INTEGER {
            return Err(CanonicalError::IntegerOutOfRange {
                value: u.to_string(),
            });
        }
        out.extend_from_slice(u.to_string().as_bytes());
    } else if let Some(i) = n.as_i64() {
        if i.unsigned_abs() > MAX_SAFE_INTEGER {
            return Err(CanonicalError::IntegerOutOfRange {
                value: i.to_string(),
            });
        }
        out.extend_from_slice(i.to_string().as_bytes());
    } else {
        let f = n.as_f64().ok_or(CanonicalError::NonFiniteNumber)?;
        // Beyond 2^53 every double is an integer, and ECMAScript would spell some of them as
        // integer tokens the rule above refuses: refuse them here too, so writing is idempotent.
        if f.abs() > MAX_SAFE_INTEGER as f64 {
            return Err(CanonicalError::IntegerOutOfRange {
                value: format_double(f)?,
            });
        }
        out.extend_from_slice(format_double(f)?.as_bytes());
    }
    Ok(())
}

/// Rust's shortest digits are the shortest that round-trip, but when the double lies exactly
/// halfway between two such strings Rust may pick the odd one; ECMAScript (and so RFC 8785)
/// picks the even one. Detects that exact tie from the double's full decimal expansion.
fn even_on_tie(f: f64, digits: String, exp: i32) -> String {
    let Ok(d) = digits.parse::<u64>() else {
        return digits;
    };
    if d % 2 == 0 || digits.len() > 17 {
        return digits;
    }
    let exact = format!("{f:.800e}");
    let Some((m, e)) = exact.split_once('e') else {
        return digits;
    };
    if e.parse::<i32>().ok() != Some(exp) {
        return digits;
    }
    let full: String = m.chars().filter(|c| *c != '.').collect();
    let rest = full.get(digits.len()..).unwrap_or("");
    let head = full.get(..digits.len()).unwrap_or("");
    // Exactly half a unit in the last place above `head`, or below it.
    let half = rest.starts_with('5') && rest[1..].bytes().all(|b| b == b'0');
    let Ok(h) = head.parse::<u64>() else {
        return digits;
    };
    let (lower, upper) = if half { (h, h + 1) } else { return digits };
    let even = if lower % 2 == 0 { lower } else { upper };
    let candidate = format!("{even:0width$}", width = digits.len());
    let mut sci = String::with_capacity(candidate.len() + 8);
    sci.push_str(&candidate[..1]);
    sci.push('.');
    sci.push_str(&candidate[1..]);
    sci.push_str(&format!("e{exp}"));
    if candidate.len() == digits.len() && sci.parse::<f64>().ok() == Some(f) {
        candidate
    } else {
        digits
    }
}

/// A finite double in ECMAScript's `Number.prototype.toString` form (shortest round-trip
/// digits; plain notation for decimal exponents in −6 < n ≤ 21, else `d.ddde±n`).
///
/// ```
/// use beam_mcp::connectome::canonical::format_double;
/// assert_eq!(format_double(1e21).unwrap(), "1e+21"); // refused by to_canonical_bytes
/// assert_eq!(format_double(1e20).unwrap(), "100000000000000000000");
/// assert_eq!(format_double(0.000001).unwrap(), "0.000001");
/// assert_eq!(format_double(1e-7).unwrap(), "1e-7");
/// assert_eq!(format_double(-0.0).unwrap(), "0");
/// ```
///
/// # Errors
/// [`CanonicalError::NonFiniteNumber`] for NaN and infinities.
pub fn format_double(f: f64) -> Result<String, CanonicalError> {
    if !f.is_finite() {
        return Err(CanonicalError::NonFiniteNumber);
    }
    if f == 0.0 {
        return Ok("0".to_owned());
    }
    if f < 0.0 {
        return Ok(format!("-{}", format_double(-f)?));
    }
    // Rust's `{:e}` yields the shortest round-trip digits: "d[.ddd]e[-]x".
    let sci = format!("{f:e}");
    let (mantissa, exp) = sci.split_once('e').ok_or(CanonicalError::NonFiniteNumber)?;
    let exp: i32 = exp.parse().map_err(|_| CanonicalError::NonFiniteNumber)?;
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    let digits = even_on_tie(f, digits, exp);
    let k = i32::try_from(digits.len()).map_err(|_| CanonicalError::NonFiniteNumber)?;
    let n = exp + 1;
    let mut s = String::new();
    if k <= n && n <= 21 {
        s.push_str(&digits);
        s.extend(std::iter::repeat_n('0', (n - k) as usize));
    } else if 0 < n && n <= 21 {
        s.push_str(&digits[..n as usize]);
        s.push('.');
        s.push_str(&digits[n as usize..]);
    } else if -6 < n && n <= 0 {
        s.push_str("0.");
        s.extend(std::iter::repeat_n('0', (-n) as usize));
        s.push_str(&digits);
    } else {
        s.push_str(&digits[..1]);
        if k > 1 {
            s.push('.');
            s.push_str(&digits[1..]);
        }
        s.push('e');
        s.push(if n - 1 < 0 { '-' } else { '+' });
        s.push_str(&(n - 1).abs().to_string());
    }
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::format_double;

    #[test]
    fn doubles_follow_ecmascript() {
        for (f, s) in [
            (1.5, "1.5"),
            (123456789012345680000.0, "123456789012345680000"),
            (0.1, "0.1"),
            (1e-6, "0.000001"),
            (1.25e-7, "1.25e-7"),
            (5e-324, "5e-324"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            (2.0, "2"),
        ] {
            assert_eq!(format_double(f).unwrap(), s, "{f}");
        }
        assert!(format_double(f64::NAN).is_err());
    }

    #[test]
    fn an_exact_tie_between_two_shortest_strings_takes_the_even_digit() {
        // 1509805100944860.25 is exactly representable: .2 and .3 both round-trip.
        assert_eq!(
            format_double(1_509_805_100_944_860.2).unwrap(),
            "1509805100944860.2"
        );
        assert_eq!(format_double(0.1).unwrap(), "0.1");
        assert_eq!(format_double(5e-324).unwrap(), "5e-324");
        assert_eq!(
            format_double(1.7976931348623157e308).unwrap(),
            "1.7976931348623157e+308"
        );
    }
}
