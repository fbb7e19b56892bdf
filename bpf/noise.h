/* Kernel/user ABI of noisewatch's eBPF programs: the only header both sides include.
 * Plain __u32/__u64 fields only, so the layout is the same for clang -target bpf and g++. */
#ifndef NOISEWATCH_BPF_NOISE_H
#define NOISEWATCH_BPF_NOISE_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define NW_COMM_LEN 16
#define NW_MAX_CPUS 1024
#define NW_MAX_TRACKED 65536
#define NW_MAX_NOISE_KEYS 16384

/* What a noise_key's `id` means depends on its kind. */
enum nw_kind {
  NW_KIND_PREEMPT = 1,     /* id = pid of the task that ran instead; comm = its comm */
  NW_KIND_IRQ = 2,         /* id = IRQ number (name resolved from /proc/interrupts) */
  NW_KIND_VECTOR = 3,      /* id = enum nw_vector */
  NW_KIND_SOFTIRQ = 4,     /* id = softirq vector number */
  NW_KIND_NMI = 5,         /* id = 0; comm unused */
  NW_KIND_SMT = 6,         /* id = pid on the sibling; comm = its comm */
  NW_KIND_BLOCK = 7,       /* id = 0: the benchmark chose to sleep */
  NW_KIND_MIGRATE = 8,     /* id = from_cpu << 16 | to_cpu; count only */
  NW_KIND_WAKEUP_IDLE = 9, /* id = 0: runnable benchmark waiting for an idle CPU to wake up */
};

/* APIC/system vectors seen through the irq_vectors tracepoints (x86). */
enum nw_vector {
  NW_VEC_LOCAL_TIMER = 0,
  NW_VEC_RESCHEDULE = 1,
  NW_VEC_CALL_FUNCTION = 2,
  NW_VEC_CALL_FUNCTION_SINGLE = 3,
  NW_VEC_IRQ_WORK = 4,
  NW_VEC_THERMAL = 5,
  NW_VEC_THRESHOLD = 6,
  NW_VEC_DEFERRED_ERROR = 7,
  NW_VEC_ERROR = 8,
  NW_VEC_SPURIOUS = 9,
  NW_VEC_X86_PLATFORM_IPI = 10,
  NW_VEC_REBOOT = 11,
  NW_VEC_COUNT = 12,
};

struct nw_noise_key {
  __u32 kind;
  __u32 id;
  char comm[NW_COMM_LEN];
};

/* Per-CPU values (BPF_MAP_TYPE_PERCPU_HASH): user space sums or splits them by CPU. */
struct nw_noise_val {
  __u64 count;
  __u64 time_ns;
  __u64 max_ns;
};

/* Per-CPU counters of the probe itself (BPF_MAP_TYPE_PERCPU_ARRAY, one element). */
struct nw_probe_stats {
  __u64 lost_noise_keys;   /* noise_map full: an event could not be recorded */
  __u64 lost_tracked;      /* tracked map full: a new thread/child could not be followed */
};

/* Per-CPU configuration written by user space before attaching (BPF_MAP_TYPE_ARRAY by CPU). */
struct nw_cpu_config {
  __u32 watched;   /* charge everything on this CPU, tracked task or not (check, agent) */
  __u32 sibling;   /* SMT sibling CPU + 1, or 0 when none */
};

/* Phase of a tracked task, as the scheduler tracepoints last showed it. */
enum nw_phase { NW_PHASE_NEW = 0, NW_PHASE_RUNNING = 1, NW_PHASE_WAITING = 2, NW_PHASE_BLOCKED = 3 };

/* Value of the `tracked` hash (key: tid). User space inserts NW_PHASE_NEW entries. */
struct nw_task_info {
  __u64 ts;     /* when the task entered its phase */
  __u32 phase;
  __u32 cpu;    /* runqueue CPU while waiting */
};

/* Bookkeeping per CPU (BPF_MAP_TYPE_ARRAY by CPU). User space seeds the frequency fields, reads
 * them for time-weighted means, and clears `waiting` between repetitions. */
struct nw_cpu_state {
  __u64 stolen_total;       /* own time of all interrupt-like events on this CPU, ever */
  __u64 mark_ts;            /* start of the current task's charged span */
  __u64 mark_stolen;        /* stolen_total at mark_ts */
  __u64 tracked_since;      /* when the running tracked task got the CPU (0: not tracked) */
  __s64 waiting;            /* tracked tasks runnable on this CPU but not running */
  __u64 irq_start, irq_stolen0;
  __u64 vec_start, vec_stolen0;
  __u64 softirq_start, softirq_stolen0;
  __u32 curr_pid;
  __u32 curr_tracked;
  char curr_comm[NW_COMM_LEN]; /* kept only when the CPU has an SMT sibling */
  __u64 smt_charged_until;
  __u64 freq_khz, freq_ts, freq_khz_ns, freq_changes; /* kHz*ns integral up to freq_ts */
};

#endif
