// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Kernel/user ABI of noisewatch's eBPF programs: the only header both sides include.
 * Plain __u32/__u64 fields only, so the layout is the same for clang -target bpf and g++. */
#ifndef NOISEWATCH_BPF_NOISE_H
#define NOISEWATCH_BPF_NOISE_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define NW_COMM_LEN 16
#define NW_MAX_CPUS 1024
#define NW_MAX_NOISE_KEYS 16384
/* Tracked tasks sit in a direct-mapped array indexed by pid & (slots - 1): user space sizes it to
 * pid_max rounded up to a power of two, at most this many. */
#define NW_MAX_TASK_SLOTS 65536
/* Entries after those (the overflow part of task_slots) for tracked tasks whose own slot another
 * tracked task holds, handed out in order within a generation and named by the task's storage
 * (task_overflow). Only tasks alive together with a pid equal modulo the slot count take one. */
#define NW_OVERFLOW_SLOTS 8192
/* Entries of the per-CPU cache of preemption records (direct-mapped by pid). */
#define NW_PREEMPT_CACHE 16

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
  NW_KIND_CONTENTION = 10, /* id = pid of the benchmark's own task that ran while another of its
                              tasks waited on that CPU; comm = its comm */
  NW_KIND_FAULT = 11,      /* id = 0: CPU time tracked tasks spent handling page faults */
  NW_KIND_STEAL = 12,      /* id = 0: hypervisor steal while a tracked task ran or waited */
  NW_KIND_THROTTLE = 13,   /* id = the throttled cgroup's kernfs id (its inode number on the
                              cgroup fs), low 32 bits: a tracked task runnable while its task group
                              (or an ancestor) had used up its CFS bandwidth quota */
  /* What ended a blocking span (the benchmark-wide span: no tracked task ran or was runnable),
   * known where the wake-up that ended it was issued (sched_waking, in the waker's context). Each
   * span is charged to NW_KIND_BLOCK (the total) and to exactly one of these, with equal time. */
  NW_KIND_BLOCK_SLEEP = 14, /* id = 0: woken by a timer (a sleep, a timeout) */
  NW_KIND_BLOCK_IO = 15,    /* id = IRQ number, or NW_BLOCK_IO_SOFTIRQ | softirq vector when no
                               device IRQ was seen on that CPU: woken in a device IRQ or in the
                               softirq that completes its work (BLOCK, NET_RX, ...) */
  NW_KIND_BLOCK_WAIT = 16,  /* id = pid of the waking task; comm = its comm: woken by a task */
  NW_KIND_BLOCK_OTHER = 17, /* id = 0: anything else (an IPI, an unseen wake-up) */
  /* Not a source: per span that a sleep ended, how late the timer fired (its expiry less the
   * requested time: timer slack, interrupt latency). count = such spans, time = the lateness. */
  NW_KIND_SLEEP_LATE = 18,
};
#define NW_BLOCK_IO_SOFTIRQ 0x80000000u

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
  /* With --windows: 0 outside any marked window, k + 1 inside window k of the process run (see
   * below). Always 0 otherwise. */
  __u32 window;
  /* The CPU the time was taken on: the hash holds one entry per source and CPU, each written by
   * its own CPU only (set by hash_add; user space sums or splits by it). */
  __u32 cpu;
};

/* One source's figures on one CPU. */
struct nw_noise_val {
  __u64 count;
  __u64 time_ns;
  __u64 max_ns;
};

/* Sources with a fixed, small key space are counted in a per-CPU array (BPF_MAP_TYPE_PERCPU_ARRAY
 * of nw_noise_val) instead of the hash: no hashing on the hottest paths. Index layout: */
#define NW_SOFTIRQ_SLOTS 16
/* Hard IRQ numbers below this have a slot (a VM's and most servers' devices); higher ones go to
 * the hash. An I/O completion's two programs were ~530 ns with the hash's lookup in on_irq_exit. */
#define NW_IRQ_SLOTS 256
enum nw_fixed_slot {
  NW_FIXED_BLOCK = 0,
  NW_FIXED_WAKEUP_IDLE = 1,
  NW_FIXED_VECTOR = 2,                                  /* + enum nw_vector */
  NW_FIXED_SOFTIRQ = NW_FIXED_VECTOR + NW_VEC_COUNT,    /* + softirq vector number */
  NW_FIXED_FAULT = NW_FIXED_SOFTIRQ + NW_SOFTIRQ_SLOTS, /* updated atomically: fault handling is preemptible */
  NW_FIXED_STEAL = NW_FIXED_FAULT + 1,
  NW_FIXED_IRQ = NW_FIXED_STEAL + 1, /* + hard IRQ number */
  NW_FIXED_COUNT = NW_FIXED_IRQ + NW_IRQ_SLOTS,
};

/* One entry of the per-CPU preemption cache: a record keyed like the noise hash, kept out of it
 * until another preempting task needs the entry (then it is added to the hash). */
struct nw_noise_entry {
  struct nw_noise_key key;
  struct nw_noise_val val;
};

/* Per-CPU counters of the probe itself (BPF_MAP_TYPE_PERCPU_ARRAY, one element). */
struct nw_probe_stats {
  __u64 lost_noise_keys; /* noise_map full: an event could not be recorded */
  __u64 lost_tracked;    /* a new thread or child not followed: no memory for its task storage, or
                            the overflow part of task_slots is full */
};

/* Phase of a tracked task, as the scheduler tracepoints last showed it. NEW: not seen yet (its
 * state shows at its next switch or wake-up); it does not count as active. */
enum nw_phase {
  NW_PHASE_NEW = 0,
  NW_PHASE_RUNNING = 1,
  NW_PHASE_WAITING = 2,
  NW_PHASE_BLOCKED = 3,
  /* runnable but off the runqueue's reach: its group is CFS-bandwidth throttled */
  NW_PHASE_THROTTLED = 4
};

/* nw_task_info.flags */
enum nw_task_flag {
  /* The held child before its execve: its CPU time up to the exec is noisewatch's (pre-exec code,
   * tearing down noisewatch's address space), measured into cpu_base segment by segment. */
  NW_TASK_HELD = 1,
  /* A thread past sched_process_exit: still tracked until its last switch (its CPU time and its
   * activity count), but its switches no longer count (the kernel folds a thread's switch counts
   * into the process at exit, before its last switch). */
  NW_TASK_EXITING = 2,
  /* In a page fault but off-CPU (the fault sleeps, or the task was preempted in it): fault_start
   * holds the fault's CPU time so far instead of a start time. */
  NW_TASK_FAULT_PAUSED = 4,
};

/* A tracked task: an element of the `task_slots` array, at index pid & slot_mask or, when another
 * tracked task holds that slot, in the array's overflow part at the index its `task_overflow` task
 * storage holds (user space inserts that with a pidfd as key). User space inserts NW_PHASE_NEW
 * entries. An entry counts only while its `gen` equals the program's `generation` global: bumping
 * that forgets every tracked task at once. */
struct nw_task_info {
  __u32 phase;
  __u32 cpu; /* runqueue CPU while waiting */
  __u32 gen;
  __u32 pid;            /* which task holds the slot */
  __u32 flags;          /* enum nw_task_flag */
  __u32 throttle_epoch; /* NW_PHASE_THROTTLED: its CPU's throttle_epoch when it was throttled */
  /* se.sum_exec_runtime that is not the benchmark's: for the held child, what it had run when it
   * was tracked (user space, from its CPU clock) plus its run time from then to its execve;
   * 0 for the benchmark's own threads and children (their runtime starts at 0 at fork). */
  __u64 cpu_base;
  /* ktime when the held child last got the CPU before its execve, or when it was tracked (it may
   * still be running then); 0 once a slice is measured until the next switch-in */
  __u64 held_since;
  __u64 held_steal; /* its runqueue's steal then (rq_steal; 0: unknown) */
  __u64 call_depth; /* --windows-at: calls of the function open on this thread */
  /* The page fault being handled: ktime of its start on this slice (or, paused, its CPU time so
   * far) and the CPU's intr_total then; 0 outside a fault. */
  __u64 fault_start;
  __u64 fault_intr0;
  /* se.sum_exec_runtime at its last switch-out this probe saw (0: none yet): what it ran since
   * then, through switches it did not see, bounds when it got a CPU back (resync). */
  __u64 rt_out;
};

/* Bookkeeping per CPU (BPF_MAP_TYPE_ARRAY by CPU, memory-mapped by user space). User space writes
 * `watched` and `sibling` and seeds the frequency fields before attaching, reads the frequency
 * fields and switch counts, and clears `waiting` between repetitions, field by field through the
 * mapping (a whole-element write would race with the programs). Configuration lives here, not in
 * a map of its own, so the context-switch path does one lookup per CPU. Array elements are contiguous and need not
 * start on a cache line: the padding keeps the fields written on every event at least a cache line away from the
 * neighbouring CPUs' (no false sharing between CPUs). 320 bytes. */
struct nw_cpu_state {
  __u32 watched;        /* charge everything on this CPU but its measurer (check, agent); user
                           space opens and closes it (check: the spinner's own window) */
  __u32 sibling;        /* SMT sibling CPU + 1, or 0 when none */
  __u32 watch_measurer; /* watched CPU: pid of the thread measuring it (check's spinner), never
                           charged there; 0 when none (agent) */
  __u32 pad_cfg;
  __u64 watch_min_ns; /* watched CPU: events of less own time are not charged (check: its gap
                         threshold, since shorter events cannot show in the spinner's gaps) */
  /* Watched CPU: ktime and intr_total at its last context switch (0: none since it opened).
   * Written at every switch of a watched CPU, by that CPU only: no false sharing in this line. */
  __u64 watch_mark_ns, watch_mark_intr;
  /* CFS bandwidth throttling of tracked tasks on this CPU: one episode from the first tracked
   * task's throttled switch-out to the first switch-in after the group's unthrottle, charged
   * once however many of them it held (written on throttle events only). */
  __u64 throttle_since; /* rq clock at the episode's start */
  __s32 throttled_n;    /* tracked tasks throttled in the open episode (0: none open) */
  __u32 throttle_cg;    /* the throttled group's id (as NW_KIND_THROTTLE's) */
  __u32 throttle_epoch; /* episodes closed so far: a task's throttle_epoch names its episode */
  __u32 pad_throttle;
  __u64 throttle_intr0; /* intr_total at the episode's start: its interrupts are charged as such */
  /* written on every event */
  __u64 intr_total;    /* own time of all interrupt-like events on this CPU, ever */
  __u64 mark_ts;       /* start of the current task's charged span */
  __u64 mark_intr;     /* intr_total at mark_ts */
  __u64 steal_mark;    /* hypervisor steal the scheduler had accounted here at mark_ts (ns) */
  __u64 tracked_since; /* when the running tracked task got the CPU (0: not tracked) */
  __s64 waiting;       /* tracked tasks runnable on this CPU but not running */
  __u64 irq_start, irq_intr0;
  __u64 vec_start, vec_intr0;
  __u64 softirq_start, softirq_intr0;
  __u32 curr_pid;
  __u32 curr_tracked;
  char curr_comm[NW_COMM_LEN]; /* for SMT charges and for a switch the probe did not see */
  __u64 smt_charged_until;
  /* Interrupt-like time (IRQ, vector, softirq, NMI) taken while a tracked task ran here: the
   * scheduler's runtime includes it on kernels without IRQ_TIME_ACCOUNTING. Cumulative. */
  __u64 intr_running;
  /* Context switches of tracked tasks on this CPU, counted the kernel's way (nvcsw / nivcsw) so
   * user space can check them against getrusage(): voluntary = the task blocked, involuntary = it
   * was still runnable (preempted or yielded). Cumulative; user space takes differences. */
  __u64 switches_voluntary, switches_involuntary;
  /* Switches this probe did not see where they touched the benchmark on this CPU (found by
   * resync: a tracked task left or arrived unseen, or one waited here). The time around them is
   * accounted by resync's reconstruction, not by events. Cumulative. */
  __u64 switches_unseen;
  /* written on frequency changes */
  __u64 freq_khz, freq_ts, freq_khz_ns, freq_changes; /* kHz*ns integral up to freq_ts */
  /* Interrupt context on this CPU, for the cause of a wake-up issued here: the open levels'
   * identities (valid while their *_start is set), and the last device IRQ seen + 1 (0: none). */
  __u32 irq_last, vec_id, softirq_vec;
  __u32 wake_kind; /* the cause of the last wake-up of a blocked tracked task issued here */
  __u32 wake_id;
  /* A wake-up another CPU queued on this CPU's wake list while the benchmark blocked: that CPU
   * + 1, whose wake_* fields hold the waker's context (0: none pending). */
  __u32 wake_queued_from;
  char wake_comm[NW_COMM_LEN];
  __u64 wake_late_ns;  /* NW_KIND_BLOCK_SLEEP: how late its timer fired */
  __u64 timer_late_ns; /* the hrtimer expiring now on this CPU: how late it fired */
};

/* ---- marked windows (--windows) and the timeline (--timeline) ---- */

/* Windows one process run can mark; later ones are counted (windows_dropped) and not measured. */
#define NW_MAX_WINDOWS 16384
/* Bytes of a marker-fd line the probe reads: "begin " and a label of up to 16 characters. */
#define NW_MARKER_LINE 24
#define NW_LABEL_LEN 16

/* nw_window.flags */
enum nw_window_flag {
  NW_WIN_LABEL = 1,         /* `label` holds an integer label (USDT argument) */
  NW_WIN_TEXT_LABEL = 2,    /* `text` holds the label written after "begin " on the marker fd */
  NW_WIN_IMPLICIT_END = 4,  /* no end marker: closed by the next begin */
  NW_WIN_FROM_FD = 8,       /* begun by a marker-fd line (else by the USDT probe) */
  NW_WIN_FROM_EXEC = 16,    /* --windows-exec: a process that ran the command (`text`: its comm) */
  NW_WIN_TENTATIVE = 32,    /* --windows-exec: begun at a fork; a window once the child execs the command */
  NW_WIN_DISCARDED = 64,    /* --windows-exec: that child exec'd something else or exited: not a window */
  NW_WIN_FROM_CALL = 128,   /* --windows-at: a call of the function (the outermost on its thread) */
  NW_WIN_AWAIT_TIMER = 256, /* --windows gbench: begun, its opener's timer not started yet (no ResumeTiming) */
  NW_WIN_SHARED = 512,      /* --windows gbench: other threads joined it (->Threads(N)): its gaps are
                               counted in paused_ns, not cut out of it */
};

/* One marked window (BPF_MAP_TYPE_ARRAY indexed by the window's number in its process run).
 * Times are CLOCK_MONOTONIC (bpf_ktime_get_ns), taken at the marker. */
struct nw_window {
  __u64 begin_ns;
  __u64 end_ns; /* 0 while open */
  __s64 label;
  __u32 flags; /* enum nw_window_flag */
  __u32 pid;   /* the task that marked the begin */
  char text[NW_LABEL_LEN];
  /* --windows gbench: the gaps in it while its opener's timer was stopped (State::PauseTiming to
   * ResumeTiming), and how many; 0 otherwise. Its timed time is end - begin - paused_ns. */
  __u64 paused_ns;
  __u32 pauses;
  __u32 pad;
};

/* One timeline event (BPF ring buffer): a charged span at or above the threshold. `end_ns` is
 * CLOCK_MONOTONIC when it was charged; the span is [end_ns - dur_ns, end_ns]. */
struct nw_tl_event {
  __u64 end_ns;
  __u64 dur_ns;
  __u32 kind; /* enum nw_kind; id and comm as in nw_noise_key */
  __u32 id;
  __u32 cpu;
  __u32 window; /* as nw_noise_key.window */
  char comm[NW_COMM_LEN];
};

/* Per-CPU rate bound of the timeline (BPF_MAP_TYPE_PERCPU_ARRAY, one element). */
struct nw_tl_rate {
  __u64 since;        /* start of the current one-second budget */
  __u64 count;        /* events written in it */
  __u64 dropped_rate; /* over the per-CPU rate bound: not written, counted */
  __u64 dropped_full; /* the ring buffer was full: not written, counted */
};

#endif
