#!/usr/bin/env bash
# What each of noisewatch's eBPF programs costs per call, measured where it is deterministic: the
# kernel's own BPF statistics (kernel.bpf_stats_enabled: run count and run time of every
# program) over a fixed context-switch storm, rather than wall-time ratios the host's noise drowns.
#
#   bench/program_cost.sh [BUILD_DIR]      (root; needs bpftool and jq)
#   BENCH_PC_STORM=threads bench/program_cost.sh   the same over a thread storm instead
#
# The storm: acc_pingpong (two threads on one CPU passing a token over pipes, ROUNDS round trips:
# two switches and two wake-ups each) under `noisewatch run`, with nw_tracepoint_floor's empty
# programs on sched_switch and sched_wakeup attached during the same storm. The statistics'
# own cost (two clock reads per program run) and the tracepoint's dispatch are in every program's
# figure alike: the empty programs measure them, and each of noisewatch's programs is given as ns
# per call and as its body (ns per call minus the empty program's on the same tracepoint; the
# mean of the two empty programs elsewhere). The counters are read by the benchmark itself just
# before and just after the storm (bpftool inside the measured command), so both sets of
# programs are loaded, and only the storm is counted.
#
# Lines:
#   <program>     ns per call, body ns, calls per switch (info; on_switch's body has a target)
#   per switch    the sum over noisewatch's programs of their run time, per context switch, as a
#                 ratio to the empty programs' per switch (the floor any program there costs)
#   storm share   the programs' total run time as a share of the storm's wall time (info)
# Targets (issue #27), for the switch storm: per-switch ratio <= BENCH_T_SWITCH_RATIO (1.3);
# on_switch body <= BENCH_T_SWITCH_BODY_NS (20). Exit 0 only when both pass. The thread storm
# (nw_thread_storm: 10,000 threads created and joined, 4 at a time, so that every switch meets a
# new task) has no target: its lines are what a short-lived thread costs each program.
# Environment: BENCH_PC_STORM (pingpong, or threads), BENCH_CPU (1),
# BENCH_PC_ROUNDS (200000 round trips), BENCH_PC_REPEATS (5 runs of the storm; the median of
# each figure is printed), BENCH_KEEP=DIR keeps the raw statistics.
set -u -o pipefail
source "$(dirname "$0")/lib.sh"
bench_setup "${1:-}" "noisewatch acc_pingpong nw_thread_storm nw_tracepoint_floor" "bpftool jq"
kind=${BENCH_PC_STORM:-pingpong}
cpu=${BENCH_CPU:-1}
rounds=${BENCH_PC_ROUNDS:-200000}
repeats=${BENCH_PC_REPEATS:-5}
t_ratio=${BENCH_T_SWITCH_RATIO:-1.3}
t_body=${BENCH_T_SWITCH_BODY_NS:-20}
whole_numbers rounds repeats
case $kind in
  pingpong) storm_cmd=("$build/acc_pingpong" "$rounds" --quiet) what="${rounds}-round-trip switch storm" ;;
  threads) storm_cmd=("$build/nw_thread_storm" 10000 4) what="10,000-thread storm" ;;
  *) echo "program_cost.sh: BENCH_PC_STORM is pingpong or threads, not '$kind'" >&2; exit 125 ;;
esac

tmp=$(mktemp -d /tmp/nw-progcost.XXXXXX)
stats_was=$(cat /proc/sys/kernel/bpf_stats_enabled)
cleanup() {
  echo "$stats_was" >/proc/sys/kernel/bpf_stats_enabled
  if [[ -n ${BENCH_KEEP:-} ]]; then mkdir -p "$BENCH_KEEP" && cp -r "$tmp"/. "$BENCH_KEEP"/; fi
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP
echo 1 >/proc/sys/kernel/bpf_stats_enabled
[[ $(cat /proc/sys/kernel/bpf_stats_enabled) == 1 ]] || { echo "program_cost.sh: kernel.bpf_stats_enabled stays off" >&2; exit 125; }

# The storm, with the statistics read around it by the measured command itself.
storm() {
  local k=$1
  "$build/nw_tracepoint_floor" -- "$build/noisewatch" run --cpu "$cpu" --runs 1 --warmup 0 -q --no-counters \
    --json "$tmp/record.$k.json" -- sh -c \
    'before=$1 after=$2 ids=$3; shift 3
     grep -h "^prog_id:" /proc/$PPID/fdinfo/* | awk "{ print \$2 }" | sort -u > "$ids"
     bpftool prog show -j > "$before"; s=$(date +%s%N); "$@" > /dev/null; e=$(date +%s%N); bpftool prog show -j > "$after"
     echo $((e - s)) > "$ids.wall"' \
    sh "$tmp/before.$k.json" "$tmp/after.$k.json" "$tmp/ids.$k" "${storm_cmd[@]}" 2>"$tmp/err.$k" ||
    { echo "program_cost.sh: the storm failed:" >&2; tail -3 "$tmp/err.$k" >&2; exit 1; }
}

# Per program: "nw|floor name calls ns" over the storm (after - before). noisewatch's programs are
# the ones its process holds (the measured command's parent: /proc/$PPID/fdinfo), the floor's are
# floor_switch and floor_wakeup; bpftool gives names of up to 15 characters.
deltas() {
  jq -r --slurpfile b "$tmp/before.$1.json" --rawfile ids "$tmp/ids.$1" '
    ($b[0] | map({key: (.id | tostring), value: .}) | from_entries) as $before
    | ($ids | split("\n") | map(select(length > 0))) as $mine
    | .[] | select(.name != null)
    | (if ((.id | tostring) as $i | $mine | index($i)) then "nw"
       elif (.name == "floor_switch" or .name == "floor_wakeup") then "floor" else empty end) as $who
    | . as $a | ($before[($a.id | tostring)] // {run_cnt: 0, run_time_ns: 0}) as $o
    | "\($who) \($a.name) \(($a.run_cnt // 0) - ($o.run_cnt // 0)) \(($a.run_time_ns // 0) - ($o.run_time_ns // 0))"' \
    "$tmp/after.$1.json"
}

for ((k = 1; k <= repeats; k++)); do
  storm "$k"
  deltas "$k" >"$tmp/delta.$k"
  # One line per storm: the switch count (the empty sched_switch program's calls) and each figure.
  [[ -s $tmp/ids.$k ]] || { echo "program_cost.sh: could not list noisewatch's programs (/proc/PID/fdinfo)" >&2; exit 1; }
  awk -v wall="$(cat "$tmp/ids.$k.wall")" '
    { if ($1 == "nw") nw[$2] = 1; calls[$2] += $3; ns[$2] += $4 }
    END {
      sw = calls["floor_switch"]; wk = calls["floor_wakeup"]
      if (sw == 0) { print "no-floor"; exit }
      fs = ns["floor_switch"] / sw; fw = (wk ? ns["floor_wakeup"] / wk : fs)
      total = 0
      for (q in nw) if (calls[q] > 0) {
        total += ns[q]
        floor = (q == "on_switch") ? fs : (q == "on_wakeup") ? fw : (fs + fw) / 2
        printf "prog %s %.1f %.1f %.3f\n", q, ns[q] / calls[q], ns[q] / calls[q] - floor, calls[q] / sw
      }
      printf "switch %.1f %.1f %.3f %d\n", total / sw, (ns["floor_switch"] + ns["floor_wakeup"]) / sw,
             total / (ns["floor_switch"] + ns["floor_wakeup"]), sw
      printf "floor %.1f %.1f\n", fs, fw
      printf "share %.2f %.1f %.1f\n", 100 * total / wall, total / 1e6, wall / 1e6
    }' "$tmp/delta.$k" >"$tmp/fig.$k"
  grep -q '^no-floor' "$tmp/fig.$k" && { echo "program_cost.sh: the empty programs did not run (statistics off?)" >&2; exit 1; }
done

col() { cat "$tmp"/fig.* | awk -v key="$1" -v name="$2" -v c="$3" '$1 == key && (name == "" || $2 == name) { print $c }' | median; }

echo "noisewatch eBPF programs: ns per call over a $what on CPU $cpu, median of $repeats storms"
printf '%-22s %10s %10s %12s\n' program "ns/call" "body ns" "calls/switch"
printf '%-22s %10s %10s %12s\n' "empty sched_switch" "$(col floor '' 2)" "-" "1.000"
printf '%-22s %10s %10s %12s\n' "empty sched_wakeup" "$(col floor '' 3)" "-" "-"
for q in $(cat "$tmp"/fig.* | awk '$1 == "prog" { print $2 }' | sort -u); do
  printf '%-22s %10s %10s %12s\n' "$q" "$(col prog "$q" 3)" "$(col prog "$q" 4)" "$(col prog "$q" 5)"
done
per_switch=$(col switch '' 2) floor_switch=$(col switch '' 3) ratio=$(col switch '' 4) body=$(col prog on_switch 4)
v1=$(verdict "$ratio" "$t_ratio") v2=$(verdict "$body" "$t_body")
if [[ $kind == threads ]]; then v1="(info: the targets are the switch storm's)" v2=$v1; fi
printf 'per switch: %s ns of noisewatch programs against %s ns of the empty ones: %sx (target <= %s)  %s\n' \
  "$per_switch" "$floor_switch" "$ratio" "$t_ratio" "$v1"
printf 'on_switch body: %s ns (target <= %s)  %s\n' "$body" "$t_body" "$v2"
printf 'storm share: %s ms of noisewatch programs in a %s ms storm, %s %% of it (info)\n' \
  "$(col share '' 3)" "$(col share '' 4)" "$(col share '' 2)"
[[ $kind == threads ]] && exit 0
[[ $v1 == PASS && $v2 == PASS ]]
