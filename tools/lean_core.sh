#!/usr/bin/env bash
# The lean core (ARCHITECTURE.md, "Lean core"): an MCP-only host's build of beam-mcp — the
# default features, and no features at all — pulls in none of the connectome's crates, and
# compiles and lints clean without them (`cargo test --workspace` always builds the connectome,
# through the crate's dev-dependency on itself, so this is where the lean cfg is compiled).
#
# Checked on `cargo tree -e normal,no-proc-macro`: what a host links. `syn`, `quote` and
# `proc-macro2` also run at build time inside proc-macros (serde_derive, tokio-macros) whatever
# this crate does; `dashmap` is linked through `ractor` (an unconditional dependency of ractor
# 0.16, the runtime's actor library), so it is allowed there and nowhere else.
#
# The same check with `--features connectome` must find them: a check that cannot fail is none.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never
connectome_only='^(syn|quote|proc-macro2|tracing-subscriber|unicode-normalization) '

linked() {
  cargo tree -p beam-mcp -e normal,no-proc-macro --prefix none "$@" | sed 's/ (\*)$//' | sort -u
}

fail=0
for features in "" "--no-default-features"; do
  label="${features:-default features}"
  tree=$(linked $features)
  count=$(printf '%s\n' "$tree" | wc -l)
  found=$(printf '%s\n' "$tree" | grep -E "$connectome_only" || true)
  if [ -n "$found" ]; then
    echo "FAIL ($label): the lean build links connectome crates:"; echo "$found"; fail=1
  fi
  # dashmap: only through ractor.
  users=$(cargo tree -p beam-mcp -e normal,no-proc-macro --prefix none -i dashmap --depth 1 $features 2>/dev/null \
    | sed 's/ (\*)$//' | sort -u | grep -v '^dashmap ' || true)
  others=$(printf '%s\n' "$users" | grep -v -E '^ractor ' | grep -v '^$' || true)
  if [ -n "$others" ]; then
    echo "FAIL ($label): dashmap is linked through more than ractor:"; echo "$others"; fail=1
  fi
  echo "ok ($label): $count crates linked, none of syn, quote, proc-macro2, tracing-subscriber, unicode-normalization"
done

with=$(linked --features connectome | grep -E "$connectome_only" | wc -l)
if [ "$with" -lt 5 ]; then
  echo "FAIL: with --features connectome the check finds $with of the 5 crates: it is not looking"; fail=1
fi

# The cluster seam (feature `cluster`, off by default) must not grow a default or lean build:
# no `ractor_cluster` unless asked for, and the check must find it when it is.
for features in "" "--no-default-features"; do
  if linked $features | grep -q '^ractor_cluster '; then
    echo "FAIL (${features:-default features}): links ractor_cluster without the cluster feature"; fail=1
  fi
done
if ! linked --features cluster | grep -q '^ractor_cluster '; then
  echo "FAIL: with --features cluster the check does not find ractor_cluster: it is not looking"; fail=1
fi
echo "ok: ractor_cluster only with --features cluster"

# OpenTelemetry (feature `otel`, off by default): neither the API nor the tracing bridge in a
# default or lean build, and the check must find both when the feature is on.
otel_only='^(opentelemetry|tracing-opentelemetry) '
for features in "" "--no-default-features"; do
  found=$(linked $features | grep -E "$otel_only" || true)
  if [ -n "$found" ]; then
    echo "FAIL (${features:-default features}): links OpenTelemetry without the otel feature:"; echo "$found"; fail=1
  fi
done
with=$(linked --features otel | grep -E "$otel_only" | wc -l)
if [ "$with" -lt 2 ]; then
  echo "FAIL: with --features otel the check finds $with of the 2 crates: it is not looking"; fail=1
fi
echo "ok: opentelemetry and tracing-opentelemetry only with --features otel"

echo "== the lean builds compile and lint clean (and otel without http)"
cargo clippy -p beam-mcp --lib -- -D warnings
cargo clippy -p beam-mcp --lib --no-default-features -- -D warnings
cargo clippy -p beam-mcp --lib --no-default-features --features otel -- -D warnings
exit "$fail"
