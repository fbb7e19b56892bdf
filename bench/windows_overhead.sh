#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The cost of --windows and --timeline, measured side by side (A B C ... alternating in every
# round, so that slow phases of a shared machine hit all alike; medians of per-round figures).
#
#   bench/windows_overhead.sh [BUILD_DIR]            (root; default BUILD_DIR: <repo>/build)
#
#   marker pair    nw_markers MODE 4000 0: 4000 empty windows, so the time per window is one
#                  marker pair; bare (USDT: a nop; fd: two writes to /dev/null) and under
#                  `noisewatch --windows` (USDT: a uprobe each; fd: two writes to the marker pipe,
#                  seen by the syscall tracepoint; through sh, as the fd is given only to a
#                  benchmark without the USDT probes). Target: a few µs per pair.
#   storm          nw_markers usdt 20 5000: a ping-pong of two threads on one CPU (a context
#                  switch per hand-over), 20 windows of 5000 round trips. Bare, under noisewatch,
#                  under noisewatch --windows, under noisewatch --timeline: each one's own time,
#                  ratios to the bare run of the same round; --windows and --timeline against
#                  plain noisewatch show what each adds on the context-switch path. Then the same
#                  storm marking through the fd (through sh, so the sys_enter tracepoint is on).
#   cpu-bound      arraysum's own time under noisewatch --timeline / under noisewatch.
# Environment: BENCH_CPU (default 1), BENCH_ROUNDS (default 9), BENCH_NICE (default -20: each
# measured command runs in its own session whose autogroup gets this nice level, as in overhead.sh).
set -u
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
build=$(cd "${1:-$repo/build}" 2>/dev/null && pwd) || { echo "windows_overhead.sh: no build directory ${1:-}" >&2; exit 125; }
for b in noisewatch nw_markers arraysum; do
  [[ -x $build/$b ]] || { echo "windows_overhead.sh: $build/$b missing: build the targets noisewatch nw_markers arraysum" >&2; exit 125; }
done
[[ $(id -u) -eq 0 ]] || { echo "windows_overhead.sh: must run as root (eBPF)" >&2; exit 125; }
cpu=${BENCH_CPU:-1}
rounds=${BENCH_ROUNDS:-9}
nice_level=${BENCH_NICE:--20}
nw=$build/noisewatch
tmp=$(mktemp -d /tmp/nw-wbench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM HUP

prio() { setsid -w sh -c 'echo "$0" > /proc/self/autogroup 2>/dev/null; exec "$@"' "$nice_level" "$@"; }
median() { sort -g | awk '{v[NR]=$1} END {if (NR==0) {print "nan"; exit} if (NR%2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'; }
per_window() { sed -n 's/.* \([0-9.]*\) ns per window$/\1/p'; }
own_ms() { sed -n 's/.* in \([0-9.]*\) ms: .*/\1/p'; }
nwrun() { prio "$nw" run --cpu "$cpu" --runs 1 --warmup 0 -q --json "$tmp/rec.json" --format json -o /dev/null "$@" 2>>"$tmp/nw.err"; }
ratio() { paste "$1" "$2" | awk '{print $1 / $2}' | median; }

echo "windows/timeline overhead: $(uname -r), $(nproc) CPUs, target CPU $cpu, $rounds rounds, load $(cut -d' ' -f1-3 /proc/loadavg)"
for ((r = 0; r < rounds; r++)); do
  prio taskset -c "$cpu" "$build/nw_markers" usdt 4000 | per_window >>"$tmp/pair.usdt.bare"
  nwrun --windows -- "$build/nw_markers" usdt 4000 | per_window >>"$tmp/pair.usdt.nw"
  # The marker fd is given to a benchmark without the USDT probes: started through sh, nw_markers
  # (which has them) gets it.
  prio taskset -c "$cpu" /bin/sh -c 'exec "$0" fd 4000' "$build/nw_markers" | per_window >>"$tmp/pair.fd.bare"
  nwrun --windows -- /bin/sh -c 'exec "$0" fd 4000' "$build/nw_markers" | per_window >>"$tmp/pair.fd.nw"
  prio taskset -c "$cpu" "$build/nw_markers" usdt 20 5000 | own_ms >>"$tmp/storm.a"
  nwrun -- "$build/nw_markers" usdt 20 5000 | own_ms >>"$tmp/storm.b"
  nwrun --windows -- "$build/nw_markers" usdt 20 5000 | own_ms >>"$tmp/storm.c"
  prio taskset -c "$cpu" /bin/sh -c 'exec "$0" fd 20 5000' "$build/nw_markers" | own_ms >>"$tmp/storm.fa"
  nwrun -- /bin/sh -c 'exec "$0" fd 20 5000' "$build/nw_markers" | own_ms >>"$tmp/storm.fb"
  nwrun --windows -- /bin/sh -c 'exec "$0" fd 20 5000' "$build/nw_markers" | own_ms >>"$tmp/storm.fc"
  nwrun --timeline "$tmp/t.json" -- "$build/nw_markers" usdt 20 5000 | own_ms >>"$tmp/storm.d"
  nwrun -- "$build/arraysum" | sed -n 's/.* \([0-9.]*\) ms busy, .*/\1/p' >>"$tmp/cpu.b"
  nwrun --timeline "$tmp/t.json" -- "$build/arraysum" | sed -n 's/.* \([0-9.]*\) ms busy, .*/\1/p' >>"$tmp/cpu.d"
done
for m in usdt fd; do
  bare=$(median <"$tmp/pair.$m.bare") under=$(median <"$tmp/pair.$m.nw")
  added=$(paste "$tmp/pair.$m.nw" "$tmp/pair.$m.bare" | awk '{print $1 - $2}' | median)
  printf '%-12s %-4s %8.2f µs per pair under noisewatch --windows (bare %.3f µs; added %.2f µs, median of %d paired rounds)\n' \
    "marker pair" "$m" "$(awk -v x="$under" 'BEGIN{print x/1e3}')" "$(awk -v x="$bare" 'BEGIN{print x/1e3}')" \
    "$(awk -v x="$added" 'BEGIN{print x/1e3}')" "$rounds"
done
ma=$(median <"$tmp/storm.a")
printf '%-12s bare %.1f ms (%.0fk switches/s): noisewatch/bare %.3f, --windows/bare %.3f, --timeline/bare %.3f\n' "storm" \
  "$ma" "$(awk -v a="$ma" 'BEGIN{print 2*100000/(a/1e3)/1e3}')" \
  "$(ratio "$tmp/storm.b" "$tmp/storm.a")" "$(ratio "$tmp/storm.c" "$tmp/storm.a")" "$(ratio "$tmp/storm.d" "$tmp/storm.a")"
printf '%-12s --windows/noisewatch %.3f, --timeline/noisewatch %.3f (medians of paired ratios)\n' "storm" \
  "$(ratio "$tmp/storm.c" "$tmp/storm.b")" "$(ratio "$tmp/storm.d" "$tmp/storm.b")"
printf '%-12s marking through the fd: noisewatch/bare %.3f, --windows/bare %.3f, --windows/noisewatch %.3f\n' "storm" \
  "$(ratio "$tmp/storm.fb" "$tmp/storm.fa")" "$(ratio "$tmp/storm.fc" "$tmp/storm.fa")" "$(ratio "$tmp/storm.fc" "$tmp/storm.fb")"
printf '%-12s arraysum own time, --timeline/noisewatch %.3f (median of paired ratios)\n' "cpu-bound" \
  "$(ratio "$tmp/cpu.d" "$tmp/cpu.b")"
echo "load at the end $(cut -d' ' -f1-3 /proc/loadavg)"
