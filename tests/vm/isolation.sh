# SPDX-License-Identifier: Apache-2.0
# The guest's side of the isolation tests (tests/vm/vm_test.cpp, Lab): the same scenarios in two
# boots of the same guest, without and with the boot parameters check recommends (isolcpus,
# nohz_full, rcu_nocbs, ...). Run alone in the second boot, and by lab.sh, first, in the first.
# Every CPU but the benchmark's is kept busy by shells that are not pinned: they go wherever the
# scheduler may put them, which isolcpus decides. The benchmark CPU is 3.
set -u
. /nw/vm/vmlib.sh
uname -r >release.txt
cat /proc/cmdline >cmdline.txt
scenario iso_check noisewatch check --cpu 3 --duration 2 --format json -o iso_check.json
pids=""
for i in 1 2 3 4; do
  sh -c 'while :; do :; done' &
  pids="$pids $!"
done
sleep 0.3
run iso_bench 3 3 -- nw_spin 1000
kill $pids
wait 2>/dev/null
