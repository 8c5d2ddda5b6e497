#!/usr/bin/env python3
"""Judge the OAuth interop run: the raw refusals and each SDK client's flow, as recorded.

  oauth_judge.py --results DIR --provider NAME --out interop/oauth-results.json \
                 [--tokens FILE --server-log FILE]

DIR holds what tools/oauth_interop.sh wrote: `raw.jsonl` (interop/oauth/oauth_raw.mjs) and one
`<id>.jsonl` per client run (interop/oauth/ts_sdk_oauth.mjs, interop/oauth/python_oauth.py),
each opened by the driver's {"meta": {id, client, version, mode, url, issuer}} line, then the
script's {"header": ...} and its records. Every check is judged against the MCP authorization
specification (2025-11-25) and RFC 6750 / 9728 / 8707 as the server's contract states them:

  no token                    401, challenge exactly resource_metadata + scope="weather:read"
  bad, foreign, expired token 401, the same plus error="invalid_token" (an error_description
                              is allowed)
  token lacking a scope       403, error="insufficient_scope", scope = granted ∪ needed,
                              resource_metadata
  token in the query string   400, error="invalid_request"
  metadata document           200 JSON at the path form and the root form, Cache-Control set,
                              resource / authorization_servers / scopes_supported /
                              bearer_methods_supported as configured
No answer may repeat the token it was given, and with --tokens and --server-log none of the
tokens the raw checks minted may appear in the server's log. A client run passes a scenario's steps when the
client found the authorization server only from the 401's resource_metadata, registered,
authorized with PKCE S256 and the resource indicator, and then made its calls.

Writes the summary (details free of ports and client ids, so a re-run with the same outcomes
writes the same file; the date is kept then) and exits 1 when anything failed. Standard
library only.
"""

import argparse
import datetime
import json
import os
import re
import sys

SCOPES = {"weather:read", "weather:alerts"}
PRM_PATH = "/.well-known/oauth-protected-resource"


def load(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def challenge(value):
    """(scheme, {param: value}) of a WWW-Authenticate value with one challenge."""
    if value is None:
        return None, {}
    scheme, _, rest = value.partition(" ")
    params = {k: v.replace('\\"', '"') for k, v in re.findall(r'([A-Za-z_]+)="((?:[^"\\]|\\.)*)"', rest)}
    return scheme, params


def origin(url):
    m = re.match(r"^(https?://[^/]+)", url)
    return m.group(1) if m else url


class Context:
    def __init__(self, url, issuer):
        self.url = url
        self.issuer = issuer
        self.prm = origin(url) + PRM_PATH + re.sub(r"^https?://[^/]+", "", url)

    def scrub(self, text):
        """A detail without this run's ports."""
        return text.replace(self.prm, "<metadata URL>").replace(self.url, "<server>").replace(
            self.issuer, "<issuer>").replace(origin(self.url), "<server origin>")


def want_challenge(ctx, line, status, want, *, extra_ok=("error_description",)):
    """Status and challenge parameters exactly `want` (plus the `extra_ok` ones)."""
    got_status = line.get("status")
    raw = line.get("www_authenticate")
    scheme, params = challenge(raw)
    shown = ctx.scrub(f"{got_status} {raw!r}")
    if got_status != status:
        return False, f"want {status}; got {shown}"
    if scheme != "Bearer":
        return False, f"want a Bearer challenge; got {shown}"
    core = {k: v for k, v in params.items() if k not in extra_ok}
    expected = dict(want)
    if "scope" in expected and "scope" in core:
        if set(core["scope"].split()) == set(expected["scope"].split()):
            core["scope"] = expected["scope"]
    if core != expected:
        return False, f"want challenge parameters {ctx.scrub(json.dumps(expected))}; got {shown}"
    if line.get("echoes_token"):
        return False, f"the answer repeats the token: {shown}"
    return True, ctx.scrub(f"{status} {raw}")


def result_text(line):
    """A tool result's text content and structured content, as one string to search."""
    r = line.get("result") or {}
    parts = [c.get("text", "") for c in r.get("content", []) if isinstance(c, dict)]
    if r.get("structuredContent") is not None:
        parts.append(json.dumps(r["structuredContent"], ensure_ascii=False))
    return " ".join(parts)


def tool_ok(line, *needles):
    if line is None:
        return False, "not recorded"
    if line.get("outcome") != "result":
        return False, f"the client surfaced {line.get('outcome')}: {str(line.get('message'))[:300]}"
    r = line.get("result") or {}
    if r.get("isError"):
        return False, f"an isError result: {result_text(line)[:300]}"
    text = result_text(line)
    missing = [n for n in needles if n not in text]
    if missing:
        return False, f"the result does not name {', '.join(missing)}: {text[:300]}"
    return True, "result" + (f" naming {', '.join(needles)}" if needles else "")


# --- the raw refusals ---------------------------------------------------------------------------

def judge_raw(lines):
    header = next(line["header"] for line in lines if "header" in line)
    ctx = Context(header["url"], header["issuer"])
    by_check = {line["check"]: line for line in lines if "check" in line}
    prm = {"resource_metadata": ctx.prm}
    invalid = {"error": "invalid_token", **prm, "scope": "weather:read"}
    out = []

    def check(name, judge):
        line = by_check.get(name)
        if line is None:
            out.append({"check": name, "pass": False, "detail": "not recorded"})
        elif line.get("outcome") == "exception":
            out.append({"check": name, "pass": False, "detail": "the check failed: " + ctx.scrub(line["message"])[:300]})
        else:
            ok, detail = judge(line)
            out.append({"check": name, "pass": ok, "detail": detail})

    def metadata(line):
        b = line.get("body") or {}
        problems = []
        if line.get("status") != 200:
            problems.append(f"status {line.get('status')}")
        if not (line.get("content_type") or "").startswith("application/json"):
            problems.append(f"Content-Type {line.get('content_type')!r}")
        if not line.get("cache_control"):
            problems.append("no Cache-Control")
        if b.get("resource") != ctx.url:
            problems.append(f"resource {ctx.scrub(str(b.get('resource')))!r}")
        if b.get("authorization_servers") != [ctx.issuer]:
            problems.append(f"authorization_servers {ctx.scrub(json.dumps(b.get('authorization_servers')))}")
        if set(b.get("scopes_supported") or []) != SCOPES:
            problems.append(f"scopes_supported {b.get('scopes_supported')}")
        if b.get("bearer_methods_supported") != ["header"]:
            problems.append(f"bearer_methods_supported {b.get('bearer_methods_supported')}")
        if problems:
            return False, "; ".join(problems)
        return True, (f"200 JSON, Cache-Control {line['cache_control']!r}; resource, "
                      "authorization_servers, scopes_supported, bearer_methods_supported as configured")

    check("metadata at the path form", metadata)
    check("metadata at the root form", metadata)
    check("no token", lambda line: want_challenge(ctx, line, 401, {**prm, "scope": "weather:read"}, extra_ok=()))
    check("garbage token", lambda line: want_challenge(ctx, line, 401, invalid))
    check("token for another audience", lambda line: want_challenge(ctx, line, 401, invalid))

    def expired(line):
        if not line.get("accepted_before_expiry"):
            return False, "the short-lived token was not accepted before it expired"
        ok, detail = want_challenge(ctx, line, 401, invalid)
        return ok, detail + f" (accepted before it expired; lifetime {line.get('expires_in')} s)"

    check("expired token", expired)

    def query(line):
        scheme, params = challenge(line.get("www_authenticate"))
        shown = ctx.scrub(f"{line.get('status')} {line.get('www_authenticate')!r}")
        if line.get("status") != 400 or scheme != "Bearer" or params.get("error") != "invalid_request":
            return False, f'want 400 with error="invalid_request"; got {shown}'
        if "resource_metadata" in params and params["resource_metadata"] != ctx.prm:
            return False, f"resource_metadata names another document: {shown}"
        if line.get("echoes_token"):
            return False, f"the answer repeats the token: {shown}"
        return True, ctx.scrub(f"400 {line.get('www_authenticate')}")

    check("token in the query string", query)

    def mcp_result(*needles):
        def judge(line):
            if line.get("status") != 200:
                return False, f"want 200; got {line.get('status')} {ctx.scrub(str(line.get('www_authenticate')))}"
            body = line.get("body") or {}
            if "result" not in body:
                return False, f"no result: {json.dumps(body)[:300]}"
            return tool_ok({"outcome": "result", "result": body["result"]}, *needles)

        return judge

    check("read-only token: get_weather", mcp_result("Oslo"))
    check("read-only token: get_alerts", lambda line: want_challenge(
        ctx, line, 403, {"error": "insufficient_scope", "scope": "weather:read weather:alerts", **prm}))
    check("full token: whoami", mcp_result(header["login"], "weather:alerts"))
    return out


# --- the clients ------------------------------------------------------------------------------

def judge_client(lines, meta):
    header = next((line["header"] for line in lines if "header" in line), {})
    ctx = Context(meta["url"], meta["issuer"])
    logins = header.get("logins", {})
    steps = []

    for scenario in ("fresh", "foreign", "expired"):
        recs = [line for line in lines if line.get("scenario") == scenario]
        login = logins.get(scenario, "?")

        def step(name, ok, detail, scenario=scenario):
            steps.append({"scenario": scenario, "step": name, "pass": ok, "detail": ctx.scrub(detail)})

        http = [r for r in recs if r.get("event") == "http"]
        mcp = [r for r in http if r["url"] == ctx.url]
        at_issuer = [i for i, r in enumerate(http) if r["url"].startswith(ctx.issuer + "/")]
        authorizes = [r for r in recs if r.get("event") == "authorize"]
        ops = [r for r in recs if "op" in r]
        failed = next((r for r in ops if r["op"] == "scenario"), None)
        op = lambda name: next((r for r in reversed(ops) if r["op"] == name), None)  # noqa: E731

        # 1. the first request is refused with the challenge of its case
        first = mcp[0] if mcp else None
        if first is None:
            step("401 challenge", False, "no request to the server recorded"
                 + (f" ({failed['message'][:200]})" if failed else ""))
        elif scenario == "fresh":
            step("401 challenge", *want_challenge(ctx, first, 401, {"resource_metadata": ctx.prm, "scope": "weather:read"},
                                                  extra_ok=()))
        else:
            step("401 challenge", *want_challenge(ctx, first, 401, {"error": "invalid_token", "resource_metadata": ctx.prm,
                                                                    "scope": "weather:read"}))

        # 2. the authorization server found only from the challenge: the metadata document
        # fetched before anything at the issuer, whose metadata came next
        prm_i = next((i for i, r in enumerate(http) if r["url"] == ctx.prm and r.get("status") == 200), None)
        if prm_i is None:
            step("discovery from the challenge", False, "the metadata document named by resource_metadata was not fetched")
        elif not at_issuer or at_issuer[0] < prm_i:
            step("discovery from the challenge", False, "the client went to the authorization server before reading the metadata"
                 if at_issuer else "the client never reached the authorization server")
        else:
            as_meta = http[at_issuer[0]]
            ok = as_meta["method"] == "GET" and "/.well-known/" in as_meta["url"] and as_meta.get("status") == 200
            step("discovery from the challenge", ok,
                 f"resource_metadata, then {as_meta['method']} {as_meta['url']} {as_meta.get('status')}")

        # 3. dynamic registration (a fresh client in every scenario)
        reg = [r for r in http if r["url"].startswith(ctx.issuer + "/") and r["method"] == "POST" and r.get("status") == 201]
        if scenario == "fresh":
            step("dynamic registration", bool(reg), f"POST {reg[0]['url']} 201" if reg else "no registration")

        # 4. authorization: PKCE S256, the resource indicator, the user at login and consent
        if not authorizes:
            step("authorization (PKCE, resource)", False, "no authorization request")
        else:
            a = authorizes[0]
            p = a.get("params", {})
            problems = []
            if p.get("code_challenge_method") != "S256" or not a.get("pkce"):
                problems.append(f"code_challenge_method {p.get('code_challenge_method')!r}")
            if p.get("resource") != ctx.url:
                problems.append(f"resource {p.get('resource')!r}")
            if "weather:read" not in (p.get("scope") or "").split():
                problems.append(f"scope {p.get('scope')!r}")
            if not a.get("state_matches"):
                problems.append("state did not come back")
            if a.get("endpoint") != ctx.issuer + "/auth":
                problems.append(f"endpoint {a.get('endpoint')}")
            step("authorization (PKCE, resource)", not problems, "; ".join(problems) or
                 f"S256, resource=<server>, scope={p.get('scope')!r}, user: {' + '.join(a.get('pages', []))}")

        # 5. connected with the token
        c = op("connect")
        ok = c is not None and c["outcome"] == "result"
        revision = ((c or {}).get("result") or {}).get("protocolVersion")
        step("connect with the token", ok, (f"connected at {revision}" if revision else "connected") if ok else
             (f"the client surfaced {c['outcome']}: {str(c.get('message'))[:300]}" if c else "not recorded"))

        if scenario == "fresh":
            t = op("tools/list")
            names = {x.get("name") for x in ((t or {}).get("result") or {}).get("tools", [])}
            want = {"get_weather", "whoami", "get_alerts"}
            step("tools/list", want <= names, f"listed {sorted(names)}" if t else "not recorded")
            step("get_weather", *tool_ok(op("tools/call get_weather"), "Oslo"))
        step("whoami (principal)", *tool_ok(op("tools/call whoami"), login))

        if scenario == "fresh":
            # 6. step-up: 403 insufficient_scope, a second authorization with both scopes, the call
            forbidden = next((r for r in mcp if r.get("status") == 403), None)
            problems = []
            if forbidden is None:
                problems.append("no 403 seen")
            else:
                ok, detail = want_challenge(ctx, forbidden, 403, {"error": "insufficient_scope",
                                                                  "scope": "weather:read weather:alerts",
                                                                  "resource_metadata": ctx.prm})
                if not ok:
                    problems.append(detail)
            second = authorizes[1] if len(authorizes) > 1 else None
            if second is None:
                problems.append("no second authorization")
            elif not SCOPES <= set((second.get("params", {}).get("scope") or "").split()):
                problems.append(f"step-up scope {second['params'].get('scope')!r}")
            elif second.get("params", {}).get("resource") != ctx.url:
                problems.append("step-up without the resource indicator")
            final = op("tools/call get_alerts (after step-up)") or op("tools/call get_alerts")
            ok, detail = tool_ok(final)
            if not ok:
                problems.append(f"get_alerts: {detail}")
            step("step-up for get_alerts", not problems, "; ".join(problems) or
                 f"403 insufficient_scope, re-authorized with scope={second['params']['scope']!r} "
                 f"(user: {' + '.join(second.get('pages', []))}), the call succeeded")
            step("whoami after step-up", *tool_ok(op("tools/call whoami (after step-up)"), login, "weather:alerts"))
    return steps


def judge_log(tokens_path, log_path):
    """The server's log holds none of the tokens it was sent (the raw checks' tokens)."""
    with open(tokens_path, encoding="utf-8") as f:
        tokens = {k: v for k, v in json.load(f).items() if isinstance(v, str) and len(v) > 20}
    with open(log_path, encoding="utf-8", errors="replace") as f:
        log = f.read()
    if not tokens:
        return {"check": "server log holds no token", "pass": False, "detail": "no tokens were minted"}
    found = sorted(k for k, v in tokens.items() if v in log or v.split(".")[-1] in log)
    if found:
        return {"check": "server log holds no token", "pass": False,
                "detail": "the server's log holds the " + ", ".join(found) + " token(s)"}
    return {"check": "server log holds no token", "pass": True,
            "detail": f"none of the {len(tokens)} tokens (nor their signatures) in the server's log"}


def summarize(args):
    raw = judge_raw(load(os.path.join(args.results, "raw.jsonl")))
    if args.tokens and args.server_log:
        raw.append(judge_log(args.tokens, args.server_log))
    runs = []
    for name in sorted(os.listdir(args.results)):
        if not name.endswith(".jsonl") or name == "raw.jsonl":
            continue
        lines = load(os.path.join(args.results, name))
        meta = lines[0]["meta"]
        exits = [line["exit"] for line in lines if "exit" in line]
        steps = judge_client(lines, meta)
        if exits:
            steps.append({"scenario": "-", "step": "client exit", "pass": False,
                          "detail": f"the client exited {exits[0]}" + (" (timed out)" if exits[0] in (124, 137) else "")})
        runs.append({
            "id": meta["id"], "client": meta["client"], "version": meta["version"], "mode": meta["mode"],
            "passed": sum(1 for s in steps if s["pass"]), "total": len(steps), "steps": steps,
        })
    summary = {
        "server": "examples/oauth_weather.rs",
        "provider": args.provider,
        "date": datetime.date.today().isoformat(),
        "checks": raw,
        "runs": runs,
    }
    if os.path.isfile(args.out):
        with open(args.out, encoding="utf-8") as f:
            previous = json.load(f)
        if previous.get("checks") == raw and previous.get("runs") == runs and previous.get("provider") == args.provider:
            summary["date"] = previous["date"]
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(summary, f, indent=2, ensure_ascii=False)
        f.write("\n")
    status = 0
    passed = sum(1 for c in raw if c["pass"])
    print(f"oauth: raw checks {passed}/{len(raw)}")
    for c in raw:
        if not c["pass"]:
            print(f"    FAIL {c['check']}: {c['detail']}")
            status = 1
    for r in runs:
        print(f"oauth: {r['client']} {r['version']} ({r['mode']}): {r['passed']}/{r['total']}")
        for s in r["steps"]:
            if not s["pass"]:
                print(f"    FAIL {s['scenario']} {s['step']}: {s['detail']}")
                status = 1
    return status


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--results", required=True)
    p.add_argument("--provider", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--tokens", help="the tokens the raw checks minted (oauth_raw.mjs --tokens-out)")
    p.add_argument("--server-log", help="the server's stderr over the run")
    return summarize(p.parse_args())


if __name__ == "__main__":
    sys.exit(main())
