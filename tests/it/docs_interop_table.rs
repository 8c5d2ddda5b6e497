//! The client × transport rows of docs/interop.md are exactly the rows rendered from
//! `interop/results.json` and, for their OAuth column, `interop/oauth-results.json`; and those
//! results are self-consistent: each run's counts count its own operations (or steps), every
//! failing operation is in `interop/baseline.txt` with a reason and no passing one is, the
//! required clients ran over both transports and behind OAuth, and the versions recorded are
//! the ones the lock files under `interop/` pin. `tools/interop.sh` and
//! `tools/oauth_interop.sh` rewrite the results from real client runs and fail when
//! docs/interop.md differs; this test keeps the committed files honest without Node or Python.

use serde_json::Value;
use std::path::Path;

const BEGIN: &str = "<!-- interop-table:begin -->";
const END: &str = "<!-- interop-table:end -->";

fn read(rel: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn results() -> Value {
    serde_json::from_str(&read("interop/results.json")).unwrap()
}

fn oauth() -> Value {
    serde_json::from_str(&read("interop/oauth-results.json")).unwrap()
}

fn runs(results: &Value) -> &Vec<Value> {
    results["runs"].as_array().unwrap()
}

fn s<'a>(v: &'a Value, key: &str) -> &'a str {
    v[key]
        .as_str()
        .unwrap_or_else(|| panic!("{key} is not a string in {v}"))
}

/// The same bytes as `cell` in tools/interop_table.py.
fn cell(run: Option<&Value>) -> String {
    let Some(run) = run else {
        return "not run".to_owned();
    };
    let (passed, total) = (&run["passed"], &run["total"]);
    let Some(revision) = run["revision"].as_str() else {
        return format!("{passed}/{total}, connect fails");
    };
    let mut text = format!("{passed}/{total} at {revision}");
    let failing: Vec<&str> = run["operations"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|o| o["pass"] == false)
        .map(|o| s(o, "operation"))
        .collect();
    if !failing.is_empty() {
        text.push_str(&format!(" (fails: {})", failing.join(", ")));
    }
    text
}

/// The same bytes as `oauth_cell` in tools/interop_table.py.
fn oauth_cell(run: Option<&Value>) -> String {
    let Some(run) = run else {
        return "\u{2014}".to_owned();
    };
    let text = format!("{}/{}", run["passed"], run["total"]);
    let mut failing: Vec<String> = Vec::new();
    for step in run["steps"].as_array().unwrap() {
        let name = format!("{} {}", s(step, "scenario"), s(step, "step"));
        if step["pass"] == false && !failing.contains(&name) {
            failing.push(name);
        }
    }
    if failing.is_empty() {
        format!("{text}: flow, step-up, re-auth \u{2713}")
    } else {
        format!("{text} (fails: {})", failing.join(", "))
    }
}

/// The same bytes as `render` in tools/interop_table.py.
fn render(results: &Value, oauth: &Value) -> Vec<String> {
    let mut rows = vec![
        "| client | default mode | stdio | Streamable HTTP | OAuth (HTTP) |".to_owned(),
        "|---|---|---|---|---|".to_owned(),
    ];
    let key = |r: &Value| {
        [
            s(r, "client").to_owned(),
            s(r, "version").to_owned(),
            s(r, "mode").to_owned(),
            s(r, "opener").to_owned(),
        ]
    };
    let mut seen: Vec<[String; 4]> = Vec::new();
    for r in runs(results) {
        if !seen.contains(&key(r)) {
            seen.push(key(r));
        }
    }
    // The OAuth run of an id: the last one, as in the Python dict.
    let oauth_run = |id: &str| runs(oauth).iter().rev().find(|o| s(o, "id") == id);
    for k in seen {
        let on = |transport: &str| {
            // The last run of a (client, mode, transport) wins, as in the Python dict.
            runs(results)
                .iter()
                .rev()
                .find(|r| key(r) == k && s(r, "transport") == transport)
        };
        let [client, version, mode, opener] = &k;
        // The row's OAuth run: the one with a run id of the row, for the same client version.
        let behind_oauth = runs(results)
            .iter()
            .filter(|r| key(r) == k)
            .filter_map(|r| oauth_run(s(r, "id")))
            .find(|o| s(o, "version") == version);
        rows.push(format!(
            "| `{client}` {version} | {mode}: opens with {opener} | {} | {} | {} |",
            cell(on("stdio")),
            cell(on("http")),
            oauth_cell(behind_oauth)
        ));
    }
    rows.push(String::new());
    rows.push(format!(
        "Run of {} against `{}`.",
        s(results, "date"),
        s(results, "server")
    ));
    let checks = oauth["checks"].as_array().unwrap();
    rows.push(format!(
        "OAuth run of {} against `{}` behind {}: {}/{} refusal and metadata checks pass.",
        s(oauth, "date"),
        s(oauth, "server"),
        s(oauth, "provider"),
        checks.iter().filter(|c| c["pass"] == true).count(),
        checks.len()
    ));
    rows
}

/// The table's page.
const DOC: &str = "docs/interop.md";

/// The README carries the same table.
const README: &str = "README.md";

fn doc_rows() -> Vec<String> {
    rows_of(DOC)
}

fn rows_of(page: &str) -> Vec<String> {
    let doc = read(page);
    let start = doc.find(BEGIN).expect("the page has the begin marker") + BEGIN.len();
    let end = doc.find(END).expect("the page has the end marker");
    doc[start..end]
        .strip_prefix('\n')
        .unwrap_or(&doc[start..end])
        .lines()
        .map(str::to_owned)
        .collect()
}

/// (run id, transport, operation, reason) for every baseline line.
fn baseline() -> Vec<(String, String, String, String)> {
    read("interop/baseline.txt")
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (entry, reason) = l.split_once(" # ").expect("every entry has a reason");
            let mut parts = entry.splitn(3, ' ');
            let mut next = || {
                parts
                    .next()
                    .expect("<id> <transport> <operation>")
                    .to_owned()
            };
            let (id, transport, op) = (next(), next(), next());
            (id, transport, op, reason.trim().to_owned())
        })
        .collect()
}

#[test]
fn doc_rows_are_the_rows_rendered_from_the_results() {
    assert_eq!(doc_rows(), render(&results(), &oauth()), "{DOC}");
    assert_eq!(rows_of(README), render(&results(), &oauth()), "{README}");
}

#[test]
fn every_run_counts_its_own_operations_in_the_listed_order() {
    let r = results();
    let names: Vec<&str> = r["operations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o.as_str().unwrap())
        .collect();
    assert_eq!(names.len(), 11);
    assert_eq!(names[0], "connect");
    for run in runs(&r) {
        let ops = run["operations"].as_array().unwrap();
        let run_names: Vec<&str> = ops.iter().map(|o| s(o, "operation")).collect();
        assert_eq!(run_names, names, "{} {}", run["id"], run["transport"]);
        let passed = ops.iter().filter(|o| o["pass"] == true).count() as u64;
        assert_eq!(run["passed"], passed, "{} {}", run["id"], run["transport"]);
        assert_eq!(run["total"], ops.len() as u64);
        for o in ops {
            assert!(o["pass"].is_boolean());
            assert!(!s(o, "detail").is_empty(), "every operation says why");
        }
        // A run that connected names the revision it negotiated; one that did not, none.
        let connected = ops[0]["pass"] == true;
        assert_eq!(run["revision"].is_string(), connected, "{run}");
        if connected {
            assert!(["2026-07-28", "2025-11-25"].contains(&s(run, "revision")));
        }
    }
}

#[test]
fn every_failure_is_baselined_with_a_reason_and_no_pass_is() {
    let r = results();
    let entries = baseline();
    let mut recorded = Vec::new();
    for run in runs(&r) {
        for o in run["operations"].as_array().unwrap() {
            let key = (
                s(run, "id").to_owned(),
                s(run, "transport").to_owned(),
                s(o, "operation").to_owned(),
            );
            let listed = entries
                .iter()
                .any(|(i, t, op, _)| (i, t, op) == (&key.0, &key.1, &key.2));
            assert_eq!(
                o["pass"] == false,
                listed,
                "{key:?}: pass = {}, baselined = {listed}",
                o["pass"]
            );
            recorded.push(key);
        }
    }
    for (id, transport, op, reason) in &entries {
        assert!(
            recorded.contains(&(id.clone(), transport.clone(), op.clone())),
            "baseline entry {id} {transport} {op} names no recorded operation"
        );
        let word = reason.split(':').next().unwrap();
        assert!(
            ["server", "client"].contains(&word),
            "{id} {transport} {op}: a reason starts with server: or client:, got {reason:?}"
        );
    }
}

#[test]
fn the_required_clients_ran_over_both_transports() {
    let r = results();
    for (id, client, version) in [
        ("ts-sdk", "@modelcontextprotocol/sdk", "1.32.2"),
        ("ts-client", "@modelcontextprotocol/client", "2.3.1"),
        ("py-client", "mcp", "2.3.0"),
        ("py-session", "mcp", "2.3.0"),
    ] {
        for transport in ["stdio", "http"] {
            let run = runs(&r)
                .iter()
                .find(|run| s(run, "id") == id && s(run, "transport") == transport)
                .unwrap_or_else(|| panic!("no {id} run over {transport}"));
            assert_eq!(s(run, "client"), client);
            assert_eq!(s(run, "version"), version);
        }
    }
}

#[test]
fn recorded_versions_are_the_pinned_ones() {
    let r = results();
    let python = read("interop/python-requirements.txt");
    for run in runs(&r) {
        let (client, version) = (s(run, "client"), s(run, "version"));
        if client == "mcp" {
            assert!(
                python.lines().any(|l| l == format!("mcp=={version}")),
                "interop/python-requirements.txt pins mcp=={version}"
            );
            continue;
        }
        let tree = match s(run, "id") {
            "ts-sdk" => "sdk",
            "ts-client" => "client",
            "inspector" => "inspector",
            other => panic!("{other}: no npm tree under interop/node/"),
        };
        let dir = format!("interop/node/{tree}-{version}");
        let manifest: Value = serde_json::from_str(&read(&format!("{dir}/package.json"))).unwrap();
        assert_eq!(manifest["dependencies"][client], version, "{dir}");
        let lock: Value = serde_json::from_str(&read(&format!("{dir}/package-lock.json"))).unwrap();
        assert_eq!(
            lock["packages"][format!("node_modules/{client}")]["version"],
            version,
            "{dir}/package-lock.json"
        );
    }
}

#[test]
fn oauth_results_count_their_steps_and_name_the_pinned_clients() {
    let o = oauth();
    assert_eq!(s(&o, "server"), "examples/oauth_weather.rs");
    let provider = s(&o, "provider");
    let (name, version) = provider.split_once(' ').expect("`<package> <version>`");
    let dir = format!("interop/node/{name}-{version}");
    let manifest: Value = serde_json::from_str(&read(&format!("{dir}/package.json"))).unwrap();
    assert_eq!(manifest["dependencies"][name], version, "{dir}");
    for c in o["checks"].as_array().unwrap() {
        assert!(c["pass"].is_boolean() && !s(c, "detail").is_empty(), "{c}");
    }
    let python = read("interop/python-requirements.txt");
    for (id, client, version) in [
        ("ts-sdk", "@modelcontextprotocol/sdk", "1.32.2"),
        ("py-client", "mcp", "2.3.0"),
        ("py-session", "mcp", "2.3.0"),
    ] {
        let run = runs(&o)
            .iter()
            .find(|r| s(r, "id") == id)
            .unwrap_or_else(|| panic!("no OAuth run {id}"));
        assert_eq!((s(run, "client"), s(run, "version")), (client, version));
        let steps = run["steps"].as_array().unwrap();
        let passed = steps.iter().filter(|x| x["pass"] == true).count() as u64;
        assert_eq!(run["passed"], passed, "{id}");
        assert_eq!(run["total"], steps.len() as u64, "{id}");
        for x in steps {
            assert!(x["pass"].is_boolean() && !s(x, "detail").is_empty(), "{x}");
        }
        if client == "mcp" {
            assert!(python.lines().any(|l| l == format!("mcp=={version}")));
        }
    }
}
