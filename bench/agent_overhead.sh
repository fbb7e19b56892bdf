#!/bin/sh
# What `noisewatch agent` costs: its own CPU time (utime+stime of every thread, from
# /proc/PID/stat) over DURATION seconds, as a percentage of one CPU; and, separately, the time
# its eBPF programs ran inside the kernel (kernel.bpf_stats_enabled), which is charged to
# whatever task or interrupt they ran in and so never shows in the agent's own times.
#
# usage: sudo bench/agent_overhead.sh [NOISEWATCH] [DURATION] [SCRAPE_EVERY]
#   NOISEWATCH    the binary (default: build/noisewatch next to this script)
#   DURATION      seconds to measure (default 30)
#   SCRAPE_EVERY  also GET /metrics every N seconds, as Prometheus would (default 0: idle)
# A benchmark, not a test: run it on a quiet machine and read the numbers.
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$here/build/noisewatch}
duration=${2:-30}
scrape=${3:-0}
[ -x "$bin" ] || { echo "agent_overhead: $bin is not executable; build noisewatch first" >&2; exit 125; }
[ "$(id -u)" = 0 ] || { echo "agent_overhead: needs root (eBPF)" >&2; exit 125; }

err=$(mktemp)
stats_was=$(cat /proc/sys/kernel/bpf_stats_enabled 2>/dev/null || echo 0)
cleanup() {
  [ -n "${pid:-}" ] && kill -TERM "$pid" 2>/dev/null && wait "$pid" 2>/dev/null || true
  echo "$stats_was" > /proc/sys/kernel/bpf_stats_enabled 2>/dev/null || true
  rm -f "$err"
}
trap cleanup EXIT INT TERM

"$bin" agent --listen 127.0.0.1:0 2>"$err" &
pid=$!
port=""
for _ in $(seq 1 300); do
  port=$(sed -n 's|.*listening on http://127\.0\.0\.1:\([0-9]*\)/.*|\1|p' "$err")
  [ -n "$port" ] && break
  kill -0 "$pid" 2>/dev/null || { cat "$err" >&2; exit 125; }
  sleep 0.1
done
[ -n "$port" ] || { echo "agent_overhead: the agent did not start" >&2; cat "$err" >&2; exit 125; }
sleep 2  # loading the programs is a one-off cost, not the steady state measured here

ticks() { awk '{ print $14 + $15 }' "/proc/$pid/stat"; }
# The same in nanoseconds, for a figure finer than one clock tick: every thread's run time.
run_ns() { cat /proc/"$pid"/task/*/schedstat | awk '{ s += $1 } END { printf "%d\n", s }'; }
prog_ids() { grep -h '^prog_id:' /proc/"$pid"/fdinfo/* 2>/dev/null | awk '{ print $2 }' | sort -u; }
bpf_ns() {
  total=0
  for id in $(prog_ids); do
    ns=$(bpftool prog show id "$id" 2>/dev/null | sed -n 's/.*run_time_ns \([0-9]*\).*/\1/p')
    total=$((total + ${ns:-0}))
  done
  echo "$total"
}

echo 1 > /proc/sys/kernel/bpf_stats_enabled 2>/dev/null || true
hz=$(getconf CLK_TCK)
t0=$(ticks); r0=$(run_ns); b0=$(bpf_ns); s0=$(date +%s.%N)
if [ "$scrape" -gt 0 ]; then
  end=$(( $(date +%s) + duration ))
  while [ "$(date +%s)" -lt "$end" ]; do
    curl -s -o /dev/null "http://127.0.0.1:$port/metrics" || true
    sleep "$scrape"
  done
else
  sleep "$duration"
fi
t1=$(ticks); r1=$(run_ns); b1=$(bpf_ns); s1=$(date +%s.%N)

awk -v t0="$t0" -v t1="$t1" -v hz="$hz" -v s0="$s0" -v s1="$s1" -v b0="$b0" -v b1="$b1" -v r0="$r0" -v r1="$r1" \
    -v load="$(cut -d' ' -f1-3 /proc/loadavg)" -v cpus="$(nproc)" -v scrape="$scrape" 'BEGIN {
  wall = s1 - s0
  printf "agent process: %.3f%% of one CPU (%d ticks of 1/%d s over %.1f s)\n", (t1 - t0) / hz / wall * 100, t1 - t0, hz, wall
  printf "agent threads (schedstat): %.4f%% of one CPU (%.1f ms on CPU)\n", (r1 - r0) / 1e9 / wall * 100, (r1 - r0) / 1e6
  printf "eBPF programs: %.3f%% of one CPU (%.1f ms in the kernel, charged to other tasks)\n", (b1 - b0) / 1e9 / wall * 100, (b1 - b0) / 1e6
  printf "conditions: %d CPUs watched, load average %s, %s\n", cpus, load, (scrape > 0 ? "scraped every " scrape " s" : "not scraped")
}'
