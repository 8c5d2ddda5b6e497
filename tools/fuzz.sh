#!/usr/bin/env bash
# Builds every cargo-fuzz target in fuzz/ with the nightly toolchain and runs each for a bounded
# time (FUZZ_SECONDS each, default 40), starting from its checked-in seeds (fuzz/corpus/<target>/,
# read only) plus a working corpus kept in fuzz/target/corpus-work/<target>/ (gitignored, so a
# warm checkout keeps what earlier runs found). Fails on the first crash, leak, timeout or
# out-of-memory (10 s and 2 GiB an input; schema_growth 2 s and 512 MiB); libFuzzer leaves the
# input in fuzz/artifacts/<target>/.
#
# Self-sufficient: installs the nightly toolchain if missing, and cargo-fuzz (pinned) into
# .ci-cache/cargo-fuzz (gitignored) if it is not there yet.
#
#   tools/fuzz.sh                      # every target, 40 s each
#   FUZZ_SECONDS=300 tools/fuzz.sh     # longer
#   FUZZ_TARGETS="canonical schema" tools/fuzz.sh
#   FUZZ_SANITIZER=address tools/fuzz.sh   # AddressSanitizer (default none: the crate is safe
#                                          # Rust, and the build is a third shorter without it)
#   FUZZ_SEED=12345 tools/fuzz.sh      # libFuzzer's seed (default: a fresh one each run; under
#                                      # CI=true, 1, so a CI run explores the same inputs for the
#                                      # same code and a red fuzz step is reproducible, not luck;
#                                      # new findings come from runs off CI with fresh seeds)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${FUZZ_SECONDS:-40}"
sanitizer="${FUZZ_SANITIZER:-none}"
if [ -n "${CI:-}" ]; then seed="${FUZZ_SEED:-1}"; else seed="${FUZZ_SEED:-0}"; fi
cache=.ci-cache/cargo-fuzz
cargo_fuzz_version=0.13.2
if ! rustup toolchain list | grep -q '^nightly'; then
  rustup toolchain install nightly --profile minimal
fi
if ! "$cache/bin/cargo-fuzz" --version 2>/dev/null | grep -q " $cargo_fuzz_version"; then
  cargo install --locked --root "$cache" --version "$cargo_fuzz_version" cargo-fuzz
fi
export PATH="$PWD/$cache/bin:$PATH"
export CARGO_TERM_COLOR=never
targets="${FUZZ_TARGETS:-$(cargo +nightly fuzz list)}"
start=$(date +%s)
echo "== cargo +nightly fuzz build -s $sanitizer ($(echo $targets | wc -w) targets)"
cargo +nightly fuzz build -s "$sanitizer"
echo "   built in $(( $(date +%s) - start )) s"
for t in $targets; do
  work="fuzz/target/corpus-work/$t"
  mkdir -p "$work"
  echo "== fuzz $t for $seconds s (seed $seed; 0: libFuzzer picks one)"
  log="fuzz/target/fuzz-$t.log"
  # Per-target limits. schema_growth asserts that validation is linear, and the limits are its
  # second line: a case that takes seconds or half a GiB on inputs of at most 256 KiB is
  # super-linear, so it fails there even if its step count passes.
  case "$t" in
    schema_growth) limits=(-timeout=2 -rss_limit_mb=512) ;;
    *) limits=(-timeout=10 -rss_limit_mb=2048) ;;
  esac
  if ! cargo +nightly fuzz run -s "$sanitizer" "$t" "$work" "fuzz/corpus/$t" -- \
    -max_total_time="$seconds" -seed="$seed" "${limits[@]}" -print_final_stats=1 >"$log" 2>&1; then
    tail -n 80 "$log" >&2
    echo "fuzz target $t failed; the input is under fuzz/artifacts/$t/, the log in $log" >&2
    exit 1
  fi
  grep -E "^stat::number_of_executed_units|^Done " "$log" || true
done
echo "== fuzzing clean: $(echo $targets | wc -w) targets, $seconds s each, $(( $(date +%s) - start )) s in all"
