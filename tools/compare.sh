#!/usr/bin/env bash
# The peer comparison, from this repository alone: the `weather` example (over HTTP under the
# supervised runtime, and over stdio, at 2026-07-28) against rmcp 3.11's echo server (the
# official Rust SDK) and bare hyper answering a fixed reply (no MCP work: the ceiling), driven
# by one load client (tools/peer_bench), in one run, on this machine.
#
#   tools/compare.sh [SECONDS_PER_POINT] [ROUNDS]     (defaults 5 and 3)
#
# Builds the peers (tools/peer_bench, pinned by its Cargo.lock) into target/peer-bench and the
# example in release, then prints one line per point and the ratios last. Absolute figures move
# from run to run on a shared machine; compare the ratios within one run, on a quiet machine.
set -euo pipefail
secs=${1:-5}
rounds=${2:-3}
cd "$(dirname "$0")/.."
out=target/peer-bench
cargo build -q --release --locked --manifest-path tools/peer_bench/Cargo.toml --target-dir "$out"
cargo build -q --release --example weather
weather="$(cargo metadata --format-version 1 --no-deps |
  python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')/release/examples/weather"
bin=$out/release
load=$bin/mcp_load
base=$((20000 + RANDOM % 20000))
wp=$base rp=$((base + 1)) bp=$((base + 2))
"$weather" --http "127.0.0.1:$wp" 2>/dev/null &
w=$!
"$bin/rmcp_echo_server" http "127.0.0.1:$rp" 2>/dev/null &
r=$!
"$bin/bare_hyper" "127.0.0.1:$bp" &
b=$!
trap 'kill $w $r $b 2>/dev/null' EXIT
# Each server answers before the first point is taken.
for port in $wp $rp $bp; do
  for _ in $(seq 100); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.05; done
done
beam_call=(--tool get_weather --arg place=Oslo --expect Oslo --modern)
field() { sed -n "s/.* $1=\([0-9.]*\).*/\1/p"; }
declare -A sum
add() { sum[$1]=$(python3 -c "print(${sum[$1]:-0} + $2)"); }
for round in $(seq "$rounds"); do
  for c in 1 64; do
    for who in beam rmcp bare; do
      case $who in
        beam) line=$("$load" http "http://127.0.0.1:$wp/mcp" $c "$secs" --pid $w "${beam_call[@]}" | tail -1) ;;
        rmcp) line=$("$load" http "http://127.0.0.1:$rp/mcp" $c "$secs" --pid $r | tail -1) ;;
        bare) line=$("$load" http "http://127.0.0.1:$bp/mcp" $c "$secs" --pid $b --expect Oslo | tail -1) ;;
      esac
      rps=$(echo "$line" | field rps)
      echo "round $round http c=$c $who rps=$rps p99_us=$(echo "$line" | field p99_us) errors=$(echo "$line" | field errors)"
      add "$who$c" "$rps"
    done
  done
  for who in beam rmcp; do
    if [ $who = beam ]; then line=$("$load" stdio 100000 --window 64 "${beam_call[@]}" -- "$weather" | tail -1)
    else line=$("$load" stdio 100000 --window 64 -- "$bin/rmcp_echo_server" stdio | tail -1); fi
    rps=$(echo "$line" | field rps)
    echo "round $round stdio pipelined window=64 $who rps=$rps"
    add "stdio$who" "$rps"
  done
done
python3 - "${sum[beam1]}" "${sum[rmcp1]}" "${sum[bare1]}" "${sum[beam64]}" "${sum[rmcp64]}" "${sum[bare64]}" "${sum[stdiobeam]}" "${sum[stdiormcp]}" <<'PY'
import sys
b1, r1, h1, b64, r64, h64, sb, sr = map(float, sys.argv[1:])
print(f"HTTP c=1:  beam/rmcp {b1/r1:.2f}x, beam/bare-hyper {b1/h1:.0%}")
print(f"HTTP c=64: beam/rmcp {b64/r64:.2f}x, beam/bare-hyper {b64/h64:.0%}")
print(f"stdio pipelined: beam/rmcp {sb/sr:.2f}x")
PY
