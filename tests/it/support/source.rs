//! The project's own sources read as Rust, not as lines of text: the test functions a file
//! declares (parsed with `syn`), and the tokens of the crate's source, comments and doc
//! comments left out (lexed with `proc-macro2`). What the docs and the boundary census hold to
//! is then what the code declares and does: adding, removing or rewording a comment changes
//! neither.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use proc_macro2::{Delimiter, TokenStream, TokenTree};

/// The package root (`CARGO_MANIFEST_DIR`).
pub(crate) fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A file of the package, by its path from the root.
pub(crate) fn read(path: &str) -> String {
    std::fs::read_to_string(root().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Whether an attribute marks a test: its path ends in `test` (`#[test]`, `#[tokio::test]`,
/// `#[tokio::test(flavor = "multi_thread", worker_threads = 2)]`).
fn is_test_attr(attr: &syn::Attribute) -> bool {
    attr.path()
        .segments
        .last()
        .is_some_and(|s| s.ident == "test")
}

/// The test functions declared in a file (path from the package root), each named by its path
/// within the file: `name`, or `inner::name` inside an inline `mod inner { … }`. Tests declared
/// inside a macro call (`proptest! { #[test] fn … }`) are found in its tokens.
pub(crate) fn test_fns(path: &str) -> BTreeSet<String> {
    let file = syn::parse_file(&read(path)).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut out = BTreeSet::new();
    test_items(&file.items, "", &mut out);
    out
}

fn test_items(items: &[syn::Item], prefix: &str, out: &mut BTreeSet<String>) {
    for item in items {
        match item {
            syn::Item::Fn(f) if f.attrs.iter().any(is_test_attr) => {
                out.insert(format!("{prefix}{}", f.sig.ident));
            }
            syn::Item::Mod(m) => {
                if let Some((_, inner)) = &m.content {
                    test_items(inner, &format!("{prefix}{}::", m.ident), out);
                }
            }
            syn::Item::Macro(m) => macro_tests(m.mac.tokens.clone(), prefix, out),
            _ => {}
        }
    }
}

/// `#[…test…] [more attributes] [async] fn name` in a macro's tokens.
fn macro_tests(tokens: TokenStream, prefix: &str, out: &mut BTreeSet<String>) {
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    let mut marked = false;
    let mut i = 0;
    while i < tokens.len() {
        match &tokens[i] {
            TokenTree::Punct(p) if p.as_char() == '#' => {
                if let Some(TokenTree::Group(g)) = tokens.get(i + 1) {
                    if g.delimiter() == Delimiter::Bracket {
                        let attr: Result<syn::Meta, _> = syn::parse2(g.stream());
                        if attr.is_ok_and(|m| {
                            m.path().segments.last().is_some_and(|s| s.ident == "test")
                        }) {
                            marked = true;
                        }
                        i += 2;
                        continue;
                    }
                }
            }
            TokenTree::Ident(id) if id == "fn" => {
                if let (true, Some(TokenTree::Ident(name))) = (marked, tokens.get(i + 1)) {
                    out.insert(format!("{prefix}{name}"));
                }
                marked = false;
            }
            TokenTree::Group(g) => macro_tests(g.stream(), prefix, out),
            _ => {}
        }
        i += 1;
    }
}

/// Every `tests/<path>.rs::<test>` in a piece of text (between backquotes), as (file from the
/// package root, test).
pub(crate) fn named_tests(text: &str) -> BTreeSet<(String, String)> {
    let mut out = BTreeSet::new();
    for part in text.split('`') {
        if let Some((file, test)) = part.split_once(".rs::") {
            if file.starts_with("tests/") && !file.contains(' ') {
                out.insert((format!("{file}.rs"), test.to_owned()));
            }
        }
    }
    out
}

/// Panics unless every named test is a test function its file declares.
pub(crate) fn assert_declared(doc: &str, named: &BTreeSet<(String, String)>) {
    assert!(!named.is_empty(), "{doc} names no test");
    for (file, test) in named {
        assert!(
            root().join(file).exists(),
            "{doc} names {file}::{test}, and {file} does not exist"
        );
        assert!(
            test_fns(file).contains(test),
            "{doc} names {file}::{test}, which {file} does not declare as a test"
        );
    }
}

/// One token of the crate's source, outside comments and doc comments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Token {
    /// An identifier or keyword.
    Ident(String),
    /// A literal, as written (a string's quotes included).
    Literal(String),
    /// One punctuation character.
    Punct(char),
}

/// Every `.rs` file under `src/`, with its tokens in order (groups flattened, their
/// delimiters dropped). Comments never reach the lexer's tokens; doc comments arrive as
/// `#[doc = "…"]` attributes and are dropped here.
pub(crate) fn src_tokens() -> Vec<(PathBuf, Vec<Token>)> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    let mut files = Vec::new();
    walk(&root().join("src"), &mut files);
    files.sort();
    assert!(files.len() > 30, "found only {} source files", files.len());
    files
        .into_iter()
        .map(|file| {
            let text = std::fs::read_to_string(&file).unwrap();
            let stream: TokenStream = text
                .parse()
                .unwrap_or_else(|e| panic!("{}: {e:?}", file.display()));
            let mut tokens = Vec::new();
            flatten(stream, &mut tokens);
            (file.strip_prefix(root()).unwrap().to_path_buf(), tokens)
        })
        .collect()
}

fn flatten(stream: TokenStream, out: &mut Vec<Token>) {
    let mut trees = stream.into_iter().peekable();
    while let Some(tree) = trees.next() {
        match tree {
            TokenTree::Punct(p) if p.as_char() == '#' => {
                // `#[doc = …]` or `#![doc = …]`: a doc comment, dropped with its `#` and `!`.
                let mut rest = trees.clone();
                let mut bang = false;
                if matches!(rest.peek(), Some(TokenTree::Punct(b)) if b.as_char() == '!') {
                    rest.next();
                    bang = true;
                }
                if let Some(TokenTree::Group(g)) = rest.peek() {
                    let doc = g.delimiter() == Delimiter::Bracket
                        && matches!(g.stream().into_iter().next(),
                            Some(TokenTree::Ident(i)) if i == "doc");
                    if doc {
                        if bang {
                            trees.next();
                        }
                        trees.next();
                        continue;
                    }
                }
                out.push(Token::Punct('#'));
            }
            TokenTree::Punct(p) => out.push(Token::Punct(p.as_char())),
            TokenTree::Ident(i) => out.push(Token::Ident(i.to_string())),
            TokenTree::Literal(l) => out.push(Token::Literal(l.to_string())),
            TokenTree::Group(g) => flatten(g.stream(), out),
        }
    }
}

/// The paths in a token sequence: each run `a :: b :: c` as its segments (a path of one
/// segment is every identifier on its own).
pub(crate) fn paths(tokens: &[Token]) -> Vec<Vec<&str>> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let Token::Ident(first) = &tokens[i] else {
            i += 1;
            continue;
        };
        let mut path = vec![first.as_str()];
        let mut j = i + 1;
        while let [Token::Punct(':'), Token::Punct(':'), Token::Ident(next), ..] = &tokens[j..] {
            path.push(next.as_str());
            j += 3;
        }
        // `krate::{…}` and `krate::*`: the path ends in `::`, which names `krate` as a path head.
        if let [Token::Punct(':'), Token::Punct(':'), ..] = &tokens[j..] {
            path.push("");
        }
        out.push(path);
        i = j.max(i + 1);
    }
    out
}

/// Whether `path` holds `want` as consecutive segments.
pub(crate) fn has_segments(path: &[&str], want: &[&str]) -> bool {
    path.windows(want.len()).any(|w| w == want)
}
