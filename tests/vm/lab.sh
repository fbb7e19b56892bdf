# SPDX-License-Identifier: Apache-2.0
# The guest's side of the lab tests (tests/vm/vm_test.cpp, Lab): what this project's VMs cannot
# show. The guest is booted with four CPUs as two cores of two threads (SMT siblings 0-1 and 2-3)
# and its scratch disk on an INTx IRQ (guest.sh --scratch-intx), a device IRQ the kernel lets
# move. The benchmark CPU is 3; its sibling is CPU 2.
set -u
. /nw/vm/vmlib.sh
# First the isolation scenarios, as the second boot (isolation.sh alone) runs them.
. /nw/vm/isolation.sh
cat /sys/devices/system/cpu/cpu3/topology/thread_siblings_list >siblings.txt

# ---- SMT: a hog on the sibling, then the sibling idle; check's rule and tune's smt-off.
scenario check_smt noisewatch check --cpu 3 --duration 1 --format json -o check_smt.json
hog_run smt_busy 2 3 2 -- nw_spin 150
run smt_idle 3 2 -- nw_spin 150
scenario smt_off noisewatch tune apply --cpu 3 --only smt-off
cat /sys/devices/system/cpu/cpu2/online >smt_off.online
scenario check_smt_off noisewatch check --cpu 3 --duration 1 --format json -o check_smt_off.json
scenario smt_restore noisewatch tune restore
cat /sys/devices/system/cpu/cpu2/online >smt_restore.online
# tune prove with it: the tuned half runs with CPU 2 offline, and the machine is left as it was.
scenario smt_prove noisewatch tune prove --cpu 3 --only smt-off --runs 3 --warmup 0 --json smt_prove.json -- nw_spin 100
cat /sys/devices/system/cpu/cpu2/online >smt_prove.online

# ---- IRQ affinity: the scratch disk's IRQ delivered to the benchmark CPU (as a machine's default
# may have it), a writer on CPU 0 keeping it busy, a spinner on CPU 3; then tune moves it.
dev=$(basename "$(readlink /sys/block/vdb/device)")
irq=$(awk -v d="$dev" '$NF == d { sub(":", "", $1); print $1 }' /proc/interrupts)
echo "$dev $irq" >irq.txt
echo 3 >/proc/irq/"$irq"/smp_affinity_list
snapshot() { for f in /proc/irq/*/smp_affinity_list; do echo "$f $(cat "$f")"; done; }
snapshot >irq_before.txt
irq_run() {  # irq_run NAME: the spinner on CPU 3 while the writer on CPU 0 keeps the disk busy
  nw_io_storm 0 30 /scratch 2 &
  storm=$!
  sleep 0.3
  run "$1" 3 2 -- nw_spin 300
  kill $storm
  wait $storm 2>/dev/null
}
irq_run irq_on
scenario irq_apply noisewatch tune apply --cpu 3 --only irq-affinity
cat /proc/irq/"$irq"/smp_affinity_list >irq_applied.txt
cat /proc/irq/"$irq"/effective_affinity_list >irq_effective_at_once.txt
for d in /proc/irq/*/; do echo "$(cat "$d"smp_affinity_list) $(cat "$d"effective_affinity_list)"; done >irq_moved_at_once.txt
irq_run irq_off
cat /proc/irq/"$irq"/effective_affinity_list >irq_effective.txt
scenario irq_restore noisewatch tune restore
snapshot >irq_restored.txt
