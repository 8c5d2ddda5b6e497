//! docs/threat-model.md names the tests that enforce its rows, and each one it names exists: a
//! test function its file declares (found by parsing the file: `#[test]`, `#[tokio::test]`,
//! `#[tokio::test(flavor = …)]`, any attribute whose path ends in `test`). One direction only:
//! a test may be added or renamed without a doc edit, unless the doc names it.

use std::collections::BTreeSet;

use crate::support::source::{assert_declared, named_tests, read, test_fns};

/// Every `tests/<path>.rs::<test>` named in the doc's vector table.
fn named() -> BTreeSet<(String, String)> {
    let doc = read("docs/threat-model.md");
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
        let named = named_tests(cell);
        if cells.get(2).is_some_and(|d| !d.starts_with("delegated")) && cells.len() > 3 {
            let is_header = cells[1] == "Vector" || cells[1].starts_with("---");
            assert!(
                is_header || !named.is_empty(),
                "a refused or bounded row must name its test: {line}"
            );
        }
        out.extend(named);
    }
    out
}

#[test]
fn every_named_test_exists() {
    let named = named();
    assert!(
        named.len() >= 20,
        "the doc names only {} tests",
        named.len()
    );
    assert_declared("docs/threat-model.md", &named);
}

#[test]
fn tests_are_found_by_their_attributes_whatever_their_form() {
    // `#[tokio::test(flavor = …, …)]`, which a match on whole lines missed.
    let attacks = test_fns("tests/it/http_authorize_async_attacks.rs");
    for test in [
        "many_h2_streams_each_read_only_their_own_principal",
        "many_http1_connections_each_read_only_their_own_principal",
    ] {
        assert!(attacks.contains(test), "{test} not found: {attacks:?}");
    }
    // `#[test]` inside `proptest! { … }`, beside a `#[tokio::test]`; helpers are not tests.
    let decode = test_fns("tests/it/tool_decode.rs");
    assert_eq!(
        decode.into_iter().collect::<Vec<_>>(),
        [
            "admitted_means_decoded",
            "what_the_derived_schema_admits_decodes_over_many_draws"
        ]
    );
    // And this file's own: `#[test]`, not the helper `named`.
    assert_eq!(
        test_fns("tests/it/docs_threat_model.rs")
            .into_iter()
            .collect::<Vec<_>>(),
        [
            "every_named_test_exists",
            "tests_are_found_by_their_attributes_whatever_their_form"
        ]
    );
}
