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

// The floor of any program that times an interrupt: one clock read each (bpf_ktime_get_ns, what
// noisewatch's interrupt programs read), nothing else. Attached after the empty ones, on the four
// tracepoints an interrupt crosses: per interrupt, these less the empty ones are what the clock
// alone costs on this machine (on a KVM guest, kvm-clock behind an indirect call). Named clock_*,
// not floor_*: program_cost.sh keeps them out of the empty programs' mean.
static __always_inline int clock_only(void) {
  bpf_ktime_get_ns();
  return 0;
}

SEC("tp_btf/irq_handler_entry")
int BPF_PROG(clock_irq_in) { return clock_only(); }

SEC("tp_btf/irq_handler_exit")
int BPF_PROG(clock_irq_out) { return clock_only(); }

SEC("tp_btf/softirq_entry")
int BPF_PROG(clock_sirq_in) { return clock_only(); }

SEC("tp_btf/softirq_exit")
int BPF_PROG(clock_sirq_out) { return clock_only(); }
