//! The boundary docs and the code name each other, both ways: docs/will-not-implement.md and
//! the tests `census_boundary` declares, docs/crypto-posture.md and the crypto crates used under
//! src/, docs/fips.md and the digest algorithms the crate accepts; README's "What this crate is,
//! and is not" points at all three. Tests are found by parsing their files (any attribute whose
//! path ends in `test`), crate uses by the source's tokens: comments move none of it.

use std::collections::BTreeSet;

use crate::support::source::{
    assert_declared, named_tests, paths, read, root, src_tokens, test_fns,
};
use beam_mcp::connectome::canonical::DigestAlgorithm;

/// The census, where docs/will-not-implement.md names its tests.
const CENSUS: &str = "tests/it/census_boundary.rs";

/// The table rows of a markdown doc (header and rule excluded), as trimmed cells.
fn rows(doc: &str) -> Vec<Vec<String>> {
    doc.lines()
        .filter(|l| l.starts_with('|'))
        .skip(2)
        .map(|l| {
            l.trim_matches('|')
                .split('|')
                .map(|c| c.trim().to_owned())
                .collect()
        })
        .collect()
}

#[test]
fn every_will_not_implement_entry_names_an_existing_test() {
    let doc = read("docs/will-not-implement.md");
    let rows = rows(&doc);
    assert_eq!(
        rows.len(),
        12,
        "docs/will-not-implement.md has twelve entries"
    );
    for (i, row) in rows.iter().enumerate() {
        assert_eq!(row[0], (i + 1).to_string(), "entries are numbered in order");
        let named = named_tests(&row[3]);
        assert_eq!(named.len(), 1, "entry {} names one test: {row:?}", i + 1);
        assert!(
            named.iter().all(|(file, _)| file == CENSUS),
            "entry {} names a test outside {CENSUS}: {row:?}",
            i + 1
        );
        assert_declared("docs/will-not-implement.md", &named);
    }
}

#[test]
fn every_census_test_is_named_by_a_will_not_implement_entry() {
    let named = named_tests(&read("docs/will-not-implement.md"));
    let census: BTreeSet<(String, String)> = test_fns(CENSUS)
        .into_iter()
        .map(|test| (CENSUS.to_owned(), test))
        .collect();
    assert!(
        census.len() >= 12,
        "found only {} census tests",
        census.len()
    );
    let missing: Vec<_> = census.difference(&named).collect();
    assert!(
        missing.is_empty(),
        "not named in docs/will-not-implement.md: {missing:?}"
    );
}

/// (crate, file) for every path through a crypto crate under src/ (`sha2::…`), read from the
/// source's tokens: a comment that names a crate is not a use of it.
fn crypto_uses() -> BTreeSet<(String, String)> {
    let mut out = BTreeSet::new();
    for (file, tokens) in src_tokens() {
        let rel = file.to_string_lossy().replace('\\', "/");
        for path in paths(&tokens) {
            for krate in ["sha2", "hmac", "getrandom"] {
                if path.iter().rev().skip(1).any(|s| *s == krate) {
                    out.insert((krate.to_owned(), rel.clone()));
                }
            }
        }
    }
    out
}

#[test]
fn crypto_posture_lists_every_crypto_use_under_src_and_nothing_else() {
    let doc = read("docs/crypto-posture.md");
    let mut listed = BTreeSet::new();
    for row in rows(&doc) {
        let crates: Vec<&str> = row[1]
            .split(',')
            .map(|c| c.trim().trim_matches('`'))
            .collect();
        let file = row[2].trim_matches('`').to_owned();
        for krate in crates {
            listed.insert((krate.to_owned(), file.clone()));
        }
    }
    let used = crypto_uses();
    assert!(!used.is_empty());
    assert_eq!(
        listed, used,
        "docs/crypto-posture.md's table and the crypto uses under src/ differ"
    );
    // Every crypto crate in the manifest is accounted for.
    let manifest = read("Cargo.toml");
    for krate in ["sha2", "hmac", "getrandom"] {
        assert!(
            manifest.contains(&format!("\n{krate} = ")),
            "{krate} not a dependency"
        );
    }
}

#[test]
fn fips_lists_exactly_the_algorithms_accepted() {
    let doc = read("docs/fips.md");
    let rows = rows(&doc);
    let names: BTreeSet<String> = rows
        .iter()
        .map(|r| r[0].trim_matches('`').to_owned())
        .collect();
    let accepted: BTreeSet<String> = [
        DigestAlgorithm::Sha256,
        DigestAlgorithm::Sha384,
        DigestAlgorithm::Sha512,
    ]
    .iter()
    .map(|a| a.name().to_owned())
    .chain(["hmac-sha256".to_owned()])
    .collect();
    assert_eq!(names, accepted);
    for name in &names {
        if name != "hmac-sha256" {
            assert!(
                name.parse::<DigestAlgorithm>().is_ok(),
                "{name} not accepted"
            );
        }
    }
    for weak in ["md5", "sha1", "sha224", "sha3-256", "blake3"] {
        assert!(weak.parse::<DigestAlgorithm>().is_err(), "{weak} accepted");
    }
    for row in &rows {
        assert_declared("docs/fips.md", &named_tests(&row[3]));
    }
}

#[test]
fn readme_boundary_section_is_derived_from_the_docs() {
    let readme = read("README.md");
    let section = readme
        .split("## What this crate is, and is not")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .expect("README has a \"What this crate is, and is not\" section");
    for doc in [
        "docs/will-not-implement.md",
        "docs/crypto-posture.md",
        "docs/fips.md",
        "docs/threat-model.md",
        "docs/connectome-reach.md",
    ] {
        assert!(section.contains(doc), "the section does not point at {doc}");
        assert!(root().join(doc).exists(), "{doc} does not exist");
    }
    // Each "out" of the boundary doc is named in the section (line breaks read as spaces).
    let flat = section
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase();
    for row in rows(&read("docs/will-not-implement.md")) {
        let out = row[1].split(':').next().unwrap().trim().to_lowercase();
        let out = out.split(" (").next().unwrap();
        assert!(flat.contains(out), "README's section omits {out:?}");
    }
}
