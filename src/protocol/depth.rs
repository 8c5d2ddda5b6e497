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
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
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

    #[test]
    fn ignores_brackets_in_strings_and_escaped_quotes() {
        let s = r#"{"k":"\"[[[[[[","v":[]}"#;
        assert!(!exceeds_depth(s.as_bytes(), 2));
    }
}
