#!/usr/bin/env bash
# The library's module graph, as cargo-modules (rust-analyzer's semantics) sees it, held to two
# rules: no cycle between modules, and no library file over 600 lines that ARCHITECTURE.md does
# not name under "Long files".
#
# cargo-modules 0.27's own `--acyclic` flag checks the item graph before its filters apply, so
# a type and its own method already form a cycle there; the graph it prints with items
# filtered out (modules and their "uses" edges) is what tools/module_cycles.py checks. A
# method in an `impl` (a trait's included) belongs to the module of its type: that is where
# the tool, like rustdoc, puts it.
#
# Self-sufficient: installs cargo-modules (pinned; the newest needs a newer rustc) into
# .ci-cache/cargo-modules (gitignored) if it is not there yet.
set -euo pipefail
cd "$(dirname "$0")/.."
version=0.27.0
cache=.ci-cache/cargo-modules
if ! "$cache/bin/cargo-modules" --version 2>/dev/null | grep -q " $version"; then
  cargo install --locked --root "$cache" --version "$version" cargo-modules
fi
graph=$(mktemp)
trap 'rm -f "$graph"' EXIT
for features in "--all-features" "--no-default-features"; do
  "$cache/bin/cargo-modules" dependencies --package beam-mcp --lib $features \
    --no-externs --no-sysroot --no-fns --no-traits --no-types --cfg-test >"$graph"
  echo "-- modules ($features, with #[cfg(test)]):"
  python3 tools/module_cycles.py "$graph"
done
python3 tools/module_cycles.py --long-files src ARCHITECTURE.md 600
