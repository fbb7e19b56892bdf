// SPDX-License-Identifier: GPL-2.0
// The benchmark's yardstick for noisewatch's event-storm cost: empty programs on the two
// tracepoints noisewatch's hot path uses. What a context-switch storm loses under these is what
// any tp_btf program costs on this kernel and machine (tracepoint dispatch, the program call,
// recursion guard), before noisewatch does any work of its own.
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "Dual BSD/GPL";

SEC("tp_btf/sched_switch")
int BPF_PROG(floor_switch) { return 0; }

SEC("tp_btf/sched_wakeup")
int BPF_PROG(floor_wakeup) { return 0; }
