//! A byte pre-scan that bounds JSON nesting before any decoder runs.

/// The deepest nesting of arrays and objects accepted in one message.
///
/// A body under the size cap can still nest half its bytes deep; decoding such a body costs
/// memory and stack out of proportion to its size, so it is refused before the decoder runs.
pub const MAX_DEPTH: usize = 64;

/// Whether `bytes` nests arrays or objects deeper than `max` levels.
///
/// The scan tracks string literals (and their escapes) so that brackets inside strings do not
/// count. It does not validate the JSON: a malformed message is left for the decoder to refuse,
/// which it then does with a bounded stack.
///
/// ```
/// use beam_mcp::protocol::exceeds_depth;
/// assert!(!exceeds_depth(br#"{"a":[1,{"b":"[[[["}]}"#, 3));
/// assert!(exceeds_depth(b"[[[1]]]", 2));
/// ```
pub fn exceeds_depth(bytes: &[u8], max: usize) -> bool {
    // Nesting deeper than `max` needs more than `max` opening brackets, wherever they are: a
    // count (which vectorises) clears almost every real message without the exact scan.
    let opening = bytes.iter().filter(|&&b| b == b'[' || b == b'{').count();
    if opening <= max {
        return false;
    }
    let mut depth = 0usize;
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        i += 1;
        match b {
            // Most of a message's bytes are inside strings: jump from quote to quote.
            b'"' => loop {
                let Some(rest) = bytes.get(i..) else {
                    return false;
                };
                match memchr::memchr2(b'"', b'\\', rest) {
                    // An unterminated string: the decoder refuses it.
                    None => return false,
                    Some(k) if rest[k] == b'"' => {
                        i += k + 1;
                        break;
                    }
                    // An escape: the byte after the backslash is never a delimiter.
                    Some(k) => i += k + 2,
                }
            },
            b'[' | b'{' => {
                depth += 1;
                if depth > max {
                    return true;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_exactly_the_limit() {
        let at = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        let over = format!("{}{}", "[".repeat(MAX_DEPTH + 1), "]".repeat(MAX_DEPTH + 1));
        assert!(!exceeds_depth(at.as_bytes(), MAX_DEPTH));
        assert!(exceeds_depth(over.as_bytes(), MAX_DEPTH));
    }

    /// The byte-at-a-time scan the fast one must agree with.
    fn reference(bytes: &[u8], max: usize) -> bool {
        let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
        for &b in bytes {
            if in_string {
                if escaped {
                    escaped = false;
                } else if b == b'\\' {
                    escaped = true;
                } else if b == b'"' {
                    in_string = false;
                }
                continue;
            }
            match b {
                b'"' => in_string = true,
                b'[' | b'{' => {
                    depth += 1;
                    if depth > max {
                        return true;
                    }
                }
                b']' | b'}' => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
        false
    }

    #[test]
    fn agrees_with_the_byte_at_a_time_scan() {
        // Every string over a small alphabet of the bytes that matter, up to length 6.
        let alphabet = b"\"\\[]{}a";
        let mut cases = vec![Vec::new()];
        for _ in 0..6 {
            let mut next = Vec::new();
            for c in &cases {
                for &b in alphabet {
                    let mut c = c.clone();
                    c.push(b);
                    next.push(c);
                }
            }
            for c in &next {
                for max in 0..4 {
                    assert_eq!(exceeds_depth(c, max), reference(c, max), "{c:?} {max}");
                }
            }
            cases = next;
        }
    }

    #[test]
    fn ignores_brackets_in_strings_and_escaped_quotes() {
        let s = r#"{"k":"\"[[[[[[","v":[]}"#;
        assert!(!exceeds_depth(s.as_bytes(), 2));
    }
}
