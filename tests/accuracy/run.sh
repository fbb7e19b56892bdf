#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The accuracy suite: inject noise with a known ground truth and score noisewatch's report.
#
#   tests/accuracy/run.sh [BUILD_DIR] [SCENARIO...]      (root; default BUILD_DIR: <repo>/build)
#
# Scenarios: cpu-hog timer-storm irq-storm migrations blocking none wrappers threads-spread
# threads-one-cpu (default: all of them). For each scenario `noisewatch_inject` starts
# `noisewatch run --cpu CPU` on the scenario's benchmark (acc_work: a fixed number of
# instructions, calibrated once to ACC_WORK_MS; behind two wrapper shells for `wrappers`;
# acc_threads with two such workers for the threads-* scenarios), learns the repetition
# boundaries from the pidfile the benchmark writes, injects in the odd measured repetitions, and
# logs the ground truth; then `noisewatch_inject score` judges the record against it and prints
#   ACCURACY <scenario> PASS|FAIL [(by a VM rule)] expected ...; first named ..., unexplained ...
# followed by one line per rule (PASS, PASS (VM rule) or FAIL, with the measured value and its
# threshold) and evidence lines. The exit status is the number of failed scenarios.
#
# Environment: ACC_CPU (target CPU; default: the CPU the disk IRQ lands on, else 1), ACC_RUNS
# (measured runs, default 12), ACC_WORK_MS (benchmark CPU work per run, default 250), ACC_NICE
# (default -20: each scenario runs in its own session whose scheduler autogroup gets this nice
# level, so that other users' builds on a shared machine do not drown the injected ground truth;
# the benchmark and the injected noise are in the same autogroup and compete at equal weight),
# ACC_IRQ (default: the busiest virtio*-req.0 IRQ), ACC_IO_THREADS (O_DIRECT writers of the IRQ
# storm, default 6: completions then batch, so fewer IRQs fire but each one's softirq:BLOCK does
# more work; the storm's visible cost doubles (recorded: 16-17 ms -> 26-64 ms per run) and stands
# out better from the host's invisible slowdowns),
# ACC_TIMER_PERIOD_US (the timer storm's period, default 20: a storm whose visible cost, about a
# fifth of the CPU, stands above this VM's run-to-run wander; at 75 us its share was 0.17-0.62
# under load), ACC_KEEP=DIR keeps the records and ground-truth logs there.
#
# It changes one thing on the machine: the disk IRQ's smp_affinity_list (irq-storm), when the
# kernel allows; the saved value is restored on exit, on Ctrl-C and on SIGTERM/SIGHUP.
set -u

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
build=${1:-$repo/build}
[[ $# -gt 0 ]] && shift
build=$(cd "$build" 2>/dev/null && pwd) || { echo "run.sh: no build directory ${1:-}" >&2; exit 125; }
scenarios=("$@")
[[ ${#scenarios[@]} -eq 0 ]] && scenarios=(cpu-hog timer-storm irq-storm migrations blocking none wrappers threads-spread threads-one-cpu)

for b in noisewatch noisewatch_inject acc_work acc_threads; do
  [[ -x $build/$b ]] || { echo "run.sh: $build/$b is missing: build the targets noisewatch noisewatch_inject acc_work acc_threads" >&2; exit 125; }
done
wrapper=$repo/tests/workloads/acc_wrap1.sh
[[ -x $wrapper && -x $repo/tests/workloads/acc_wrap2.sh ]] || { echo "run.sh: $wrapper or acc_wrap2.sh is missing or not executable" >&2; exit 125; }
[[ $(id -u) -eq 0 ]] || { echo "run.sh: must run as root (eBPF, IRQ affinity)" >&2; exit 125; }

runs=${ACC_RUNS:-12}
work_ms=${ACC_WORK_MS:-250}
nice_level=${ACC_NICE:--20}
# The disk's completion IRQ: the virtio*-req.0 line with the most interrupts.
irq_name=${ACC_IRQ:-$(awk '/virtio[0-9]+-req\.0/ {s=0; for (i=2; i<=NF; i++) if ($i ~ /^[0-9]+$/) s+=$i; if (s>best) {best=s; name=$NF}} END {print name}' /proc/interrupts)}
irq_name=${irq_name:-virtio1-req.0}
irq_line=$(grep -E "[[:space:]]${irq_name//./\\.}\$" /proc/interrupts | head -1)
irq_num=$(awk -F: '{gsub(/ /, "", $1); print $1}' <<<"$irq_line")
ncpu=$(nproc)
if [[ -n ${ACC_CPU:-} ]]; then
  cpu=$ACC_CPU
else
  # Target the CPU the disk IRQ already lands on (it may not be movable); else CPU 1.
  cpu=$(awk -v n="$ncpu" '{best=-1; for (c=0; c<n; c++) if ($(c+2) > bestv || best < 0) {best=c; bestv=$(c+2)}; print best}' <<<"$irq_line")
  [[ -n $cpu ]] || cpu=1
fi
other=$((cpu == 0 ? 1 : 0))

tmp=$(mktemp -d /tmp/nw-accuracy.XXXXXX)
# The benchmark's pidfile lives on tmpfs: a rename on a disk filesystem can block for tens of
# milliseconds behind the journal on a busy machine, which would be (real) blocking of our own.
shm=$(mktemp -d /dev/shm/nw-accuracy.XXXXXX 2>/dev/null || mktemp -d /tmp/nw-accuracy-pid.XXXXXX)
affinity_file=${irq_num:+/proc/irq/$irq_num/smp_affinity_list}
affinity_saved=""
[[ -n $affinity_file && -r $affinity_file ]] && affinity_saved=$(cat "$affinity_file")
inj_pid=""

cleanup() {
  local why=$1
  if [[ -n $inj_pid ]] && kill -0 "$inj_pid" 2>/dev/null; then
    kill -TERM "$inj_pid" 2>/dev/null
    wait "$inj_pid" 2>/dev/null
  fi
  # Belt and braces: the injector restores the IRQ affinity itself; this covers a SIGKILLed one.
  if [[ -n $affinity_saved && -n $affinity_file ]] && [[ $(cat "$affinity_file" 2>/dev/null) != "$affinity_saved" ]]; then
    if echo "$affinity_saved" >"$affinity_file" 2>/dev/null; then
      echo "run.sh: restored $affinity_file to $affinity_saved" >&2
    else
      echo "run.sh: WARNING: could not restore $affinity_file to $affinity_saved" >&2
    fi
  fi
  if [[ -n ${ACC_KEEP:-} ]]; then
    mkdir -p "$ACC_KEEP" && cp "$tmp"/*.json "$tmp"/*.truth "$ACC_KEEP"/ 2>/dev/null
  fi
  rm -rf "$tmp" "$shm"
  [[ $why != exit ]] && exit 130
}
trap 'cleanup exit' EXIT
trap 'trap - EXIT; cleanup signal' INT TERM HUP

prio() { setsid -w sh -c 'echo "$0" >/proc/self/autogroup 2>/dev/null; exec "$@"' "$nice_level" "$@"; }
chunks=$(prio taskset -c "$cpu" "$build/acc_work" --calibrate "$work_ms")
[[ $chunks =~ ^[0-9]+$ ]] || { echo "run.sh: acc_work --calibrate failed" >&2; exit 125; }

echo "accuracy suite: load average $(cut -d' ' -f1-3 /proc/loadavg), target CPU $cpu, $runs measured runs + 1 warm-up, ${work_ms} ms of work per run ($chunks chunks)," \
     "nice $nice_level, disk IRQ $irq_name (IRQ ${irq_num:-?}, affinity ${affinity_saved:-?})"
failed=0
pid=$shm/bench.pid
for sc in "${scenarios[@]}"; do
  extra=() nw_cpus=$cpu bench=("$build/acc_work" "$chunks" "$pid")
  case $sc in
    irq-storm) extra=(--irq "$irq_name" --io-threads "${ACC_IO_THREADS:-6}") ;;
    timer-storm) extra=(--period-us "${ACC_TIMER_PERIOD_US:-20}") ;;
    cpu-hog | migrations | blocking | none) ;;
    wrappers) bench=("$wrapper" "${bench[@]}") ;;
    threads-spread) bench=("$build/acc_threads" 2 "$chunks" "$pid" --spread) nw_cpus=$((cpu < other ? cpu : other)),$((cpu < other ? other : cpu)) ;;
    threads-one-cpu) bench=("$build/acc_threads" 2 "$chunks" "$pid") ;;
    *) echo "run.sh: unknown scenario $sc" >&2; failed=$((failed + 1)); continue ;;
  esac
  rec=$tmp/$sc.json truth=$tmp/$sc.truth
  prio "$build/noisewatch_inject" "$sc" --cpu "$cpu" --other-cpu "$other" --pidfile "$pid" \
    --truth "$truth" --warmup 1 "${extra[@]}" -- \
    "$build/noisewatch" run --cpu "$nw_cpus" --runs "$runs" --warmup 1 -q --json "$rec" -- \
    "${bench[@]}" >"$tmp/$sc.out" 2>"$tmp/$sc.err" &
  inj_pid=$!
  wait "$inj_pid"
  st=$?
  inj_pid=""
  if [[ $st -ne 0 || ! -s $rec ]]; then
    printf 'ACCURACY %-15s FAIL  noisewatch or the injector exited with status %d (must be 0, with a record)\n' "$sc" "$st"
    sed 's/^/    /' "$tmp/$sc.err"
    failed=$((failed + 1))
    continue
  fi
  grep '^noisewatch_inject:' "$tmp/$sc.err" | sed 's/^/    /'
  score_args=()
  [[ $sc == irq-storm ]] && score_args=(--irq "$irq_name")
  "$build/noisewatch_inject" score "$sc" --record "$rec" --truth "$truth" "${score_args[@]}" || failed=$((failed + 1))
done
echo "accuracy suite: $((${#scenarios[@]} - failed)) of ${#scenarios[@]} scenarios passed"
exit "$failed"
