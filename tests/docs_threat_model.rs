//! docs/threat-model.md and the HTTP tests name each other, both ways.

use std::collections::BTreeSet;
use std::path::Path;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Every `tests/<file>.rs::<fn>` named in the doc's vector table.
fn named() -> BTreeSet<(String, String)> {
    let doc = std::fs::read_to_string(root().join("docs/threat-model.md")).unwrap();
    let mut out = BTreeSet::new();
    // The vector table: from its header row to the first line that is not a row (other
    // tables further down, such as the measured memory figures, are not vectors).
    let table = doc
        .lines()
        .skip_while(|l| !l.starts_with("| Vector"))
        .take_while(|l| l.starts_with('|'));
    for line in table {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let Some(cell) = cells.get(3) else { continue };
        for part in cell.split('`') {
            if let Some((file, func)) = part
                .strip_prefix("tests/")
                .and_then(|p| p.split_once(".rs::"))
            {
                out.insert((format!("{file}.rs"), func.to_owned()));
            }
        }
        if cells.get(2).is_some_and(|d| !d.starts_with("delegated")) && cells.len() > 3 {
            let is_header = cells[1] == "Vector" || cells[1].starts_with("---");
            assert!(
                is_header || cell.contains(".rs::"),
                "a refused or bounded row must name its test: {line}"
            );
        }
    }
    out
}

/// Every `#[tokio::test]` fn in tests/http_*.rs.
fn http_tests() -> BTreeSet<(String, String)> {
    let mut out = BTreeSet::new();
    for entry in std::fs::read_dir(root().join("tests")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if !(name.starts_with("http_") && name.ends_with(".rs")) {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let mut lines = text.lines();
        while let Some(line) = lines.next() {
            if line.trim() != "#[tokio::test]" {
                continue;
            }
            let sig = lines.next().unwrap_or_default();
            let func = sig
                .trim()
                .trim_start_matches("async fn ")
                .split('(')
                .next()
                .unwrap_or_default();
            out.insert((name.clone(), func.to_owned()));
        }
    }
    out
}

#[test]
fn every_named_test_exists() {
    for (file, func) in named() {
        let text = std::fs::read_to_string(root().join("tests").join(&file))
            .unwrap_or_else(|e| panic!("tests/{file}: {e}"));
        assert!(
            text.contains(&format!("fn {func}(")),
            "docs/threat-model.md names tests/{file}::{func}, which does not exist"
        );
    }
}

#[test]
fn every_http_test_is_named() {
    let named = named();
    let tests = http_tests();
    assert!(tests.len() >= 20, "found only {} http tests", tests.len());
    let missing: Vec<_> = tests.difference(&named).collect();
    assert!(
        missing.is_empty(),
        "not named in docs/threat-model.md: {missing:?}"
    );
}
