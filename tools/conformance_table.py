#!/usr/bin/env python3
"""Summarise the conformance suite's checks.json files and render docs/conformance.md's rows.

  conformance_table.py summarize --results DIR --requirements SUITE/requirements \
      --suite-version V --claimed conformance/README.md --out conformance/results-summary.json
  conformance_table.py doc --summary conformance/results-summary.json --doc docs/conformance.md [--write]

`summarize` reads DIR/<revision>/server-<scenario>-<timestamp>/checks.json (as
tools/conformance.sh lays them out) and the frozen requirement sets shipped with the suite
(SUITE/requirements/<revision>.yaml: its `server:` list is what is scored). A scenario passes when none of
its checks is FAILURE or WARNING. `doc` renders the rows between the page's
conformance-table markers and exits 1 when they differ (or rewrites them with --write).
(`readme` and `--readme` are the old names of `doc` and `--doc`, from when the table was in the
README.) Standard library only.
"""

import argparse
import json
import os
import re
import sys

BEGIN = "<!-- conformance-table:begin -->"
END = "<!-- conformance-table:end -->"
REVISIONS = ["2026-07-28", "2025-11-25"]
DIR_RE = re.compile(r"^server-(?P<name>.+)-(?P<ts>\d{4}-\d{2}-\d{2}T[0-9-]+Z)$")
CLAIM_RE = re.compile(r"^- `(?P<name>[a-z0-9-]+)` at (?P<rev>\d{4}-\d{2}-\d{2})\b")


def scored_scenarios(path):
    """The `server:` list of a requirements file: a flat YAML list, read without a YAML parser."""
    names, inside = [], False
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("server:"):
                inside = True
            elif inside and line.startswith("  - "):
                names.append(line[4:].split("#", 1)[0].strip())
            elif inside and line.strip() and not line.startswith((" ", "#")):
                break
    return names


def claimed_scenarios(path):
    claims = {rev: [] for rev in REVISIONS}
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = CLAIM_RE.match(line)
            if m:
                claims.setdefault(m["rev"], []).append(m["name"])
    return claims


def scenario_results(rev_dir):
    """scenario -> (status, latest check date); the newest folder wins on a repeat."""
    found = {}
    for entry in sorted(os.listdir(rev_dir)):
        m = DIR_RE.match(entry)
        checks_path = os.path.join(rev_dir, entry, "checks.json")
        if not m or not os.path.isfile(checks_path):
            continue
        with open(checks_path, encoding="utf-8") as f:
            checks = json.load(f)
        statuses = {c.get("status") for c in checks}
        if "FAILURE" in statuses:
            status = "fail"
        elif "WARNING" in statuses:
            status = "warn"
        else:
            status = "pass"
        dates = [c["timestamp"][:10] for c in checks if c.get("timestamp")]
        found[m["name"]] = (status, max(dates) if dates else m["ts"][:10])
    return found


def summarize(args):
    claims = claimed_scenarios(args.claimed)
    revisions = []
    dates = []
    for rev in REVISIONS:
        rev_dir = os.path.join(args.results, rev)
        scored = scored_scenarios(os.path.join(args.requirements, f"{rev}.yaml"))
        results = scenario_results(rev_dir)
        missing = [s for s in scored if s not in results]
        if missing:
            sys.exit(f"conformance_table.py: {rev}: no checks.json for {', '.join(missing)}")
        scenarios = {s: results[s][0] for s in scored}
        not_scored = {s: r[0] for s, r in sorted(results.items()) if s not in scenarios}
        claimed = claims.get(rev, [])
        unknown = [c for c in claimed if c not in scenarios]
        if unknown:
            sys.exit(f"conformance_table.py: {rev}: claimed but not scored: {', '.join(unknown)}")
        dates += [r[1] for r in results.values()]
        revisions.append(
            {
                "revision": rev,
                "scored": {
                    "passed": sum(1 for v in scenarios.values() if v == "pass"),
                    "total": len(scenarios),
                },
                "claimed": {
                    "passed": sum(1 for c in claimed if scenarios[c] == "pass"),
                    "total": len(claimed),
                    "scenarios": claimed,
                },
                "scenarios": scenarios,
                "not_scored": not_scored,
            }
        )
    summary = {
        "suite": f"@modelcontextprotocol/conformance@{args.suite_version}",
        "date": max(dates),
        "revisions": revisions,
    }
    # The date is when these results were first seen: a later run with the same results
    # keeps it, so the page changes only when the results do.
    if os.path.isfile(args.out):
        with open(args.out, encoding="utf-8") as f:
            previous = json.load(f)
        if {**previous, "date": summary["date"]} == summary:
            summary["date"] = previous["date"]
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(summary, f, indent=2, sort_keys=False)
        f.write("\n")


def render(summary):
    """The page's rows. tests/it/docs_conformance_table.rs renders the same bytes in Rust."""
    suite = summary["suite"].rsplit("@", 1)[1]
    rows = [
        "| revision | scored scenarios passing | claimed surface passing | run |",
        "|---|---|---|---|",
    ]
    for r in summary["revisions"]:
        s, c = r["scored"], r["claimed"]
        claimed = f"{c['passed']}/{c['total']}" if c["total"] else "none claimed"
        rows.append(
            f"| {r['revision']} | {s['passed']}/{s['total']} | {claimed} "
            f"| {summary['date']}, conformance {suite} |"
        )
    return rows


def doc(args):
    with open(args.summary, encoding="utf-8") as f:
        summary = json.load(f)
    with open(args.doc, encoding="utf-8") as f:
        text = f.read()
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < start:
        sys.exit(f"conformance_table.py: {args.doc} has no {BEGIN} ... {END} block")
    head = text[: start + len(BEGIN)]
    want = head + "\n" + "\n".join(render(summary)) + "\n" + text[end:]
    if want == text:
        return 0
    if args.write:
        with open(args.doc, "w", encoding="utf-8") as f:
            f.write(want)
        return 0
    print(f"{args.doc}: the conformance rows differ from the summary; expected:", file=sys.stderr)
    print("\n".join(render(summary)), file=sys.stderr)
    return 1


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("summarize")
    s.add_argument("--results", required=True)
    s.add_argument("--requirements", required=True)
    s.add_argument("--suite-version", required=True)
    s.add_argument("--claimed", required=True)
    s.add_argument("--out", required=True)
    r = sub.add_parser("doc", aliases=["readme"])
    r.add_argument("--summary", required=True)
    r.add_argument("--doc", "--readme", dest="doc", required=True)
    r.add_argument("--write", action="store_true")
    args = p.parse_args()
    if args.cmd == "summarize":
        summarize(args)
        return 0
    return doc(args)


if __name__ == "__main__":
    sys.exit(main())
