#!/usr/bin/env python3
"""Judge the interop clients' recorded outcomes and render docs/interop.md's client × transport rows.

  interop_table.py summarize --results DIR --baseline interop/baseline.txt --out interop/results.json
  interop_table.py doc --summary interop/results.json --doc docs/interop.md [--oauth FILE] [--write]

`summarize` reads DIR/NN-<run>.jsonl as tools/interop.sh writes them: a first line
{"meta": {client, version, mode, opener, transport}}, then one line per operation the client
script recorded ({"op", "outcome": "result" | "error" | "exception", ...}). Each operation is
judged against what the revision the client negotiated prescribes (EXPECT below); a missing
operation fails as not run. Every failure must be listed in the baseline with its reason, and
every listed one must still fail: otherwise `summarize` exits 1. `doc` renders the rows between
the page's interop-table markers and exits 1 when they differ (or rewrites them with --write);
their OAuth column comes from interop/oauth-results.json (tools/oauth_judge.py, beside the
summary unless --oauth names it), a dash for a client not run behind OAuth.
(`readme` and `--readme` are the old names of `doc` and `--doc`, from when the table was in the
README.) Standard library only.
"""

import argparse
import datetime
import json
import os
import sys

BEGIN = "<!-- interop-table:begin -->"
END = "<!-- interop-table:end -->"
REVISIONS = ["2026-07-28", "2025-11-25"]
OPERATIONS = [
    "connect",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/templates/list",
    "resources/read places",
    "resources/read place/Lima",
    "prompts/list",
    "prompts/get forecast",
    "tools/call unknown tool",
    "tools/call wrong argument type",
]
TRANSPORTS = ["stdio", "http"]


def text_of(content):
    return content.get("text") if isinstance(content, dict) else None


def has(items, key, value):
    return isinstance(items, list) and any(isinstance(i, dict) and i.get(key) == value for i in items)


def result_check(predicate, want):
    """A judge for an operation that must succeed: its result must satisfy `predicate`."""

    def judge(line, _rev):
        if line["outcome"] != "result":
            return False, f"want {want}; the client surfaced {surfaced(line)}"
        try:
            ok = predicate(line["result"])
        except (KeyError, IndexError, TypeError, AttributeError):
            ok = False
        if ok:
            return True, want
        return False, f"want {want}; got {json.dumps(line['result'], ensure_ascii=False)[:300]}"

    return judge


def surfaced(line):
    if line["outcome"] == "result":
        r = line["result"]
        if isinstance(r, dict) and r.get("isError"):
            return f"an isError result ({text_of((r.get('content') or [{}])[0])!r})"
        return "a result"
    if line["outcome"] == "error":
        if line.get("code") is None:
            return f"an error without a JSON-RPC code ({line.get('client_code')}: {line['message']})"
        return f"JSON-RPC error {line['code']} ({line['message']})"
    return f"an exception ({line['message'][:300]})"


def protocol_error(code, why):
    """A judge for an operation the revision answers with a JSON-RPC error `code`."""

    def judge(line, _rev):
        if line["outcome"] == "error" and line.get("code") == code:
            return True, f"JSON-RPC error {code} ({line['message']}); {why}"
        if line["outcome"] == "error" and line.get("code") is None:
            if line.get("client_code") == "tool_not_found":
                return True, (
                    "refused by the client from its own tools/list before sending "
                    f"({line['message']}): the server was not asked"
                )
            return True, (
                f"an error, its JSON-RPC code not surfaced by this client ({line['message']}); {why}"
            )
        return False, f"want JSON-RPC error {code} ({why}); the client surfaced {surfaced(line)}"

    return judge


def tool_execution_error(why):
    """A judge for a tools/call the revision answers with a result carrying isError: true."""

    def judge(line, _rev):
        if line["outcome"] == "result" and line["result"].get("isError") is True:
            return True, f"isError result; {why}"
        return False, f"want an isError result ({why}); the client surfaced {surfaced(line)}"

    return judge


def per_revision(judges):
    """Picks the judge of the negotiated revision."""

    def judge(line, rev):
        if rev not in judges:
            return False, f"no expectation for revision {rev}"
        return judges[rev](line, rev)

    return judge


UNKNOWN_TOOL = "2025-11-25 and 2026-07-28 server/tools: an unknown tool is a protocol error"
WRONG_TYPE_2025 = (
    "2025-11-25 server/tools, Error Handling: input validation errors are tool execution errors"
)
WRONG_TYPE_2026 = "2026-07-28 schema, InvalidParamsError: invalid tool arguments are -32602"

# The metadata examples/weather.rs declares, as the client must surface it: exactly these
# members, with exactly these values (a client that drops or reshapes one fails).
SUN = {
    "src": "data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIHZpZXdC"
    "b3g9IjAgMCAxNiAxNiI+PGNpcmNsZSBjeD0iOCIgY3k9IjgiIHI9IjYiIGZpbGw9IiNmNWI0MDAiLz48L3N2Zz4=",
    "mimeType": "image/svg+xml",
    "sizes": ["any"],
}
SERVER_INFO = {
    "name": "weather",
    "version": "0.1.0",
    "title": "Weather",
    "description": "Canned weather for two stations: an example of embedding.",
    "websiteUrl": "https://example.org/weather",
    "icons": [SUN],
}
DECLARED = {
    "get_weather": {
        "title": "Current weather",
        "annotations": {"readOnlyHint": True, "idempotentHint": True, "openWorldHint": False},
        "icons": [SUN],
        "_meta": {"org.example/units": "metric"},
    },
    "weather://places": {
        "title": "Stations",
        "icons": [SUN],
        "_meta": {"org.example/refresh": "static"},
    },
    "weather://place/{name}": {
        "title": "A station's weather",
        "icons": [SUN],
        "_meta": {"org.example/refresh": "hourly"},
    },
    "forecast": {
        "title": "Forecast",
        "icons": [SUN],
        "_meta": {"org.example/audience": "traveller"},
    },
}


def item(items, key, value):
    """The one listed item whose `key` is `value` (KeyError when there is none)."""
    found = [i for i in items if isinstance(i, dict) and i.get(key) == value]
    if len(found) != 1:
        raise KeyError(value)
    return found[0]


def as_declared(listed, name):
    """Whether `listed` carries each metadata member declared for `name`, exactly."""
    return all(listed.get(k) == v for k, v in DECLARED[name].items())


def connect_check(line, _rev):
    """The revision negotiated, and the server's identity wherever the client surfaces it."""
    if line["outcome"] != "result":
        return False, f"the client surfaced {surfaced(line)}"
    r = line["result"]
    revision = r.get("protocolVersion")
    how = " (inferred: the client prints no handshake)" if r.get("inferred") else ""
    if revision not in REVISIONS:
        return False, f"negotiated {revision}{how}"
    info = r.get("serverInfo")
    if info is None:
        return True, f"negotiated {revision}{how}"
    if info != SERVER_INFO:
        return False, f"negotiated {revision}; serverInfo {json.dumps(info, ensure_ascii=False)[:300]}"
    return True, f"negotiated {revision}; serverInfo as declared (title, description, websiteUrl, icons)"


EXPECT = {
    "tools/list": result_check(
        lambda r: item(r["tools"], "name", "get_weather")["inputSchema"]["properties"]["place"]["type"]
        == "string"
        and as_declared(item(r["tools"], "name", "get_weather"), "get_weather"),
        "get_weather listed with its schema, title, annotations, icon and _meta",
    ),
    "tools/call": result_check(
        lambda r: not r.get("isError")
        and r.get("structuredContent") == {"place": "Oslo", "celsius": 12, "conditions": "light rain"},
        "Oslo's report as structured content",
    ),
    "resources/list": result_check(
        lambda r: as_declared(item(r["resources"], "uri", "weather://places"), "weather://places"),
        "weather://places listed with its title, icon and _meta",
    ),
    "resources/templates/list": result_check(
        lambda r: as_declared(
            item(r["resourceTemplates"], "uriTemplate", "weather://place/{name}"),
            "weather://place/{name}",
        ),
        "weather://place/{name} listed with its title, icon and _meta",
    ),
    "resources/read places": result_check(
        lambda r: r["contents"][0]["text"] == "Oslo\nLima", "'Oslo\\nLima'"
    ),
    "resources/read place/Lima": result_check(
        lambda r: r["contents"][0]["text"] == "19°C, overcast", "'19°C, overcast'"
    ),
    "prompts/list": result_check(
        lambda r: has(item(r["prompts"], "name", "forecast").get("arguments"), "name", "place")
        and as_declared(item(r["prompts"], "name", "forecast"), "forecast"),
        "forecast listed with its argument place, title, icon and _meta",
    ),
    "prompts/get forecast": result_check(
        lambda r: r["messages"][0]["role"] == "user"
        and text_of(r["messages"][0]["content"]) == "What is the forecast for Oslo?",
        "'What is the forecast for Oslo?'",
    ),
    "tools/call unknown tool": protocol_error(-32602, UNKNOWN_TOOL),
    "tools/call wrong argument type": per_revision(
        {
            "2025-11-25": tool_execution_error(WRONG_TYPE_2025),
            "2026-07-28": protocol_error(-32602, WRONG_TYPE_2026),
        }
    ),
}


def judge_run(path):
    with open(path, encoding="utf-8") as f:
        lines = [json.loads(line) for line in f if line.strip()]
    if not lines or "meta" not in lines[0]:
        sys.exit(f"interop_table.py: {path} has no meta line")
    meta, recorded, exit_note = lines[0]["meta"], {}, ""
    for line in lines[1:]:
        if "op" not in line:
            rc = line["exit"]
            exit_note = f"; the client exited {rc}" + (" (timed out)" if rc in (124, 137) else "")
        else:
            recorded.setdefault(line["op"], line)
    ops, revision = [], None
    connect = recorded.get("connect")
    if connect is None:
        ops.append(("connect", False, "the client recorded nothing" + exit_note))
    else:
        ok, detail = connect_check(connect, None)
        if connect["outcome"] == "result" and connect["result"].get("protocolVersion") in REVISIONS:
            revision = connect["result"]["protocolVersion"]
        ops.append(("connect", ok, detail))
    for op in OPERATIONS[1:]:
        line = recorded.get(op)
        if line is None:
            why = "not run: connect failed" if revision is None else "not recorded" + exit_note
            ops.append((op, False, why))
        else:
            ok, detail = EXPECT[op](line, revision)
            ops.append((op, ok, detail))
    operations = [{"operation": o, "pass": ok, "detail": d} for o, ok, d in ops]
    return {
        "id": meta["id"],
        "client": meta["client"],
        "version": meta["version"],
        "mode": meta["mode"],
        "opener": meta["opener"],
        "transport": meta["transport"],
        "revision": revision,
        "passed": sum(1 for o in operations if o["pass"]),
        "total": len(operations),
        "operations": operations,
    }


def read_baseline(path):
    """[(id, transport, operation, reason)] from `<id> <transport> <operation> # <reason>`."""
    entries = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip() or line.startswith("#"):
                continue
            entry, sep, reason = line.rstrip("\n").partition(" # ")
            parts = entry.split(" ", 2)
            if not sep or not reason.strip() or len(parts) != 3:
                sys.exit(f"interop_table.py: {path}:{n}: want '<id> <transport> <operation> # <reason>'")
            entries.append((parts[0], parts[1], parts[2].strip(), reason.strip()))
    return entries


def baseline_problems(runs, entries):
    """Unlisted failures, listed operations that pass, and entries naming no run, as messages."""
    problems = []
    listed = {(i, t, op) for i, t, op, _ in entries}
    recorded = set()
    for r in runs:
        for o in r["operations"]:
            key = (r["id"], r["transport"], o["operation"])
            recorded.add(key)
            if not o["pass"] and key not in listed:
                problems.append(" ".join(key) + ": fails, not in the baseline")
            if o["pass"] and key in listed:
                problems.append(" ".join(key) + ": passes, still in the baseline")
    for key in sorted(listed - recorded):
        problems.append(" ".join(key) + ": in the baseline, no such run or operation")
    return problems


def summarize(args):
    runs = [
        judge_run(os.path.join(args.results, name))
        for name in sorted(os.listdir(args.results))
        if name.endswith(".jsonl")
    ]
    summary = {
        "server": "examples/weather.rs",
        "date": datetime.date.today().isoformat(),
        "operations": OPERATIONS,
        "runs": runs,
    }
    # The same results as the committed summary keep its date (a re-run changes nothing).
    if os.path.isfile(args.out):
        with open(args.out, encoding="utf-8") as f:
            previous = json.load(f)
        if previous.get("runs") == runs:
            summary["date"] = previous["date"]
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(summary, f, indent=2, ensure_ascii=False)
        f.write("\n")
    for r in runs:
        print(f"interop: {r['client']} {r['version']} ({r['mode']}) over {r['transport']}: "
              f"{r['passed']}/{r['total']}" + (f" at {r['revision']}" if r["revision"] else ""))
        for o in r["operations"]:
            if not o["pass"]:
                print(f"    FAIL {o['operation']}: {o['detail']}")
    problems = baseline_problems(runs, read_baseline(args.baseline))
    for p in problems:
        print(f"interop: baseline: {p}", file=sys.stderr)
    return 1 if problems else 0


def cell(run):
    """One table cell. tests/it/docs_interop_table.rs renders the same bytes in Rust."""
    if run is None:
        return "not run"
    if run["revision"] is None:
        return f"{run['passed']}/{run['total']}, connect fails"
    text = f"{run['passed']}/{run['total']} at {run['revision']}"
    failing = [o["operation"] for o in run["operations"] if not o["pass"]]
    if failing:
        text += " (fails: " + ", ".join(failing) + ")"
    return text


def oauth_cell(run):
    """The OAuth cell of a row: its run in interop/oauth-results.json (tools/oauth_interop.sh),
    or a dash for a client not run behind OAuth. tests/it/docs_interop_table.rs renders the same
    bytes in Rust."""
    if run is None:
        return "\u2014"
    text = f"{run['passed']}/{run['total']}"
    failing = []
    for s in run["steps"]:
        name = f"{s['scenario']} {s['step']}"
        if not s["pass"] and name not in failing:
            failing.append(name)
    if failing:
        return text + " (fails: " + ", ".join(failing) + ")"
    return text + ": flow, step-up, re-auth \u2713"


def render(summary, oauth=None):
    """The page's rows. tests/it/docs_interop_table.rs renders the same bytes in Rust.
    `oauth` is interop/oauth-results.json (None: no OAuth run, every OAuth cell a dash)."""
    rows = [
        "| client | default mode | stdio | Streamable HTTP | OAuth (HTTP) |",
        "|---|---|---|---|---|",
    ]
    seen = []
    for r in summary["runs"]:
        key = (r["client"], r["version"], r["mode"], r["opener"])
        if key not in seen:
            seen.append(key)
    oauth_runs = {r["id"]: r for r in (oauth or {}).get("runs", [])}
    for client, version, mode, opener in seen:
        runs = [
            r
            for r in summary["runs"]
            if (r["client"], r["version"], r["mode"], r["opener"]) == (client, version, mode, opener)
        ]
        by_transport = {r["transport"]: r for r in runs}
        # The row's OAuth run: the one with a run id of the row, for the same client version.
        behind_oauth = next(
            (
                oauth_runs[r["id"]]
                for r in runs
                if r["id"] in oauth_runs and oauth_runs[r["id"]]["version"] == version
            ),
            None,
        )
        rows.append(
            f"| `{client}` {version} | {mode}: opens with {opener} | "
            f"{cell(by_transport.get('stdio'))} | {cell(by_transport.get('http'))} | {oauth_cell(behind_oauth)} |"
        )
    rows.append("")
    rows.append(f"Run of {summary['date']} against `{summary['server']}`.")
    if oauth is not None:
        checks = oauth["checks"]
        rows.append(
            f"OAuth run of {oauth['date']} against `{oauth['server']}` behind {oauth['provider']}: "
            f"{sum(1 for c in checks if c['pass'])}/{len(checks)} refusal and metadata checks pass."
        )
    return rows


def read_oauth(args):
    """interop/oauth-results.json (--oauth, by default beside --summary), or None without one."""
    path = args.oauth or os.path.join(os.path.dirname(os.path.abspath(args.summary)), "oauth-results.json")
    if not os.path.isfile(path):
        return None
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def doc(args):
    with open(args.summary, encoding="utf-8") as f:
        summary = json.load(f)
    oauth = read_oauth(args)
    with open(args.doc, encoding="utf-8") as f:
        text = f.read()
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < start:
        sys.exit(f"interop_table.py: {args.doc} has no {BEGIN} ... {END} block")
    head = text[: start + len(BEGIN)]
    rows = render(summary, oauth)
    want = head + "\n" + "\n".join(rows) + "\n" + text[end:]
    if want == text:
        return 0
    if args.write:
        with open(args.doc, "w", encoding="utf-8") as f:
            f.write(want)
        return 0
    print(f"{args.doc}: the interop rows differ from the summary; expected:", file=sys.stderr)
    print("\n".join(rows), file=sys.stderr)
    return 1


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("summarize")
    s.add_argument("--results", required=True)
    s.add_argument("--baseline", required=True)
    s.add_argument("--out", required=True)
    r = sub.add_parser("doc", aliases=["readme"])
    r.add_argument("--summary", required=True)
    r.add_argument("--doc", "--readme", dest="doc", required=True)
    r.add_argument("--oauth", help="interop/oauth-results.json (default: beside --summary)")
    r.add_argument("--write", action="store_true")
    args = p.parse_args()
    if args.cmd == "summarize":
        return summarize(args)
    return doc(args)


if __name__ == "__main__":
    sys.exit(main())
