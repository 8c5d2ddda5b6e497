//! The RFC 6570 subset resource templates may use: `{var}` and `{+var}`, nothing more.

use crate::error::TemplateError;

/// A compiled resource template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct UriTemplate {
    parts: Vec<Part>,
    /// The variable names, in order of first appearance, each once.
    variables: Vec<std::sync::Arc<str>>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Literal(String),
    /// `{var}`: one non-empty path segment (no `/`, `?` or `#`).
    Segment,
    /// `{+var}`: one or more characters, across segments.
    Reserved,
}

fn is_varname(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.')
        && !s.starts_with('.')
        && !s.ends_with('.')
}

impl UriTemplate {
    pub(crate) fn parse(template: &str) -> Result<UriTemplate, TemplateError> {
        let mut parts = Vec::new();
        let mut variables: Vec<std::sync::Arc<str>> = Vec::new();
        let mut literal = String::new();
        let mut rest = template;
        let mut offset = 0;
        while let Some(i) = rest.find(['{', '}']) {
            if rest.as_bytes()[i] == b'}' {
                return Err(TemplateError::BareBrace { at: offset + i });
            }
            literal.push_str(&rest[..i]);
            let after = &rest[i + 1..];
            let close = after
                .find('}')
                .ok_or(TemplateError::BareBrace { at: offset + i })?;
            let body = &after[..close];
            let expression = format!("{{{body}}}");
            if body.contains('{') {
                return Err(TemplateError::BareBrace { at: offset + i });
            }
            let (part, name) = match body.strip_prefix('+') {
                Some(name) if is_varname(name) => (Part::Reserved, name),
                None if is_varname(body) => (Part::Segment, body),
                _ => return Err(TemplateError::UnsupportedExpression { expression }),
            };
            if !variables.iter().any(|v| &**v == name) {
                variables.push(name.into());
            }
            if literal.is_empty() && matches!(parts.last(), Some(Part::Segment | Part::Reserved)) {
                return Err(TemplateError::AdjacentExpressions { at: offset + i });
            }
            if !literal.is_empty() {
                parts.push(Part::Literal(std::mem::take(&mut literal)));
            }
            parts.push(part);
            let consumed = i + 1 + close + 1;
            offset += consumed;
            rest = &rest[consumed..];
        }
        literal.push_str(rest);
        if !literal.is_empty() {
            parts.push(Part::Literal(literal));
        }
        Ok(UriTemplate { parts, variables })
    }

    /// The variable names, in order of first appearance, each once.
    pub(crate) fn variables(&self) -> &[std::sync::Arc<str>] {
        &self.variables
    }

    /// Whether `uri` is an expansion of this template.
    pub(crate) fn matches(&self, uri: &str) -> bool {
        // Memoised over (part, position): linear in parts × uri length per position tried,
        // so no template can be made to backtrack exponentially.
        let n = uri.len();
        let mut failed = vec![false; (self.parts.len() + 1) * (n + 1)];
        self.match_from(uri.as_bytes(), 0, 0, &mut failed)
    }

    fn match_from(&self, uri: &[u8], part: usize, pos: usize, failed: &mut [bool]) -> bool {
        let slot = part * (uri.len() + 1) + pos;
        if failed[slot] {
            return false;
        }
        let ok = match self.parts.get(part) {
            None => pos == uri.len(),
            Some(Part::Literal(l)) => {
                uri[pos..].starts_with(l.as_bytes())
                    && self.match_from(uri, part + 1, pos + l.len(), failed)
            }
            Some(p) => {
                let mut end = pos;
                let mut found = false;
                while end < uri.len() {
                    let b = uri[end];
                    if matches!(p, Part::Segment) && matches!(b, b'/' | b'?' | b'#') {
                        break;
                    }
                    end += 1;
                    if self.match_from(uri, part + 1, end, failed) {
                        found = true;
                        break;
                    }
                }
                found
            }
        };
        if !ok {
            failed[slot] = true;
        }
        ok
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subset_is_enforced() {
        assert!(UriTemplate::parse("weather://place/{name}").is_ok());
        assert!(UriTemplate::parse("file:///{+path}").is_ok());
        for bad in [
            "a/{#x}", "a/{?x}", "a/{x,y}", "a/{x*}", "a/{x:3}", "a/{}", "a/}", "a/{x", "{a}{b}",
        ] {
            assert!(UriTemplate::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn matching() {
        let t = UriTemplate::parse("weather://place/{name}").unwrap();
        assert!(t.matches("weather://place/Oslo"));
        assert!(!t.matches("weather://place/"));
        assert!(!t.matches("weather://place/a/b"));
        let t = UriTemplate::parse("file:///{+path}.txt").unwrap();
        assert!(t.matches("file:///a/b/c.txt"));
        assert!(!t.matches("file:///.txt"));
        let t = UriTemplate::parse("x/{a}/y/{+b}/z").unwrap();
        assert!(t.matches("x/1/y/2/3/z"));
        assert!(!t.matches("x/1/2/y/3/z"));
    }

    #[test]
    fn pathological_input_stays_linear_enough() {
        let t = UriTemplate::parse("{+a}-{+b}-{+c}-{+d}!").unwrap();
        let uri = "-".repeat(1500);
        assert!(!t.matches(&uri));
    }
}
