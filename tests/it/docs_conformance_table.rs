//! The conformance rows of docs/conformance.md are exactly the rows rendered from
//! `conformance/results-summary.json`, and that summary is self-consistent: its totals count
//! its own scenario lists, and its claimed surface is the one `conformance/README.md` names.
//! `tools/conformance.sh` rewrites the summary from a real suite run and fails when
//! docs/conformance.md differs; this test keeps the committed pair honest without Node.

use serde_json::Value;
use std::path::Path;

const BEGIN: &str = "<!-- conformance-table:begin -->";
const END: &str = "<!-- conformance-table:end -->";

fn read(rel: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn summary() -> Value {
    serde_json::from_str(&read("conformance/results-summary.json")).unwrap()
}

/// The same bytes as `render` in tools/conformance_table.py.
fn render(summary: &Value) -> Vec<String> {
    let suite = summary["suite"].as_str().unwrap();
    let version = suite.rsplit_once('@').unwrap().1;
    let date = summary["date"].as_str().unwrap();
    let mut rows = vec![
        "| revision | scored scenarios passing | claimed surface passing | run |".to_owned(),
        "|---|---|---|---|".to_owned(),
    ];
    for r in summary["revisions"].as_array().unwrap() {
        let (s, c) = (&r["scored"], &r["claimed"]);
        let claimed = if c["total"].as_u64().unwrap() == 0 {
            "none claimed".to_owned()
        } else {
            format!("{}/{}", c["passed"], c["total"])
        };
        rows.push(format!(
            "| {} | {}/{} | {claimed} | {date}, conformance {version} |",
            r["revision"].as_str().unwrap(),
            s["passed"],
            s["total"],
        ));
    }
    rows
}

/// The table's page.
const DOC: &str = "docs/conformance.md";

fn doc_rows() -> Vec<String> {
    let doc = read(DOC);
    let start = doc.find(BEGIN).expect("the page has the begin marker") + BEGIN.len();
    let end = doc.find(END).expect("the page has the end marker");
    doc[start..end]
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(str::to_owned)
        .collect()
}

#[test]
fn doc_rows_are_the_rows_rendered_from_the_summary() {
    assert_eq!(doc_rows(), render(&summary()), "{DOC}");
}

#[test]
fn summary_totals_count_its_own_scenarios() {
    let s = summary();
    let revisions = s["revisions"].as_array().unwrap();
    let names: Vec<&str> = revisions
        .iter()
        .map(|r| r["revision"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["2026-07-28", "2025-11-25"]);
    for r in revisions {
        let scenarios = r["scenarios"].as_object().unwrap();
        let passing = |name: &str| scenarios[name] == "pass";
        let passed = scenarios.keys().filter(|n| passing(n)).count() as u64;
        assert_eq!(r["scored"]["passed"], passed, "{}", r["revision"]);
        assert_eq!(r["scored"]["total"], scenarios.len() as u64);
        let claimed = r["claimed"]["scenarios"].as_array().unwrap();
        let claimed_passed = claimed
            .iter()
            .filter(|c| passing(c.as_str().unwrap()))
            .count() as u64;
        assert_eq!(r["claimed"]["passed"], claimed_passed);
        assert_eq!(r["claimed"]["total"], claimed.len() as u64);
    }
}

#[test]
fn claimed_surface_is_the_one_conformance_readme_names() {
    let doc = read("conformance/README.md");
    let s = summary();
    for r in s["revisions"].as_array().unwrap() {
        let rev = r["revision"].as_str().unwrap();
        let named: Vec<String> = doc
            .lines()
            .filter_map(|l| l.strip_prefix("- `"))
            .filter_map(|l| l.split_once("` at "))
            .filter(|(_, rest)| rest.starts_with(rev))
            .map(|(name, _)| name.to_owned())
            .collect();
        let claimed: Vec<String> = r["claimed"]["scenarios"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_str().unwrap().to_owned())
            .collect();
        assert_eq!(named, claimed, "{rev}");
    }
}

#[test]
fn every_scored_failure_is_baselined_with_a_reason_and_no_pass_is() {
    let s = summary();
    for r in s["revisions"].as_array().unwrap() {
        let rev = r["revision"].as_str().unwrap();
        let baseline = read(&format!("conformance/baseline-{rev}.yml"));
        let mut listed = Vec::new();
        for line in baseline.lines().filter_map(|l| l.strip_prefix("  - ")) {
            let (entry, comment) = line.split_once(" # ").expect("every entry has a reason");
            let reason = comment.split(':').next().unwrap();
            assert!(
                ["decision", "needs-feature"].contains(&reason),
                "{rev}: {entry}: reason word {reason:?}"
            );
            listed.push(entry.split(':').next().unwrap().to_owned());
        }
        for (name, status) in r["scenarios"].as_object().unwrap() {
            assert_eq!(
                status != "pass",
                listed.contains(name),
                "{rev}: {name} is {status} but baselined = {}",
                listed.contains(name)
            );
        }
    }
}
