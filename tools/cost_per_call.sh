#!/usr/bin/env bash
# What one HTTP tools/call costs the server, in figures that hold on a shared machine:
#   - CPU per call: the server's user+system time (/proc/PID/stat) over the calls served in a
#     closed-loop run at CONNECTIONS connections, with the requests per second and the peak
#     resident memory of that run (rmcp 3.11's echo server too, for comparison), and the load
#     client's own CPU per call (it shares the machine's cores with the server);
#   - instructions per call: user-space instructions counted by callgrind (valgrind) over a run
#     at 8 connections — repeatable whatever else the machine does.
# Both for the `weather` example (release, `--http`, under the runtime) and for bare hyper (the
# peer bench's fixed-reply server), driven by the peer bench's load client; CPU per call also
# for the example without the runtime (`--no-runtime`: the bare transport, host work on each
# connection's task), which is what the per-request MCP work costs with no pool, no deadline
# and no supervision.
#
#   tools/cost_per_call.sh [SECONDS] [CONNECTIONS] [WEATHER_BINARY]
#   ONLY_INSTRUCTIONS=1 tools/cost_per_call.sh [SECONDS]   # the callgrind figures alone
#
# Run from the project root. Builds the peer bench (tools/peer_bench) into target/peer-bench (as
# tools/compare.sh does) and the example in release; callgrind is skipped when
# valgrind is not installed (apt-get install valgrind).
set -euo pipefail
secs=${1:-5}
conns=${2:-64}
[ -f Cargo.toml ] || { echo "run from the project root" >&2; exit 2; }
peers=target/peer-bench
cargo build -q --release --locked --manifest-path tools/peer_bench/Cargo.toml --target-dir "$peers"
weather=${3:-}
if [ -z "$weather" ]; then
  cargo build -q --release --example weather
  weather=target/release/examples/weather
fi
load=$peers/release/mcp_load
bare=$peers/release/bare_hyper
port=$((20000 + RANDOM % 20000))
call=(--tool get_weather --arg place=Oslo --expect Oslo --modern)

ticks() { awk '{print $14 "," $15}' "/proc/$1/stat"; }  # user,system clock ticks
field() { sed -n "s/.* $1=\([0-9.]*\).*/\1/p"; }

# cpu LABEL -- SERVER...: CPU µs per call at $conns connections.
cpu() {
  local label=$1; shift 2
  "$@" 2>/dev/null & local pid=$!
  sleep 1
  local args=("${call[@]}")
  case $label in bare-hyper) args=(--expect Oslo) ;; rmcp) args=() ;; esac
  local dir; dir=$(mktemp -d)
  local t0; t0=$(ticks $pid)
  # The load client's own user and system seconds too (bash's `time`, C locale so that the
  # seconds are written with a point): it shares the machine's cores with the server.
  local rc=0
  (
    LC_ALL=C TIMEFORMAT='%U,%S'
    time "$load" http "http://127.0.0.1:$port/mcp" "$conns" "$secs" --pid $pid "${args[@]}" \
      >"$dir/out" 2>"$dir/err"
  ) 2>"$dir/time" || rc=$?
  local t1; t1=$(ticks $pid)
  kill $pid; wait $pid 2>/dev/null || true
  # The client's complaints (an unexpected reply, a refused call) are shown, never dropped.
  [ -s "$dir/err" ] && sed "s/^/$label load client: /" "$dir/err" >&2
  if [ "$rc" -ne 0 ]; then
    echo "$label: the load client failed (exit $rc)" >&2
    rm -rf "$dir"
    exit 1
  fi
  local out; out=$(tail -1 "$dir/out")
  local c; c=$(tail -1 "$dir/time")
  rm -rf "$dir"
  local n; n=$(echo "$out" | field n)
  python3 -c "
import os
hz = os.sysconf('SC_CLK_TCK')
(u0, s0), (u1, s1) = ($t0), ($t1)
us = lambda ticks: ticks * 1e6 / hz / $n
cu, cs = ($c)
print('%-10s cpu_us_per_call=%.1f (user %.1f, system %.1f) rps=%s errors=%s peak_rss_kb=%s client_cpu_us_per_call=%.1f' % (
    '$label', us(u1 - u0 + s1 - s0), us(u1 - u0), us(s1 - s0), '$(echo "$out" | field rps)',
    '$(echo "$out" | field errors)', '$(echo "$out" | field peak_rss_kb)', (cu + cs) * 1e6 / $n))"
  port=$((port + 1))
}

# instructions LABEL -- SERVER...: user-space instructions per call under callgrind, counted
# over the measured load alone: a one-second warm-up load first, then the counters are zeroed
# (`callgrind_control -z`), the measured load runs, and its profile is dumped at once
# (`callgrind_control -d`). Startup (schemas compiled, the tree spawned) and shutdown are left
# out, so the figure does not move with how many calls a loaded machine gets through. With
# KEEP_CALLGRIND=DIR the measured profiles are kept there as cg.LABEL.PID.1, for
# `callgrind_annotate --inclusive=yes` to split a call's instructions by function.
instructions() {
  local label=$1; shift 2
  local dir; dir=$(mktemp -d)
  valgrind --tool=callgrind --callgrind-out-file="$dir/cg.$label.%p" "$@" 2>/dev/null & local pid=$!
  sleep 4
  local args=("${call[@]}"); [ "$label" = bare-hyper ] && args=(--expect Oslo)
  "$load" http "http://127.0.0.1:$port/mcp" 8 1 "${args[@]}" >/dev/null
  callgrind_control -z "$pid" >/dev/null
  local out; out=$("$load" http "http://127.0.0.1:$port/mcp" 8 "$secs" "${args[@]}" | tail -1)
  callgrind_control -d "$pid" >/dev/null
  kill -INT $pid; sleep 3; kill $pid 2>/dev/null || true; wait $pid 2>/dev/null || true
  local n; n=$(echo "$out" | field n)
  local ir; ir=$(grep -h '^summary:' "$dir"/cg.*.1 | awk '{s += $2} END {print s}')
  python3 -c "print('%-10s instructions_per_call=%.0f (callgrind, %s calls)' % ('$label', $ir / $n, $n))"
  if [ -n "${KEEP_CALLGRIND:-}" ]; then
    mkdir -p "$KEEP_CALLGRIND" && cp "$dir"/cg.*.1 "$KEEP_CALLGRIND"/
  fi
  rm -rf "$dir"
  port=$((port + 1))
}

# ONLY_INSTRUCTIONS=1: the callgrind figures alone (they hold on a busy machine; CPU does not).
if [ "${ONLY_INSTRUCTIONS:-0}" != 1 ]; then
cpu weather -- "$weather" --http "127.0.0.1:$port"
cpu no-runtime -- "$weather" --http "127.0.0.1:$port" --no-runtime
cpu bare-hyper -- "$bare" "127.0.0.1:$port"
# rmcp 3.11's echo server, for issue 13's memory bound (resident memory under this load no
# higher than rmcp's); driven as tools/compare.sh drives it.
cpu rmcp -- "$peers/release/rmcp_echo_server" http "127.0.0.1:$port"
fi
if command -v valgrind >/dev/null; then
  instructions weather -- "$weather" --http "127.0.0.1:$port"
  instructions no-runtime -- "$weather" --http "127.0.0.1:$port" --no-runtime
  instructions bare-hyper -- "$bare" "127.0.0.1:$port"
fi
