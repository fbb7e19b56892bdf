# SPDX-License-Identifier: Apache-2.0
# The guest's side of the kernel tests (tests/vm/vm_test.cpp asserts on what it leaves): the real
# noisewatch on real workloads, with real eBPF, on the guest's kernel. Run by tests/vm/guest.sh in
# /out; each scenario leaves its files there (tests/vm/vmlib.sh). TCG time is not a real
# machine's: the workloads are short, and the host's assertions are counts, relations and bounds
# wide enough to say so.
set -u
. /nw/vm/vmlib.sh

uname -r >release.txt
# The guest's clocks, for whoever reads a timing failure: TCG emulates the TSC, and a kernel that
# finds it unstable runs its scheduler clock (CPU time, blocking) apart from CLOCK_MONOTONIC (wall).
cat /sys/devices/system/clocksource/clocksource0/current_clocksource >clocksource.txt 2>&1
dmesg >dmesg.txt 2>&1

# What this kernel gives noisewatch: every set-up loads, every program within its margins.
scenario kernel sh -c 'noisewatch kernel --format json >kernel.json'

# Preemption: a hog on the benchmark's CPU (and the timeline of it).
nw_hog 60 1 &
hog=$!
sleep 0.2
run hog 1 3 -- nw_spin 150
scenario timeline noisewatch --cpu 1 --runs 2 --warmup 0 -q --timeline timeline.trace.json --json timeline.json -- nw_spin 80
kill $hog
wait $hog 2>/dev/null

# Device I/O: O_DIRECT writes to the scratch disk (a virtio disk: irq, softirq, blocking:io).
run io 1 2 -- nw_io_storm 1 0.5 /scratch 1
# A sleeper: 20 sleeps of 10 ms (blocking:sleep).
run sleep 1 2 -- nw_sleeper 20 10000
# Page faults: fentry on handle_mm_fault is allowed here (no lockdown): fault time is measured.
run faults 1 2 -- nw_faults 16 2

# The shapes: threads on one CPU, on two, wrapper shells.
run threads1 1 2 -- nw_threads 3 20
run threads2 0-1 2 -- nw_threads 2 40
run wrapper 1 2 -- sh -c 'sh -c "nw_spin 40"; true'

# A CPU quota (cgroup v1 cpu controller): 30 ms per 100 ms.
q=/sys/fs/cgroup/cpu/nwquota
mkdir -p $q
echo 100000 >$q/cpu.cfs_period_us
echo 30000 >$q/cpu.cfs_quota_us
scenario throttle sh -c "echo \$\$ >$q/cgroup.procs && exec noisewatch --cpu 1 --runs 2 --warmup 0 -q --json throttle.json -- nw_spin 150"

# Windows: USDT markers (5 windows in one process run), and a process per run (--windows-exec).
scenario windows noisewatch --cpu 1 --runs 1 --warmup 0 -q --json windows.json --windows -- nw_windows 5 200
scenario exec noisewatch --cpu 1 --runs 1 --warmup 0 -q --json exec.json --windows-exec nw_spin -- \
  sh -c 'for i in 1 2 3 4; do nw_spin 20; done'

# check, with its measured noise attributed to its sources.
scenario check noisewatch check --cpu 1 --duration 2 --format json -o check.json
