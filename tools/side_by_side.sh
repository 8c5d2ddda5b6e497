#!/usr/bin/env bash
# The figures of docs/rmcp-side-by-side.md: the weather tool's lines in examples/weather.rs and
# in tools/side_by_side/src/main.rs (rmcp 3.11), counted between the `side-by-side: begin` and
# `end` markers, blank lines and comments (`//`, `///`) left out; then the rmcp side is compiled,
# so the count is of code that builds. Both files are rustfmt-formatted first (checked, not
# rewritten). Usage: tools/side_by_side.sh [--no-build]
set -euo pipefail
cd "$(dirname "$0")/.."
count() {
  sed -n '/side-by-side: begin/,/side-by-side: end/p' "$1" |
    grep -v '^\s*$' | grep -v '^\s*//' | wc -l
}
rustfmt --edition 2021 --check examples/weather.rs tools/side_by_side/src/main.rs
ours=$(count examples/weather.rs)
theirs=$(count tools/side_by_side/src/main.rs)
echo "beam-mcp (examples/weather.rs): $ours lines"
echo "rmcp 3.11 (tools/side_by_side/src/main.rs): $theirs lines"
if [ "${1:-}" != "--no-build" ]; then
  CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target}/side_by_side" \
    cargo build --quiet --manifest-path tools/side_by_side/Cargo.toml
  echo "rmcp side: built"
fi
