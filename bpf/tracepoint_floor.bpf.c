// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
// The benchmark's yardstick for noisewatch's event-storm cost: empty programs on the tracepoints
// of the storms bench/ measures (context switches and wake-ups, hard and soft interrupts,
// migrations). What a storm loses under these is what any tp_btf program costs on this kernel and
// machine (tracepoint dispatch, the program call, recursion guard), before noisewatch does any
// work of its own. Names are at most 15 characters: bpftool shows no more.
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "Dual BSD/GPL";

SEC("tp_btf/sched_switch")
int BPF_PROG(floor_switch) { return 0; }

SEC("tp_btf/sched_wakeup")
int BPF_PROG(floor_wakeup) { return 0; }

SEC("tp_btf/irq_handler_entry")
int BPF_PROG(floor_irq_in) { return 0; }

SEC("tp_btf/irq_handler_exit")
int BPF_PROG(floor_irq_out) { return 0; }

SEC("tp_btf/softirq_entry")
int BPF_PROG(floor_sirq_in) { return 0; }

SEC("tp_btf/softirq_exit")
int BPF_PROG(floor_sirq_out) { return 0; }

SEC("tp_btf/sched_migrate_task")
int BPF_PROG(floor_migrate) { return 0; }
