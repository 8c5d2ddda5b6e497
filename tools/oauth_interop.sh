#!/usr/bin/env bash
# tools/oauth_interop.sh — the `oauth_weather` example behind a real OAuth authorization server,
# driven by the raw HTTP checks and by the SDK clients' own OAuth support.
#
# Usage: tools/oauth_interop.sh [--update-docs]
#
# 1. Installs what tools/interop.sh installs (INTEROP_INSTALL_ONLY=1 tools/interop.sh: Node 22,
#    the pinned trees of interop/node/*/ including oidc-provider, the Python venv) into
#    .interop-cache/ (or $INTEROP_CACHE).
# 2. Builds the `oauth_weather` example, picks a free 127.0.0.1 port for it, starts the provider
#    (interop/oauth/provider.mjs, oidc-provider, issuer http://127.0.0.1:<its port>) knowing two
#    resources, the example's http://127.0.0.1:PORT/mcp and an "other" one at
#    http://127.0.0.1:PORT/other, then the example with --issuer (it reads the provider's
#    discovery and JWKS at start). Both are waited for with bounded loops.
# 3. Runs, each bounded by a timeout, recording into oauth-interop-results/ (or $OAUTH_RESULTS):
#    interop/oauth/oauth_raw.mjs (the refusals and the metadata document, with real tokens:
#    none, garbage, another audience's, an expired one, one lacking weather:alerts, one in the
#    query string), then interop/oauth/ts_sdk_oauth.mjs (@modelcontextprotocol/sdk 1.32.2) and
#    interop/oauth/python_oauth.py in both openers (mcp 2.3.0): each client starts without a
#    token and finds the provider from the 401 alone, registers, authorizes (PKCE, the resource
#    indicator; the script plays the user at login and consent), calls tools, steps up on 403
#    insufficient_scope, and re-authorizes when its stored token is another audience's or
#    expired.
# 4. Judges the records (tools/oauth_judge.py) into interop/oauth-results.json, and checks the
#    OAuth column of docs/interop.md's client table (tools/interop_table.py doc), which
#    --update-docs rewrites instead.
#
# Exit status: 0 when every check and every client step passed and docs/interop.md agrees;
# 1 otherwise; 2 on an install or build error. The provider and the example are stopped on exit.
set -euo pipefail

PROVIDER_TREE="oidc-provider-9.13.3"
READY_TIMEOUT=15    # seconds, for the provider and for the example to listen
RAW_TIMEOUT=150     # seconds: the raw checks wait (bounded, 90 s) for a short-lived token to be refused
CLIENT_TIMEOUT=90   # seconds, per client run

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
UPDATE_DOCS=0
case "${1:-}" in
  "") ;;
  --update-docs) UPDATE_DOCS=1 ;;
  *) sed -n '2,29p' "$0" >&2; exit 2 ;;
esac

CACHE="${INTEROP_CACHE:-$ROOT/.interop-cache}"
RESULTS="${OAUTH_RESULTS:-$ROOT/oauth-interop-results}"
say() { echo "oauth_interop.sh: $*" >&2; }

# --- installs and the build -----------------------------------------------------------------
INTEROP_INSTALL_ONLY=1 INTEROP_CACHE="$CACHE" "$ROOT/tools/interop.sh" || exit 2
NODE_BIN="$(ls "$CACHE"/node-*/node_modules/node-linux-*/bin/node 2>/dev/null | head -1)"
[[ -x "$NODE_BIN" ]] || { say "no Node under $CACHE"; exit 2; }
PYTHON="$CACHE/py/bin/python"
say "building the server (cargo build --example oauth_weather)"
cargo build --quiet --example oauth_weather || exit 2
SERVER_BIN="$(cargo metadata --format-version 1 --no-deps \
  | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')/debug/examples/oauth_weather"

# --- the provider and the example -----------------------------------------------------------
WORK="$(mktemp -d)"
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
PORT="$(free_port)"
URL="http://127.0.0.1:$PORT/mcp"
OTHER="http://127.0.0.1:$PORT/other"

"$NODE_BIN" "$ROOT/interop/oauth/provider.mjs" --modules "$CACHE/$PROVIDER_TREE/node_modules" \
  --ready "$WORK/issuer" --resource "$URL" --resource "$OTHER" >"$WORK/provider.out" 2>"$WORK/provider.log" &
PIDS+=($!)
PROVIDER_PID=$!
for _ in $(seq 1 $((READY_TIMEOUT * 10))); do
  [[ -s "$WORK/issuer" ]] && break
  kill -0 "$PROVIDER_PID" 2>/dev/null || break
  sleep 0.1
done
[[ -s "$WORK/issuer" ]] || { say "the provider did not start:"; cat "$WORK/provider.log" >&2; exit 1; }
ISSUER="$(cat "$WORK/issuer")"

"$SERVER_BIN" --http "127.0.0.1:$PORT" --issuer "$ISSUER" 2>"$WORK/server.log" &
PIDS+=($!)
SERVER_PID=$!
listening=0
for _ in $(seq 1 $((READY_TIMEOUT * 10))); do
  if (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then listening=1; break; fi
  kill -0 "$SERVER_PID" 2>/dev/null || break
  sleep 0.1
done
[[ $listening -eq 1 ]] || { say "the oauth_weather example is not listening on $PORT:"; cat "$WORK/server.log" >&2; exit 1; }
say "node $("$NODE_BIN" --version), $("$PYTHON" --version), provider $ISSUER, server $URL"

# --- the runs -------------------------------------------------------------------------------
rm -rf "$RESULTS"
mkdir -p "$RESULTS"
meta() {  # id client version mode
  python3 -c 'import json,sys; print(json.dumps({"meta": dict(zip(["id","client","version","mode","url","issuer"], sys.argv[1:]))}))' \
    "$@" "$URL" "$ISSUER"
}
run() {  # name timeout command...
  local name="$1" limit="$2"; shift 2
  set +e
  timeout --kill-after=5 "$limit" "$@" --out "$RESULTS/$name.jsonl" 2>"$RESULTS/$name.stderr" </dev/null
  local rc=$?
  set -e
  [[ $rc -eq 0 ]] || echo "{\"exit\": $rc}" >>"$RESULTS/$name.jsonl"
  say "$name: exit $rc"
}

: >"$RESULTS/raw.jsonl"
run raw "$RAW_TIMEOUT" "$NODE_BIN" "$ROOT/interop/oauth/oauth_raw.mjs" --url "$URL" --issuer "$ISSUER" \
  --other-resource "$OTHER" --tokens-out "$WORK/tokens.json"
[[ -s "$WORK/tokens.json" ]] || echo '{"foreign": "not-minted", "expired": "not-minted"}' >"$WORK/tokens.json"

meta ts-sdk @modelcontextprotocol/sdk 1.32.2 '`StreamableHTTPClientTransport` with an `authProvider`' >"$RESULTS/ts-sdk.jsonl"
run ts-sdk "$CLIENT_TIMEOUT" "$NODE_BIN" "$ROOT/interop/oauth/ts_sdk_oauth.mjs" \
  --modules "$CACHE/sdk-1.32.2/node_modules" --url "$URL" --tokens "$WORK/tokens.json"
for mode in client session; do
  opener='`mcp.Client`'; [[ $mode == session ]] && opener='`ClientSession.initialize()`'
  meta "py-$mode" mcp 2.3.0 "$opener over an httpx2 client with \`OAuthClientProvider\` as its auth" >"$RESULTS/py-$mode.jsonl"
  run "py-$mode" "$CLIENT_TIMEOUT" "$PYTHON" "$ROOT/interop/oauth/python_oauth.py" --mode "$mode" \
    --url "$URL" --tokens "$WORK/tokens.json"
done

# The server's log, for the judge's look for tokens in it (the tokens stay in $WORK).
kill "$SERVER_PID" 2>/dev/null || true
wait "$SERVER_PID" 2>/dev/null || true
cp "$WORK/server.log" "$RESULTS/server.log"

# --- the judge and the table ----------------------------------------------------------------
status=0
python3 "$ROOT/tools/oauth_judge.py" --results "$RESULTS" \
  --provider "$(echo "$PROVIDER_TREE" | sed 's/-\([0-9][0-9.]*\)$/ \1/')" \
  --tokens "$WORK/tokens.json" --server-log "$WORK/server.log" \
  --out "$ROOT/interop/oauth-results.json" || status=1
if [[ $UPDATE_DOCS -eq 1 ]]; then
  python3 "$ROOT/tools/interop_table.py" doc --summary "$ROOT/interop/results.json" \
    --doc "$ROOT/docs/interop.md" --write
  python3 "$ROOT/tools/interop_table.py" doc --summary "$ROOT/interop/results.json" \
    --doc "$ROOT/README.md" --write
elif ! python3 "$ROOT/tools/interop_table.py" doc --summary "$ROOT/interop/results.json" \
  --doc "$ROOT/docs/interop.md" \
  || ! python3 "$ROOT/tools/interop_table.py" doc --summary "$ROOT/interop/results.json" \
  --doc "$ROOT/README.md"; then
  say "docs/interop.md's or the README's client table differs from this run (tools/oauth_interop.sh --update-docs)"
  status=1
fi
exit $status
