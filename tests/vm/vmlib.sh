# SPDX-License-Identifier: Apache-2.0
# What the guest scripts share (tests/vm/guest.sh puts it in the guest as /nw/vm/vmlib.sh): each
# scenario leaves NAME.status (its exit status), NAME.out and NAME.err in /out, and for a run
# NAME.json (its record); tests/vm/vm_test.cpp reads them.
scenario() {  # scenario NAME COMMAND...
  name=$1
  shift
  echo "scenario $name: $*"
  "$@" >"$name.out" 2>"$name.err"
  echo $? >"$name.status"
}
run() {  # run NAME CPUS RUNS -- COMMAND...: a recorded run, no warm-up, quiet
  name=$1 cpus=$2 runs=$3
  shift 4
  scenario "$name" noisewatch --cpu "$cpus" --runs "$runs" --warmup 0 -q --json "$name.json" -- "$@"
}
hog_run() {  # hog_run NAME HOG_CPU CPUS RUNS -- COMMAND...: run() with nw_hog spinning on HOG_CPU
  name=$1 hog_cpu=$2
  shift 2
  nw_hog 60 "$hog_cpu" &
  hog=$!
  sleep 0.2
  run "$name" "$@"
  kill $hog
  wait $hog 2>/dev/null
}
