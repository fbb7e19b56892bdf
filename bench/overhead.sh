#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# noisewatch's own cost, each figure printed with its anchor measured in the same run of this
# script (A = bare, B = under noisewatch, F = the anchor, alternating A B F A B F ... so that slow
# phases of a shared machine hit all alike).
#
#   bench/overhead.sh [BUILD_DIR]            (root; default BUILD_DIR: <repo>/build)
#   needs: jq, perf, bpftrace, bpftool, curl (scripts/install-deps.sh bench)
#
# One line per measurement: the value, its anchor where one exists, the target, PASS/FAIL.
#   perturbation  arraysum's own reported total time under `noisewatch run` / bare, both pinned to
#                 the same CPU (taskset -c CPU vs noisewatch --cpu CPU), BENCH_ROUNDS blocks of 5
#                 executions per side: ratio of medians <= 1.01; CV of both. (The busy time's
#                 ratio follows, for information.)
#   switch storm  acc_pingpong (two threads on one CPU passing a token over pipes, 100k round
#                 trips) bare (A), under `noisewatch run` (B) and under nw_tracepoint_floor (F:
#                 empty programs on sched_switch and sched_wakeup, the floor any eBPF program
#                 there costs on this kernel), A B F in each of BENCH_PP_ROUNDS rounds: the
#                 ping-pong's own time, B/A and F/A per round (the pair ran back to back, so
#                 slow phases of the host cancel), median of each, both printed as context,
#                 not pass/fail (issue #27: wall time on a shared host cannot resolve the
#                 program's cost, whose measure is bench/program_cost.sh below); the line fails
#                 only when a series is short.
#                 Then: the bare switch rate >= 100k/s; the context switches the probe counted
#                 (the record's probe_switches, plus the few the held child made before it was
#                 tracked) against the kernel's count for the process (rusage voluntary and
#                 involuntary, also in the record): equal in every run; lost_events 0 in every run.
#   paced storm   the same storm paced to ~130-150k switches/s (--spin-ns 5000 per hand-over: the
#                 issue's ">= 100k switches/s" rather than the fastest this machine can switch),
#                 bare / under noisewatch, median of the paired ratios <= 1.10.
#   start-up      wall time of `noisewatch --runs 1 --warmup 0 -q -- true`, median of
#                 BENCH_START_ROUNDS, as a ratio to the anchor `perf stat -e task-clock -- true`
#                 timed the same way and alternating with it: <= 3x (issue #47, goal 2x; the 45 ms
#                 of #27 held on one VM and not on another). Then the phases (NOISEWATCH_TIMING).
#                 A second anchor, for context: bpftrace attaching empty programs to three
#                 tracepoints (sched_switch, sched_wakeup, irq_handler_entry) around `true`.
#                 Times are the script's own (bash's EPOCHREALTIME around each command), each
#                 less its round's harness (the prio wrapper: `prio /bin/true` less `/bin/true`,
#                 timed in the same round), as hyperfine -N would time the command alone.
#   memory        peak RSS of a 10-run session, `noisewatch run --cpu CPU --runs 10 -q --json F --
#                 arraysum` (the default warm-up + 10 runs), /usr/bin/time %M, the largest of
#                 BENCH_RSS_SESSIONS sessions <= 30 MiB. %M is the larger of noisewatch's own peak
#                 and its benchmark's, so it bounds noisewatch's from above; the anchor is
#                 arraysum's own peak RSS run bare (when the figure exceeds it, it is noisewatch's).
#   check         CPU time `noisewatch check --duration BENCH_CHECK_SECONDS` spends outside its
#                 spinners (config checks, loading and attaching the eBPF probe, collecting,
#                 rendering), median of BENCH_CHECK_RUNS runs, as % of the --duration
#                 <= 5 %. check spins one thread per target CPU (src/check/cpu_noise.cpp) while
#                 its main thread sleeps; those threads exist only during the measurement. Figure:
#                 the process's user+sys time (getrusage of the reaped process, bash `time`, 1 ms)
#                 minus the spinner threads' run time at their exit minus what the process ran
#                 before it exec'd noisewatch (the wrappers), the two from the scheduler's
#                 sum_exec_runtime read by bpftrace at sched_process_exit / sched_process_exec
#                 (probes that fire at exec and exit only: nothing on the measured path).
#                 The scheduler updates that clock at ticks and switches, so each reading may lag
#                 by up to a tick: the figure errs high, never low. The main thread's own run
#                 time at its exit (which errs low by its last stretch) is printed beside it. Not
#                 in the figure: the eBPF programs' run time (charged to the task they interrupt,
#                 mostly the spinners, and so part of the noise check measures) and kernel work
#                 deferred to kworkers (freeing the programs after exit).
#   agent         `noisewatch agent` with /metrics scraped every 15 s (bench/agent_overhead.sh,
#                 BENCH_AGENT_SECONDS window from 2 s after the start-up; the default 60 s covers
#                 one of the agent's once-a-minute configuration checks): its threads' run time
#                 (schedstat) plus its eBPF programs' run time in the kernel
#                 (kernel.bpf_stats_enabled, which adds two clock reads per program run: an upper
#                 bound), as % of one CPU < 0.5 %.
#   report        `noisewatch report` of a synthetic 1,000-run record, --format text, median of 5
#                 <= 200 ms.
#   then          bench/program_cost.sh (ns per call of each eBPF program, kernel.bpf_stats_enabled,
#                 against empty programs, each set first on its tracepoints in alternate storms):
#                 the switch storm [<= 1.5x per switch],
#                 the disk and network interrupt storms [<= 2x per interrupt, hard and soft entry +
#                 exit], then the migration and thread storms as information; and bench/shapes.sh (fork/exec and
#                 thread storms, make -j2, a long run, many short repetitions against hyperfine),
#                 each a failing line when one of its targets is missed.
#
# Every measured command (A, B and F alike) runs in its own session whose scheduler autogroup
# gets nice -20 (BENCH_NICE): on a machine shared with other users' builds this keeps their load
# from dominating either side; it changes nothing outside that session.
#
# Honesty: every figure comes from a command whose exit status is checked (noisewatch check: 0, 1
# or 2, equal to its report's exit_status). A command that fails, an output without its figure, a
# record that is missing or lacks a field, or a series with fewer values than measured is a FAIL
# (the line says n=got/expected), never a zero or an empty median that passes. The exit status is
# 0 only when every line passed and nothing was missing.
# Environment: BENCH_CPU (1), BENCH_ROUNDS (8), BENCH_PP_ROUNDS (15), BENCH_START_ROUNDS (10),
# BENCH_RSS_SESSIONS (3), BENCH_CHECK_RUNS (3), BENCH_CHECK_SECONDS (5), BENCH_AGENT_SECONDS (60;
# shorter for a quick check of the script), BENCH_NICE (-20), BENCH_KEEP=DIR keeps the raw
# numbers and records. Targets can be overridden, to see a line fail (the overridden targets are
# listed at the top): BENCH_T_PERTURBATION, BENCH_T_PACED,
# BENCH_T_START_RATIO, BENCH_T_RSS_MIB, BENCH_T_CHECK_PCT, BENCH_T_AGENT_PCT, BENCH_T_REPORT_MS.
set -u -o pipefail
# shellcheck source=bench/lib.sh
source "$(dirname "$0")/lib.sh"  # here, repo, bench_setup, whole_numbers, median, verdict
bench_setup "${1:-}" "noisewatch arraysum acc_pingpong nw_tracepoint_floor" "jq perf bpftrace bpftool curl"

cpu=${BENCH_CPU:-1}
rounds=${BENCH_ROUNDS:-8}
pp_rounds_total=${BENCH_PP_ROUNDS:-15}
start_rounds=${BENCH_START_ROUNDS:-10}
rss_sessions=${BENCH_RSS_SESSIONS:-3}
check_runs=${BENCH_CHECK_RUNS:-3}
check_seconds=${BENCH_CHECK_SECONDS:-5}
agent_seconds=${BENCH_AGENT_SECONDS:-60}
whole_numbers rounds pp_rounds_total start_rounds rss_sessions check_runs check_seconds agent_seconds
per_block=5            # arraysum executions per A or B block
pp_rounds=100000       # ping-pong round trips (2 switches each)
paced_rounds=50000     # round trips of the paced storm
paced_spin_ns=5000     # computation per hand-over in the paced storm
scrape_every=15        # the agent's /metrics scrape interval (the target's condition)
nice_level=${BENCH_NICE:--20}
nw=$build/noisewatch

# Targets, and their overrides (listed so that a run with one can never pass for a real one).
target() { echo "${!1:-$2}"; }
t_pert=$(target BENCH_T_PERTURBATION 1.01)
t_paced=$(target BENCH_T_PACED 1.10)
t_start=$(target BENCH_T_START_RATIO 3)
t_rss=$(target BENCH_T_RSS_MIB 30)
t_check=$(target BENCH_T_CHECK_PCT 5)
t_agent=$(target BENCH_T_AGENT_PCT 0.5)
t_report=$(target BENCH_T_REPORT_MS 200)
overridden=""
for v in BENCH_T_PERTURBATION BENCH_T_PACED BENCH_T_START_RATIO \
         BENCH_T_RSS_MIB BENCH_T_CHECK_PCT BENCH_T_AGENT_PCT BENCH_T_REPORT_MS; do
  [[ -n ${!v:-} ]] && overridden+=" $v=${!v}"
done

tmp=$(mktemp -d /tmp/nw-bench.XXXXXX)
bt_pid=""
cleanup() {
  [[ -n $bt_pid ]] && kill -TERM "$bt_pid" 2>/dev/null && wait "$bt_pid" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

# Run "$@" in a new session with a high-priority autogroup (see above).
prio() { setsid -w sh -c 'echo "$0" > /proc/self/autogroup 2>/dev/null; exec "$@"' "$nice_level" "$@"; }
cv() { awk '{s+=$1; q+=$1*$1; n++} END {if (n==0) {print "nan"; exit} m=s/n; v=(q-n*m*m)/(n>1?n-1:1); if (v<0) v=0; printf "%.2f", 100*sqrt(v)/m}'; }
is_number() { [[ $1 =~ ^-?[0-9]+(\.[0-9]+)?$ ]]; }
# meets VALUE OP TARGET (OP: <= or <): PASS only for a number that meets a numeric target; "nan",
# "" or any other word is a FAIL.
meets() {
  if is_number "$1" && is_number "$3" && [[ $2 == "<=" || $2 == "<" ]]; then
    awk -v x="$1" -v op="$2" -v t="$3" 'BEGIN {print ((op == "<") ? (x < t) : (x <= t)) ? "PASS" : "FAIL"}'
  else
    echo FAIL
  fi
}
fails=0 problems=0
problem() { echo "overhead.sh: $*" >&2; problems=$((problems + 1)); }
# fails_with STATUS CMD...: CMD failed; says so with the end of its stderr.
fails_with() {
  problem "exit status $1: ${*:2}"
  tail -3 "$tmp/cmd.err" | sed 's/^/    /' >&2
}
# count FILE: how many values a series holds (0 for a missing file).
count() { if [[ -f $1 ]]; then wc -l <"$1"; else echo 0; fi; }
# line NAME TEXT CHECKS [SERIES EXPECTED]...: a verdict line. CHECKS: "VALUE OP TARGET[; ...]",
# every one of which must pass. Every (SERIES, EXPECTED) pair must hold exactly EXPECTED values,
# else the line fails and says how many it got.
line() {
  local name=$1 text=$2 checks=$3 v=PASS c parts w
  shift 3
  IFS=';' read -ra parts <<<"$checks"
  for c in "${parts[@]}"; do
    read -ra w <<<"$c"
    if ((${#w[@]} != 3)) || [[ $(meets "${w[@]}") != PASS ]]; then v=FAIL; fi
  done
  verdict_line "$name" "$text" "$v" "$@"
}
# context NAME TEXT [SERIES EXPECTED]...: a figure printed for context, without a target; it still
# fails when a series is short (a figure from a short series is no context either).
context() { verdict_line "$1" "$2" "(context)" "${@:3}"; }
# verdict_line NAME TEXT VERDICT [SERIES EXPECTED]...: prints the line, FAIL when a series is short.
verdict_line() {
  local name=$1 text=$2 v=$3 short=""
  shift 3
  while (($# >= 2)); do
    local n; n=$(count "$1")
    ((n != $2)) && short+=" ${1##*/}: n=$n/$2"
    shift 2
  done
  if [[ -n $short ]]; then v=FAIL; text+=" [missing figures:$short]"; fi
  [[ $v == FAIL ]] && fails=$((fails + 1))
  printf '%-13s %-70s %s\n' "$name" "$text" "$v"
}
info() { printf '%-13s %-70s %s\n' "$1" "$2" "(info)"; }
# figures OUT N SED CMD...: runs CMD (exit status checked) and appends the N figures the sed
# expression prints from its stdout to OUT. Anything else (a failure, fewer or more figures) is a
# problem, and OUT gets none of them.
figures() {
  local out=$1 n=$2 expr=$3 st got
  shift 3
  "$@" >"$tmp/cmd.out" 2>"$tmp/cmd.err"
  st=$?
  if ((st != 0)); then fails_with "$st" "$@"; return 1; fi
  sed -n "$expr" "$tmp/cmd.out" >"$tmp/cmd.fig"
  got=$(wc -l <"$tmp/cmd.fig")
  if ((got != n)); then problem "$got figures instead of $n in the output of: $*"; return 1; fi
  cat "$tmp/cmd.fig" >>"$out"
}
# timed_us OUT EXPECT CMD...: appends CMD's wall time in microseconds to OUT when it exits 0 and
# (unless EXPECT is empty) its stdout or stderr has a line matching EXPECT (proof it did its work).
# The clock is bash's own EPOCHREALTIME: `$(date +%s%N)` forks and execs, and ~1.3 ms of that (one
# date's exit, the next one's start) landed in every timed command.
timed_us() {
  local out=$1 expect=$2 t0 t1 st
  shift 2
  t0=${EPOCHREALTIME/[.,]/}
  "$@" >"$tmp/cmd.out" 2>"$tmp/cmd.err"
  st=$?
  t1=${EPOCHREALTIME/[.,]/}
  if ((st != 0)); then fails_with "$st" "$@"; return 1; fi
  if [[ -n $expect ]] && ! grep -q -- "$expect" "$tmp/cmd.out" "$tmp/cmd.err"; then
    problem "no '$expect' in the output of: $*"; return 1
  fi
  echo $((10#$t1 - 10#$t0)) >>"$out"
}
# peak_kib OUT CMD...: runs CMD under prio and appends its peak RSS in KiB (/usr/bin/time %M) to
# OUT when it exits 0.
peak_kib() {
  local out=$1 k st
  shift
  rm -f "$tmp/rss"
  prio /usr/bin/time -f %M -o "$tmp/rss" "$@" >/dev/null 2>"$tmp/cmd.err"
  st=$?
  if ((st != 0)); then fails_with "$st" "$@"; return 1; fi
  k=$(tail -1 "$tmp/rss" 2>/dev/null)
  [[ $k =~ ^[0-9]+$ ]] || { problem "no peak RSS from /usr/bin/time for: $*"; return 1; }
  echo "$k" >>"$out"
}

echo "noisewatch overhead benchmark: $(uname -r), $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), target CPU $cpu, $rounds A/B rounds, load $(cut -d' ' -f1-3 /proc/loadavg)"
[[ -n $overridden ]] && echo "targets overridden:$overridden (not a result to record)"

# ---- perturbation: arraysum's own time, bare vs under noisewatch --------------------------
: >"$tmp/pert.a"; : >"$tmp/pert.b"
arraysum_fig='s/.* \([0-9.]*\) ms busy, \([0-9.]*\) ms total$/\1 \2/p'
for ((r = 0; r < rounds; r++)); do
  for ((k = 0; k < per_block; k++)); do
    figures "$tmp/pert.a" 1 "$arraysum_fig" prio taskset -c "$cpu" "$build/arraysum"
  done
  figures "$tmp/pert.b" "$per_block" "$arraysum_fig" prio \
    "$nw" run --cpu "$cpu" --runs "$per_block" --warmup 0 -q --json "$tmp/pert-$r.json" -- "$build/arraysum"
done
n_pert=$((rounds * per_block))
for col in 2 1; do
  name=$([[ $col == 2 ]] && echo total || echo busy)
  ma=$(cut -d' ' -f$col "$tmp/pert.a" | median); mb=$(cut -d' ' -f$col "$tmp/pert.b" | median)
  ca=$(cut -d' ' -f$col "$tmp/pert.a" | cv); cb=$(cut -d' ' -f$col "$tmp/pert.b" | cv)
  ratio=$(awk -v a="$ma" -v b="$mb" 'BEGIN {printf "%.4f", b/a}')
  na=$(wc -l <"$tmp/pert.a"); nb=$(wc -l <"$tmp/pert.b")
  if [[ $col == 2 ]]; then
    line perturbation "arraysum $name time ratio $ratio (median nw $mb / bare $ma ms, n=$nb/$na; CV nw $cb %, bare $ca %), target <= $t_pert" "$ratio <= $t_pert" \
      "$tmp/pert.a" "$n_pert" "$tmp/pert.b" "$n_pert"
  else
    info perturbation "arraysum $name time ratio $ratio (median nw $mb / bare $ma ms; CV nw $cb %, bare $ca %)"
  fi
done

# ---- switch storm: context-switch ping-pong ---------------------------------------------------
: >"$tmp/pp.a"; : >"$tmp/pp.b"; : >"$tmp/pp.f"; : >"$tmp/pp.sw"; : >"$tmp/pa.a"; : >"$tmp/pa.b"
pp_fig='s/.* in \([0-9.]*\) ms: .*/\1/p'
for ((r = 0; r < pp_rounds_total; r++)); do
  # One round's A, B and F go in together or not at all: the ratios below pair them line by line.
  a=$tmp/round.a b=$tmp/round.b f=$tmp/round.f
  : >"$a"; : >"$b"; : >"$f"
  figures "$a" 1 "$pp_fig" prio taskset -c "$cpu" "$build/acc_pingpong" "$pp_rounds" &&
    figures "$b" 1 "$pp_fig" prio \
      "$nw" run --cpu "$cpu" --runs 1 --warmup 0 -q --json "$tmp/pp-$r.json" -- "$build/acc_pingpong" "$pp_rounds" &&
    figures "$f" 1 "$pp_fig" prio taskset -c "$cpu" "$build/nw_tracepoint_floor" -- "$build/acc_pingpong" "$pp_rounds" &&
    { cat "$a" >>"$tmp/pp.a"; cat "$b" >>"$tmp/pp.b"; cat "$f" >>"$tmp/pp.f"; }
  : >"$a"; : >"$b"
  figures "$a" 1 "$pp_fig" prio taskset -c "$cpu" "$build/acc_pingpong" "$paced_rounds" --spin-ns "$paced_spin_ns" &&
    figures "$b" 1 "$pp_fig" prio "$nw" run --cpu "$cpu" --runs 1 --warmup 0 -q -o /dev/null -- \
      "$build/acc_pingpong" "$paced_rounds" --spin-ns "$paced_spin_ns" &&
    { cat "$a" >>"$tmp/pa.a"; cat "$b" >>"$tmp/pa.b"; }
  # kernel: rusage voluntary, involuntary; probe: its counts plus the child's before tracking.
  # Every field must be in the record: a missing one is not a zero.
  [[ -s $tmp/pp-$r.json ]] || { problem "no record $tmp/pp-$r.json"; continue; }
  jq -er '.runs[0] as $r | $r.probe_switches as $p | $p.before_tracking as $b
          | [$r.voluntary_switches, $r.involuntary_switches,
             ($p.voluntary + $b.voluntary), ($p.involuntary + $b.involuntary),
             ($b.voluntary + $b.involuntary), .lost_events]
          | if all(type == "number") then @tsv else error("missing switch counts") end' \
    "$tmp/pp-$r.json" >>"$tmp/pp.sw" 2>/dev/null || problem "switch counts missing from $tmp/pp-$r.json"
done
ma=$(median <"$tmp/pp.a"); mb=$(median <"$tmp/pp.b"); mf=$(median <"$tmp/pp.f")
paired() { paste "$1" "$2" | awk '{printf "%.6f\n", $2/$1}' | median | awk '{if ($1 == "nan") print "nan"; else printf "%.4f", $1}'; }
ratio=$(paired "$tmp/pp.a" "$tmp/pp.b"); floor=$(paired "$tmp/pp.a" "$tmp/pp.f")
excess=$(awk -v r="$ratio" -v f="$floor" 'BEGIN {if (r == "" || f == "" || r == "nan" || f == "nan") print "nan"; else printf "%.4f", r - f}')
ratio_m=$(awk -v a="$ma" -v b="$mb" 'BEGIN {printf "%.4f", b/a}')
rate=$(awk -v a="$ma" -v n="$pp_rounds" 'BEGIN {printf "%.0fk", 2*n/(a/1e3)/1e3}')
context "switch storm" "ping-pong nw/bare $ratio, anchor: empty programs (F) $floor, nw above F $excess (medians of $pp_rounds_total paired ratios; nw $mb, F $mf, bare $ma ms)" \
  "$tmp/pp.a" "$pp_rounds_total" "$tmp/pp.b" "$pp_rounds_total" "$tmp/pp.f" "$pp_rounds_total"
info "switch storm" "  ratio of medians nw/bare $ratio_m"
rate_ok=$(awk -v a="$ma" -v n="$pp_rounds" 'BEGIN {if (a+0 <= 0) print "nan"; else print (2*n/(a/1e3) >= 100000) ? 0 : 1}')
line "switch storm" "switch rate bare $rate/s, target >= 100k/s" "$rate_ok <= 0" "$tmp/pp.a" "$pp_rounds_total"
mismatch=$(awk -F'\t' '{d=$1-$3; if (d<0) d=-d; e=$2-$4; if (e<0) e=-e; if (d+e>m) m=d+e} END {if (NR==0) print "nan"; else print m+0}' "$tmp/pp.sw")
lost=$(awk -F'\t' '{s+=$6} END {if (NR==0) print "nan"; else print s+0}' "$tmp/pp.sw")
first=$(head -1 "$tmp/pp.sw" | awk -F'\t' '{printf "kernel vol %d invol %d, probe vol %d invol %d (%d before tracking)", $1, $2, $3, $4, $5}')
line "switch storm" "switches $first; worst |diff| $mismatch over $(count "$tmp/pp.sw") runs, must be 0" "$mismatch <= 0" "$tmp/pp.sw" "$pp_rounds_total"
line "switch storm" "lost_events $lost over $(count "$tmp/pp.sw") runs, must be 0" "$lost <= 0" "$tmp/pp.sw" "$pp_rounds_total"
pa=$(median <"$tmp/pa.a"); pb=$(median <"$tmp/pa.b")
pratio=$(paired "$tmp/pa.a" "$tmp/pa.b")
prate=$(awk -v a="$pa" -v n="$paced_rounds" 'BEGIN {printf "%.0fk", 2*n/(a/1e3)/1e3}')
line "paced storm" "ping-pong at $prate switches/s bare: ratio $pratio (median of $pp_rounds_total paired ratios; nw $pb / bare $pa ms), target <= $t_paced" \
  "${pratio:-nan} <= $t_paced" "$tmp/pa.a" "$pp_rounds_total" "$tmp/pa.b" "$pp_rounds_total"

# ---- start-up, with perf stat and bpftrace as anchors -----------------------------------------
# Each command runs under prio (its own session and autogroup, setsid + sh: ~2 ms here), whose
# cost is no part of the command: the target is for the command itself, as hyperfine -N times it.
# So the harness alone is timed in every round too (prio /bin/true less /bin/true), and each
# figure is given less it, rounds paired.
: >"$tmp/start.nw"; : >"$tmp/start.perf"; : >"$tmp/start.bt"; : >"$tmp/start.ptrue"; : >"$tmp/start.true"
bt_three='tracepoint:sched:sched_switch {} tracepoint:sched:sched_wakeup {} tracepoint:irq:irq_handler_entry {}'
for ((r = 0; r < start_rounds; r++)); do
  timed_us "$tmp/start.nw" "" prio "$nw" --runs 1 --warmup 0 -q -- true
  timed_us "$tmp/start.ptrue" "" prio /bin/true
  timed_us "$tmp/start.true" "" /bin/true
  timed_us "$tmp/start.perf" "task-clock" prio perf stat -e task-clock -- true
  # bpftrace -c wants one binary (true is in /bin and /usr/bin); "Attaching 3 probes" proves it
  # attached, as it exits 0 whatever happened to the child.
  timed_us "$tmp/start.bt" "^Attaching 3 probes" prio bpftrace -e "$bt_three" -c /usr/bin/true
done
ms_of() { median <"$1" | awk '{if ($1 == "nan") print "nan"; else printf "%.1f", $1/1000}'; }
# net FILE: each round's time less that round's harness (prio true - true), in µs.
net() { paste "$1" "$tmp/start.ptrue" "$tmp/start.true" | awk 'NF == 3 {print $1 - ($2 - $3)}'; }
paste "$tmp/start.ptrue" "$tmp/start.true" | awk 'NF == 2 {print $1 - $2}' >"$tmp/start.harness"
harness=$(ms_of "$tmp/start.harness")
net "$tmp/start.nw" >"$tmp/start.nw.net"; net "$tmp/start.perf" >"$tmp/start.perf.net"; net "$tmp/start.bt" >"$tmp/start.bt.net"
s_nw=$(ms_of "$tmp/start.nw.net"); s_perf=$(ms_of "$tmp/start.perf.net"); s_bt=$(ms_of "$tmp/start.bt.net")
s_raw=$(ms_of "$tmp/start.nw"); s_max=$(sort -g "$tmp/start.nw.net" | tail -1 | awk '{printf "%.1f", $1/1000}')
s_ratio=$(awk -v a="$s_nw" -v b="$s_perf" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "inf" }')
line start-up "noisewatch -q -- true: median $s_nw ms (max $s_max; $s_raw through the harness, which alone took $harness) = ${s_ratio}x the anchor perf stat -e task-clock $s_perf ms (bpftrace 3 tracepoints $s_bt ms; medians of $start_rounds, less the harness), target <= ${t_start}x (goal 2x)" \
  "$s_ratio <= $t_start" "$tmp/start.nw" "$start_rounds" "$tmp/start.perf" "$start_rounds" "$tmp/start.bt" "$start_rounds" \
  "$tmp/start.ptrue" "$start_rounds" "$tmp/start.true" "$start_rounds"
# Where the start-up goes (NOISEWATCH_TIMING: noisewatch's phases; the rest of the wall time is
# exec, dynamic linking and exit), and the three programs the verifier takes longest over.
NOISEWATCH_TIMING=1 "$nw" --runs 1 --warmup 0 -q -- true 2>"$tmp/phases" >/dev/null
info "  phases" "$(sed -n 's/^noisewatch: timing: \(options.*\)/\1/p' "$tmp/phases" | sed 's/ ms/ms/g')"
info "  verifier" "$(grep -o 'verifier [a-z_0-9]* [0-9.]* ms' "$tmp/phases" | grep -v '^verifier total' | sort -k3 -g | tail -3 | awk '{printf "%s%s %s ms", (NR > 1 ? ", " : ""), $2, $3}'); $(sed -n 's/.*verifier total \(.*\)/total \1/p' "$tmp/phases")"

# ---- memory: a 10-run session -----------------------------------------------------------------
: >"$tmp/rss.nw"; : >"$tmp/rss.bare"
for ((s = 0; s < rss_sessions; s++)); do
  peak_kib "$tmp/rss.bare" taskset -c "$cpu" "$build/arraysum"
  peak_kib "$tmp/rss.nw" "$nw" run --cpu "$cpu" --runs 10 -q --json "$tmp/mem-$s.json" -- "$build/arraysum"
done
mib=$(sort -g "$tmp/rss.nw" | tail -1 | awk '{printf "%.1f", $1/1024}'); mib=${mib:-nan}
bare_mib=$(sort -g "$tmp/rss.bare" | tail -1 | awk '{printf "%.1f", $1/1024}'); bare_mib=${bare_mib:-nan}
line memory "peak RSS of a 10-run session: $mib MiB (largest of $rss_sessions), anchor: arraysum alone $bare_mib MiB, target <= $t_rss MiB" \
  "$mib <= $t_rss" "$tmp/rss.nw" "$rss_sessions" "$tmp/rss.bare" "$rss_sessions"

# ---- check: noisewatch's own CPU time outside its spinners -------------------------------------
# bpftrace prints every noisewatch thread's run time at exec and exit (other noisewatch processes
# on the machine are told apart by pid afterwards).
check_probe='tracepoint:sched:sched_process_exec /comm == "noisewatch"/ { printf("exec %d %d %llu\n", pid, tid, curtask->se.sum_exec_runtime); }
tracepoint:sched:sched_process_exit /comm == "noisewatch"/ { printf("exit %d %d %llu\n", pid, tid, curtask->se.sum_exec_runtime); }'
: >"$tmp/check.own"; : >"$tmp/check.main"; : >"$tmp/check.spin"
bpftrace -e "$check_probe" >"$tmp/check.bt" 2>"$tmp/check.bt.err" &
bt_pid=$!
for ((i = 0; i < 300; i++)); do
  grep -q '^Attaching 2 probes' "$tmp/check.bt" 2>/dev/null && break
  kill -0 "$bt_pid" 2>/dev/null || break
  sleep 0.1
done
if grep -q '^Attaching 2 probes' "$tmp/check.bt" 2>/dev/null; then
  for ((r = 0; r < check_runs; r++)); do
    : >"$tmp/check.pid"
    TIMEFORMAT='%3U %3S'
    # The pid is written before the exec, so it is noisewatch's own.
    { time prio sh -c 'echo $$ >"$0"; exec "$@"' "$tmp/check.pid" \
        "$nw" check --duration "$check_seconds" --format json -o "$tmp/check-$r.json" >"$tmp/cmd.out" 2>"$tmp/cmd.err"; } 2>"$tmp/check.time"
    st=$?
    js=$(jq -r '.exit_status' "$tmp/check-$r.json" 2>/dev/null)
    if ((st > 2)) || [[ $js != "$st" ]]; then fails_with "$st" "noisewatch check (report's exit_status: ${js:-none})"; continue; fi
    if jq -e '.notes | any(test("attribution unavailable"))' "$tmp/check-$r.json" >/dev/null 2>&1; then
      problem "check ran without its eBPF probe: loading it is not in the figure"; continue
    fi
    echo "$(cat "$tmp/check.pid") $(jq '.cpus | length' "$tmp/check-$r.json") $(awk '{print ($1 + $2) * 1000}' "$tmp/check.time")" >>"$tmp/check.runs"
  done
  sleep 0.5  # the last exit's line reaches bpftrace's output
else
  problem "bpftrace did not attach its probes: $(tail -1 "$tmp/check.bt.err")"
fi
kill -TERM "$bt_pid" 2>/dev/null; wait "$bt_pid" 2>/dev/null; bt_pid=""
touch "$tmp/check.runs"
while read -r pid ncpu total_ms; do
  # exec: the run time before noisewatch (the wrappers); exit: the main thread (tid = pid) and the
  # spinners (every other thread: check starts no other).
  read -r before main spin nspin < <(awk -v p="$pid" '$2 == p && $1 == "exec" && $3 == p {b = $4}
      $2 == p && $1 == "exit" {if ($3 == p) m = $4; else {s += $4; n++}}
      END {print (b == "" ? "nan" : b), (m == "" ? "nan" : m), s + 0, n + 0}' "$tmp/check.bt")
  if [[ $before == nan || $main == nan ]] || ((nspin != ncpu)); then
    problem "check pid $pid: bpftrace saw exec ${before}, main thread exit ${main}, $nspin spinner threads for $ncpu CPUs"
    continue
  fi
  awk -v t="$total_ms" -v b="$before" -v s="$spin" 'BEGIN {printf "%.1f\n", t - (b + s) / 1e6}' >>"$tmp/check.own"
  awk -v m="$main" -v b="$before" 'BEGIN {printf "%.1f\n", (m - b) / 1e6}' >>"$tmp/check.main"
  awk -v s="$spin" -v n="$nspin" 'BEGIN {printf "%.1f\n", s / 1e6 / n}' >>"$tmp/check.spin"
done <"$tmp/check.runs"
ms1() { median | awk '{if ($1 == "nan") print "nan"; else printf "%.1f", $1}'; }
c_own=$(ms1 <"$tmp/check.own"); c_main=$(ms1 <"$tmp/check.main"); c_spin=$(ms1 <"$tmp/check.spin")
c_pct=$(awk -v o="$c_own" -v d="$check_seconds" 'BEGIN {if (o == "nan") print "nan"; else printf "%.2f", o / (d * 1000) * 100}')
line check "check --duration $check_seconds: own CPU $c_own ms = $c_pct % of the duration (main thread alone $c_main ms; each spinner $c_spin ms CPU; medians of $check_runs), target <= $t_check %" \
  "$c_pct <= $t_check" "$tmp/check.own" "$check_runs"

# ---- agent: idle, scraped every 15 s ----------------------------------------------------------
: >"$tmp/agent.pct"
if "$here/agent_overhead.sh" "$nw" "$agent_seconds" "$scrape_every" >"$tmp/agent.out" 2>"$tmp/cmd.err"; then
  a_thr=$(sed -n 's/^agent threads (schedstat): \([0-9.]*\)% .*/\1/p' "$tmp/agent.out")
  a_bpf=$(sed -n 's/^eBPF programs: \([0-9.]*\)% .*/\1/p' "$tmp/agent.out")
  a_cond=$(sed -n 's/^conditions: .*, \(scraped every .*\)$/\1/p' "$tmp/agent.out")
  if is_number "${a_thr:-x}" && is_number "${a_bpf:-x}"; then
    awk -v t="$a_thr" -v b="$a_bpf" 'BEGIN {printf "%.4f\n", t + b}' >"$tmp/agent.pct"
  else
    problem "agent_overhead.sh printed no figures: $(tr '\n' ' ' <"$tmp/agent.out")"
  fi
else
  fails_with $? "bench/agent_overhead.sh $nw $agent_seconds $scrape_every"
fi
a_pct=$(head -1 "$tmp/agent.pct"); a_pct=${a_pct:-nan}
line agent "agent over ${agent_seconds} s, ${a_cond:-not measured}: $a_pct % of one CPU (threads ${a_thr:-nan} % + eBPF programs ${a_bpf:-nan} %), target < $t_agent %" \
  "$a_pct < $t_agent" "$tmp/agent.pct" 1

# ---- report generation for 1,000 runs ---------------------------------------------------------
# A synthetic record: the first perturbation record's runs, repeated and varied deterministically
# to 1,000 measured runs (wall times and noise times spread, so attribution has work to do).
jq '(.runs | map(select(.warmup == false))) as $t
    | .runs = [range(1000) as $i | $t[$i % ($t | length)]
        | .index = $i
        | .wall_ns = (.wall_ns + (($i * 7919) % 1000) * 20000)
        | .noise = (.noise | map(.time_ns = (.time_ns + (($i * 104729 + (.source | length)) % 997) * 1000)))]
    | del(.attribution, .summary, .recommendations, .report)' "$tmp/pert-0.json" >"$tmp/r1000.json" 2>/dev/null ||
  problem "cannot build the 1,000-run record from $tmp/pert-0.json"
: >"$tmp/rep"
nruns=$(jq -e '.runs | length' "$tmp/r1000.json" 2>/dev/null)
[[ $nruns =~ ^[0-9]+$ ]] || nruns=0
if ((nruns == 1000)); then
  for ((r = 0; r < 5; r++)); do timed_us "$tmp/rep" "" prio "$nw" report "$tmp/r1000.json" --format text; done
else
  problem "the synthetic record has $nruns runs, not 1000"
fi
ms=$(ms_of "$tmp/rep")
line report "noisewatch report (text) of a $nruns-run record: median $ms ms (n=$(count "$tmp/rep")), target <= $t_report ms" "$ms <= $t_report" "$tmp/rep" 5

# ---- ns per event of every program, and the shapes the storm does not cover --------------------
bash "$here/program_cost.sh" "$build" || fails=$((fails + 1))
for storm in disk net; do BENCH_PC_STORM=$storm bash "$here/program_cost.sh" "$build" || fails=$((fails + 1)); done
BENCH_PC_STORM=migrate bash "$here/program_cost.sh" "$build"  # information: no target yet (issue #47)
BENCH_PC_STORM=threads bash "$here/program_cost.sh" "$build"  # information: what a short-lived thread costs
bash "$here/shapes.sh" "$build" || fails=$((fails + 1))

if [[ -n ${BENCH_KEEP:-} ]]; then mkdir -p "$BENCH_KEEP" && cp "$tmp"/* "$BENCH_KEEP"/; fi
echo "overhead benchmark: $fails failing line(s) or script(s), $problems missing figure(s)"
exit $((fails > 0 || problems > 0))
