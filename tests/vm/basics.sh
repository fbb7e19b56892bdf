# SPDX-License-Identifier: Apache-2.0
# The guest's side of the lighter kernel tests (tests/vm/vm_test.cpp, the other Debian 12 kernel
# flavours): what the kernel gives noisewatch, a run with a hog on the benchmark's CPU, and disk I/O there.
set -u
. /nw/vm/vmlib.sh
uname -r >release.txt
scenario kernel sh -c 'noisewatch kernel --format json >kernel.json'
hog_run hog 1 1 3 -- nw_spin 150
# Device I/O on the benchmark's CPU: two writers, so one runs while the other waits on the disk.
# On PREEMPT_RT the disk's handler runs in its thread (irq/NN-virtio1-req.1), which preempts the
# writer: the device's interrupt all the same.
run io 1 2 -- nw_io_storm 1 0.5 /scratch
# What check says of the kernel: on PREEMPT_RT, the IRQ threads that may run on CPU 1 (the disk's
# queue for CPU 1 among them) and RT throttling.
scenario check noisewatch check --cpu 1 --duration 1 --format json -o check.json
