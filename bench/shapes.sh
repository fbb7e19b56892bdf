#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# noisewatch's cost on the workload shapes the event storm does not cover: many processes, many
# threads, a build, a long run, and many short repetitions (hyperfine's home ground). Each figure
# with its anchor from the same run of this script, paired rounds alternating bare and under
# noisewatch so that slow phases of a shared host hit both.
#
#   bench/shapes.sh [BUILD_DIR]      (root; needs hyperfine, make, gcc, jq)
#
# Lines (target in brackets; a missed one is FAIL and the exit status 1):
#   fork/exec     `sh -c 'for i in $(seq N); do /bin/true; done'`: the loop's own wall time (date
#                 around it, inside the command) under `noisewatch run` / bare, median of paired
#                 rounds [<= 1.05]; lost events 0 in every record.
#   threads       nw_thread_storm: create and join 10,000 threads, 4 at a time, same way [<= 1.05].
#   make -j2      a fresh build of a small generated C tree (40 files), same way [<= 1.05].
#   long run      noisewatch's own RSS at 5 s and at the end of a 30 s benchmark (nw_spin): growth
#                 per minute [<= 1 MiB/min]; the record's lost_events 0 and every counter positive.
#   short reps    `noisewatch --runs 500 --warmup 0 -q -- nw_spin 1` against `hyperfine -N --runs
#                 500 'nw_spin 1'`: total wall time ratio [<= 1.2, goal 1.1: issue #47], with noisewatch's time per
#                 repetition broken down (NOISEWATCH_TIMING: fork and hold, probe reset, arm,
#                 release to exit, collect, record).
# Environment: BENCH_CPU (1), BENCH_SHAPE_ROUNDS (5), BENCH_FORKS (1000), BENCH_THREADS (10000),
# BENCH_REPS (500), BENCH_LONG_S (30), BENCH_KEEP=DIR keeps records and raw numbers. Targets:
# BENCH_T_FORK, BENCH_T_THREADS, BENCH_T_MAKE, BENCH_T_RSS_MIB_MIN, BENCH_T_REPS.
set -u -o pipefail
source "$(dirname "$0")/lib.sh"
bench_setup "${1:-}" "noisewatch nw_thread_storm nw_spin" "hyperfine make gcc jq"
cpu=${BENCH_CPU:-1}
rounds=${BENCH_SHAPE_ROUNDS:-5}
forks=${BENCH_FORKS:-1000}
threads=${BENCH_THREADS:-10000}
reps=${BENCH_REPS:-500}
long_s=${BENCH_LONG_S:-30}
whole_numbers rounds forks threads reps long_s
t_fork=${BENCH_T_FORK:-1.05} t_threads=${BENCH_T_THREADS:-1.05} t_make=${BENCH_T_MAKE:-1.05}
t_rss=${BENCH_T_RSS_MIB_MIN:-1} t_reps=${BENCH_T_REPS:-1.2}
nw=$build/noisewatch

tmp=$(mktemp -d /tmp/nw-shapes.XXXXXX)
cleanup() {
  if [[ -n ${BENCH_KEEP:-} ]]; then mkdir -p "$BENCH_KEEP" && cp -r "$tmp"/. "$BENCH_KEEP"/; fi
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

fails=0
line() {  # NAME TEXT VALUE TARGET
  local v; v=$(verdict "$3" "$4")
  [[ $v == FAIL ]] && fails=$((fails + 1))
  printf '%-12s %-78s %s\n' "$1" "$2 (target <= $4)" "$v"
}
die() { echo "shapes.sh: $*" >&2; exit 1; }

# paired NAME ROUNDS CMD...: the command bare (taskset to the CPU) and under noisewatch, in
# pairs whose order alternates; CMD prints its own elapsed time in ns as its last line, measured the same way in
# both (noisewatch's start-up is not in it). Prints the median ratio; checks lost_events in every
# record.
own_ns() { tail -1 "$1" | awk '$1 + 0 > 0 { print $1; ok = 1 } END { if (!ok) exit 1 }'; }
paired() {
  local name=$1 n=$2 k a b rec lost
  shift 2
  : >"$tmp/$name.ratio"
  bare() {
    taskset -c "$cpu" "$@" >"$tmp/out" 2>"$tmp/err" || die "$name: bare run failed: $(tail -1 "$tmp/err")"
    a=$(own_ns "$tmp/out") || die "$name: no time printed by the bare run"
  }
  under() {
    "$nw" run --cpu "$cpu" --runs 1 --warmup 0 -q --json "$rec" -- "$@" >"$tmp/out" 2>"$tmp/err" ||
      die "$name: run under noisewatch failed: $(tail -1 "$tmp/err")"
    b=$(own_ns "$tmp/out") || die "$name: no time printed under noisewatch"
  }
  for ((k = 1; k <= n; k++)); do
    rec=$tmp/$name.$k.json
    # Which side goes first alternates: the first of a pair meets colder caches.
    if ((k % 2)); then bare "$@"; under "$@"; else under "$@"; bare "$@"; fi
    lost=$(jq '.lost_events // 0' "$rec")
    [[ $lost == 0 ]] || die "$name: $lost lost events in round $k (record $rec)"
    awk -v a="$a" -v b="$b" 'BEGIN { printf "%.4f\n", b / a }' >>"$tmp/$name.ratio"
  done
  median <"$tmp/$name.ratio"
}
# timed SCRIPT: a shell command that prints its own elapsed ns last.
timed() { echo "s=\$(date +%s%N); $1; echo \$(( \$(date +%s%N) - s ))"; }

echo "noisewatch on workload shapes: CPU $cpu, $rounds paired rounds each"

r=$(paired fork "$rounds" sh -c "$(timed "for i in \$(seq $forks); do /bin/true; done")")
line fork/exec "$forks fork+exec of /bin/true: under noisewatch / bare, median ratio $r" "$r" "$t_fork"

r=$(paired threads "$rounds" sh -c "$(timed "'$build/nw_thread_storm' $threads 4 > /dev/null")")
line threads "$threads threads created and joined, 4 at a time: ratio $r" "$r" "$t_threads"

# A small C tree: 40 files of a few functions each, built from scratch every round.
src=$tmp/tree
mkdir -p "$src"
for i in $(seq 40); do
  {
    echo "int f$i(int x) {"
    for j in $(seq 30); do echo "  x = x * $j + $i; if (x > 1000) x -= 997;"; done
    echo "  return x; }"
  } >"$src/f$i.c"
done
printf 'OBJ = %s\nall: $(OBJ)\n%%.o: %%.c\n\tgcc -O2 -c $< -o $@\nclean:\n\trm -f *.o\n' \
  "$(cd "$src" && ls f*.c | sed 's/\.c$/.o/' | tr '\n' ' ')" >"$src/Makefile"
r=$(paired make "$rounds" sh -c "make -s -C '$src' clean >/dev/null; $(timed "make -s -j2 -C '$src'")")
line "make -j2" "a fresh build of 40 C files, make -j2: ratio $r" "$r" "$t_make"

# The long run: noisewatch's RSS over a long benchmark.
rec=$tmp/long.json
"$nw" run --cpu "$cpu" --runs 1 --warmup 0 -q --json "$rec" -- "$build/nw_spin" "$((long_s * 1000))" >/dev/null 2>"$tmp/err" &
pid=$!
sleep 5
rss5=$(awk '/^VmRSS/ { print $2 }' "/proc/$pid/status" 2>/dev/null)
sleep "$((long_s - 6))"
rss_end=$(awk '/^VmRSS/ { print $2 }' "/proc/$pid/status" 2>/dev/null)
wait "$pid" || die "long run failed: $(tail -1 "$tmp/err")"
[[ -n $rss5 && -n $rss_end ]] || die "long run: could not read noisewatch's RSS"
lost=$(jq '.lost_events // 0' "$rec")
[[ $lost == 0 ]] || die "long run: $lost lost events"
jq -e '.runs[0].cpu_ns > 0 and .runs[0].wall_ns > 0' "$rec" >/dev/null || die "long run: the record lacks its figures"
slope=$(awk -v a="$rss5" -v b="$rss_end" -v s="$((long_s - 6))" 'BEGIN { printf "%.3f", (b - a) / 1024 / s * 60 }')
line "long run" "noisewatch RSS $((rss5 / 1024)) MiB at 5 s, $((rss_end / 1024)) MiB at $((long_s - 1)) s: $slope MiB/min" "$slope" "$t_rss"

# Many short repetitions: total wall, noisewatch against hyperfine, alternating.
: >"$tmp/reps.ratio"
for ((k = 1; k <= 3; k++)); do
  # (bash's own clock, in µs: `$(date +%s%N)` forks and execs inside the timed span)
  t0=${EPOCHREALTIME/[.,]/}
  taskset -c "$cpu" hyperfine -N --style none --runs "$reps" "$build/nw_spin 1" >/dev/null 2>"$tmp/err" || die "hyperfine failed: $(tail -1 "$tmp/err")"
  t1=${EPOCHREALTIME/[.,]/}
  NOISEWATCH_TIMING=1 "$nw" run --cpu "$cpu" --runs "$reps" --warmup 0 -q --json "$tmp/reps.json" -- "$build/nw_spin" 1 >/dev/null 2>"$tmp/reps.err" ||
    die "short repetitions under noisewatch failed: $(tail -1 "$tmp/reps.err")"
  t2=${EPOCHREALTIME/[.,]/}
  awk -v a="$((10#$t1 - 10#$t0))" -v b="$((10#$t2 - 10#$t1))" 'BEGIN { printf "%.3f\n", b / a }' >>"$tmp/reps.ratio"
  hf_ms=$(((10#$t1 - 10#$t0) / 1000)) nw_ms=$(((10#$t2 - 10#$t1) / 1000))
done
r=$(median <"$tmp/reps.ratio")
line "short reps" "$reps runs of nw_spin 1: noisewatch $nw_ms ms, hyperfine -N $hf_ms ms (last round); median ratio $r" "$r" "$t_reps"
sed -n 's/^noisewatch: timing: per repetition (mean of [0-9]*): /             per repetition: /p' "$tmp/reps.err"
exit $((fails > 0))
