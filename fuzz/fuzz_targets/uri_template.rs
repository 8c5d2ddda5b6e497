//! The RFC 6570 subset template matcher (`{var}`, `{+var}`), through the not-API
//! `beam_mcp::__fuzz` entry.
//!
//! Invariants: parsing and matching never panic on any template and uri; a template that
//! parses matches every expansion built from it (a `{var}` value is non-empty and holds no
//! `/`, `?` or `#`; a `{+var}` value is any non-empty string); when the template ends in a
//! literal, its expansion with one more character after it does not match.
#![no_main]

use beam_mcp::__fuzz::{template_matches, template_variables};
use libfuzzer_sys::arbitrary::{self, Arbitrary};
use libfuzzer_sys::fuzz_target;

#[derive(Arbitrary, Debug)]
enum Piece {
    Literal(String),
    Segment(String, String),
    Reserved(String, String),
}

#[derive(Arbitrary, Debug)]
struct Input {
    raw_template: String,
    raw_uri: String,
    pieces: Vec<Piece>,
}

fn name(n: &str) -> String {
    let s: String = n
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
        .take(8)
        .collect();
    if s.is_empty() {
        "v".to_owned()
    } else {
        s
    }
}

fuzz_target!(|input: Input| {
    // Any pair: no panic, and the variables of a template that parses are its names.
    if let Ok(m) = template_matches(&input.raw_template, &input.raw_uri) {
        let vars = template_variables(&input.raw_template).expect("parsed once, parses again");
        let _ = m;
        for v in vars {
            assert!(!v.is_empty());
        }
    }
    // A template built from the pieces, and an expansion of it.
    let mut template = String::new();
    let mut uri = String::new();
    let mut last_was_expr = false;
    for piece in input.pieces.iter().take(12) {
        match piece {
            Piece::Literal(l) => {
                let l: String = l.chars().filter(|c| *c != '{' && *c != '}').collect();
                if l.is_empty() {
                    continue;
                }
                template.push_str(&l);
                uri.push_str(&l);
                last_was_expr = false;
            }
            Piece::Segment(n, v) | Piece::Reserved(n, v) => {
                if last_was_expr {
                    template.push('-');
                    uri.push('-');
                }
                let reserved = matches!(piece, Piece::Reserved(..));
                let mut value: String = if reserved {
                    v.clone()
                } else {
                    v.chars()
                        .filter(|c| !matches!(c, '/' | '?' | '#'))
                        .collect()
                };
                if value.is_empty() {
                    value.push('x');
                }
                template.push('{');
                if reserved {
                    template.push('+');
                }
                template.push_str(&name(n));
                template.push('}');
                uri.push_str(&value);
                last_was_expr = true;
            }
        }
    }
    match template_matches(&template, &uri) {
        Ok(matched) => assert!(
            matched,
            "template {template:?} refuses its expansion {uri:?}"
        ),
        Err(e) => panic!("a template built from the subset was refused: {template:?}: {e}"),
    }
    if !last_was_expr && !template.is_empty() {
        // The last character differs from the literal's last: no expansion ends so.
        let extra = if uri.ends_with('a') { 'b' } else { 'a' };
        let longer = format!("{uri}{extra}");
        assert!(
            !template_matches(&template, &longer).expect("parses"),
            "template {template:?} ending in a literal matched {longer:?}"
        );
    }
});
