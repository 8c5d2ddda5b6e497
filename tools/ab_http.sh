#!/usr/bin/env bash
# Two (or more) builds of the `weather` example side by side over HTTP, runs interleaved so that
# the machine's drift falls on every build alike: per build, the mean and median requests per
# second, the median p50 latency, and the server's CPU per call (user+system, /proc/PID/stat).
#
#   tools/ab_http.sh ROUNDS SECONDS CONNECTIONS WEATHER_BINARY...
#
# e.g. two commits compared at 64 and at 1 connection:
#   git worktree add /tmp/old OLD && (cd /tmp/old && cargo build --release --example weather)
#   cargo build --release --example weather
#   tools/ab_http.sh 5 4 64 /tmp/old/target/release/examples/weather target/release/examples/weather
#   tools/ab_http.sh 5 4 1  /tmp/old/target/release/examples/weather target/release/examples/weather
#
# Run from the project root; builds the load client (tools/peer_bench) into target/peer-bench,
# as tools/compare.sh does. Binaries are named by their path in the report.
set -euo pipefail
[ $# -ge 4 ] || { sed -n '2,14p' "$0" >&2; exit 2; }
rounds=$1 secs=$2 conns=$3
shift 3
[ -f Cargo.toml ] || { echo "run from the project root" >&2; exit 2; }
cargo build -q --release --locked --manifest-path tools/peer_bench/Cargo.toml --target-dir target/peer-bench
load=target/peer-bench/release/mcp_load
call=(--tool get_weather --arg place=Oslo --expect Oslo --modern)
port=$((20000 + RANDOM % 20000))
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
field() { sed -n "s/.* $1=\([0-9.]*\).*/\1/p"; }
for _ in $(seq "$rounds"); do
  for bin in "$@"; do
    "$bin" --http "127.0.0.1:$port" 2>/dev/null & pid=$!
    sleep 0.5
    # A warm-up second, not counted.
    "$load" http "http://127.0.0.1:$port/mcp" "$conns" 1 "${call[@]}" >/dev/null
    t0=$(ticks $pid)
    out=$("$load" http "http://127.0.0.1:$port/mcp" "$conns" "$secs" "${call[@]}" | tail -1)
    t1=$(ticks $pid)
    kill $pid; wait $pid 2>/dev/null || true
    echo "$bin $(echo "$out" | field n) $(echo "$out" | field rps) $(echo "$out" | field p50_us) $((t1 - t0))"
    port=$((port + 1))
  done
done | python3 -c '
import collections, os, statistics as st, sys
hz = os.sysconf("SC_CLK_TCK")
runs = collections.defaultdict(list)
for line in sys.stdin:
    b, n, rps, p50, t = line.split()
    runs[b].append((int(n), float(rps), float(p50), int(t)))
for b, v in runs.items():
    cpu = sum(x[3] for x in v) * 1e6 / hz / sum(x[0] for x in v)
    print("%s  rps mean=%d median=%d  p50_us median=%.1f  cpu_us_per_call=%.2f  runs=%s" % (
        b, st.mean(x[1] for x in v), st.median(x[1] for x in v), st.median(x[2] for x in v), cpu,
        " ".join("%.0fk" % (x[1] / 1000) for x in v)))
'
