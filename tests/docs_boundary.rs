//! The boundary docs and the code name each other, both ways: docs/will-not-implement.md and
//! tests/census_boundary.rs, docs/crypto-posture.md and the crypto crates used under src/,
//! docs/fips.md and the digest algorithms the crate accepts; README's "What this crate is, and
//! is not" points at all three.

use std::collections::BTreeSet;
use std::path::Path;

use beam_mcp::connectome::canonical::DigestAlgorithm;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &str) -> String {
    std::fs::read_to_string(root().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

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

/// Every `tests/<file>.rs::<fn>` in a piece of text.
fn named_tests(text: &str) -> BTreeSet<(String, String)> {
    let mut out = BTreeSet::new();
    for part in text.split('`') {
        if let Some((file, func)) = part
            .strip_prefix("tests/")
            .and_then(|p| p.split_once(".rs::"))
        {
            out.insert((format!("{file}.rs"), func.to_owned()));
        }
    }
    out
}

fn assert_exist(doc: &str, named: &BTreeSet<(String, String)>) {
    assert!(!named.is_empty(), "{doc} names no test");
    for (file, func) in named {
        let text = read(&format!("tests/{file}"));
        assert!(
            text.contains(&format!("fn {func}(")),
            "{doc} names tests/{file}::{func}, which does not exist"
        );
    }
}

/// The `#[test]` / `#[tokio::test]` fns of a test file.
fn test_fns(file: &str) -> BTreeSet<(String, String)> {
    let text = read(&format!("tests/{file}"));
    let mut out = BTreeSet::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if !matches!(line.trim(), "#[test]" | "#[tokio::test]") {
            continue;
        }
        let sig = lines.next().unwrap_or_default().trim();
        let func = sig
            .trim_start_matches("async ")
            .trim_start_matches("fn ")
            .split('(')
            .next()
            .unwrap_or_default();
        out.insert((file.to_owned(), func.to_owned()));
    }
    out
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
        assert_exist("docs/will-not-implement.md", &named);
    }
}

#[test]
fn every_census_test_is_named_by_a_will_not_implement_entry() {
    let named = named_tests(&read("docs/will-not-implement.md"));
    let census = test_fns("census_boundary.rs");
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

/// (crate, file) for every use of a crypto crate under src/.
fn crypto_uses() -> BTreeSet<(String, String)> {
    fn walk(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
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
    let mut out = BTreeSet::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let rel = file
            .strip_prefix(root())
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        for krate in ["sha2", "hmac", "getrandom"] {
            if text.contains(&format!("{krate}::")) {
                out.insert((krate.to_owned(), rel.clone()));
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
        assert_exist("docs/fips.md", &named_tests(&row[3]));
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
