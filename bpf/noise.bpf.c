// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
// noisewatch kernel side: charges everything that takes time from tracked tasks (the benchmark,
// its threads and children) to a named source, aggregated in-kernel per CPU.
//
// What is charged to what: docs/contracts.md, "Accounting model"; how this file does it:
// docs/design.md, "What is charged, and to whom". Nested time counts once through the CPU's
// intr_total: every interrupt-like event adds its own time to it, and each enclosing level
// (softirq, preempting slice) subtracts its growth during its span, at any nesting depth.
// Hot paths matter: a context-switch storm runs on_switch and on_wakeup a few hundred thousand
// times a second, and every nanosecond there is taken from the benchmark. So: tracked tasks are
// found in a pid-indexed array (an inlined lookup, no helper call, no hashing); blocking, idle
// wake-ups, APIC vectors and softirqs are counted in fixed per-CPU slots; preemption records go
// through a small per-CPU cache before the hash; task fields are read directly through BTF (no
// bpf_probe_read calls); per-CPU configuration shares the per-CPU state's array element; and
// nothing is streamed to user space.
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "noise.h"

#define TASK_DEAD_STATE 0x80  // TASK_DEAD in include/linux/sched.h (a macro: not in BTF)

char LICENSE[] SEC("license") = "Dual BSD/GPL";

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  // user space: pid_max rounded up to a power of two, then the overflow part
  __uint(max_entries, NW_MAX_TASK_SLOTS + NW_OVERFLOW_SLOTS);
  __type(key, __u32);
  __type(value, struct nw_task_info);
} task_slots SEC(".maps");

// Tracked tasks whose slot another tracked task already holds (pids equal modulo the slot count):
// the index of their entry in task_slots' overflow part. Every tracked task's entry is an element
// of the one array, so the programs hold one kind of pointer for it: a second kind (the task
// storage's own value) multiplied the paths the verifier walks through on_switch, whose
// verification is the largest part of noisewatch's start-up. (With the arriving task looked up
// late, see on_switch: 13,641 -> 6,166 instructions processed, 15-21 -> 7-8 ms.)
struct {
  __uint(type, BPF_MAP_TYPE_TASK_STORAGE);
  __uint(map_flags, BPF_F_NO_PREALLOC);
  __type(key, int);
  __type(value, __u32);
} task_overflow SEC(".maps");

const volatile __u32 slot_mask = NW_MAX_TASK_SLOTS - 1;
// The same mask as an immediate in the instructions, where user space added it to the kernel's
// BTF as this enum's value (src/probes/load_constants.h): loaded from .rodata, the task slot's
// address waited for that load's cold miss before its own (on_wakeup ~20 ns a call on this
// project's VMs, on_switch a few). The .rodata copy serves a BTF without it.
enum nw_load_constant { NW_LOAD_SLOT_MASK = 0 };
static __always_inline __u32 slots_mask(void) {
  if (bpf_core_enum_value_exists(enum nw_load_constant, NW_LOAD_SLOT_MASK))
    return bpf_core_enum_value(enum nw_load_constant, NW_LOAD_SLOT_MASK);
  return slot_mask;
}
// Testing knob (NOISEWATCH_TEST_UNSEEN_COMM): tasks of this name are untraced, as this project's
// VMs leave their init agent's threads (see resync): switches to or from them and wake-ups issued
// while one is current are not seen. Only the e2e tests set it; unset, the verifier drops the
// checks (a constant read from frozen .rodata), so they cost nothing.
const volatile bool test_unseen_on = false;
const volatile char test_unseen_comm[NW_COMM_LEN] = {};
// Entries from an older generation are ignored (see struct nw_task_info).
__u32 generation = 1;
// Overflow entries handed out this generation (the next one is slot_mask + 1 + overflow_tasks);
// while 0, nothing needs looking up in task_overflow.
__u64 overflow_tasks;

// The benchmark as a whole (all tracked tasks; user space clears these between repetitions):
// how many of its tasks are running or runnable, and since when none is (0: some is, or it has
// not started yet). A fall to 0 opens a blocking span, the next rise closes it; a span still open
// at the end (after the last exit) is never recorded, so blocking <= wall by construction.
__s64 active_tasks;
__u64 idle_since;
// The CPU (+ 1) where the last wake-up of a blocked tracked task was issued while a blocking span
// was open: its nw_cpu_state holds that wake-up's cause (0: none). Wake-ups of several tracked
// tasks at once may race here; each is a true cause of the span's end, and one is kept.
__u64 cause_cpu;
// CPU time of the tracked tasks that ended, from the benchmark's execve on (sum_exec_runtime at
// their exit and at their last switch, less cpu_base).
__u64 cpu_ns;
// The benchmark's process (the held child's pid; user space sets it at tracking) and when the last
// of its threads made its last switch (bpf_ktime_get_ns: CLOCK_MONOTONIC, as user space reads it).
// That is when the process ended: noisewatch learns it later, from its pidfd, and a noisewatch
// throttled by the benchmark's CPU quota, or kept off its CPU, learned it up to a quota period
// late (tests/e2e/wall_end_e2e_test.cpp). 0: not yet.
__u32 bench_tgid;
__u64 bench_exit_ns;
// Keys inserted into the noise hash so far, counted after each insert: user space skips its
// scan of a hash it emptied when none came since (src/probes/noise_probe.cpp, collect).
__u64 noise_inserts;

// Every source that has no fixed slot, one entry per source and CPU (the key holds the CPU, and
// only that CPU writes the entry: no atomics, as with a per-CPU hash). A plain hash rather than a
// per-CPU one: preallocating a per-CPU hash makes one per-CPU allocation per element, ~10 ms of
// noisewatch's start-up here for 16,384 keys; this one is a single allocation (user space sizes
// it to the CPUs). Preallocated under --windows: without it an insert from a tracepoint draws on
// the kernel's allocation cache, which is refilled asynchronously, and a burst of new keys (a
// window marker starts a new set) found it empty and lost records (lost_events 13 in one windows
// e2e run). Without windows user space drops the preallocation where the kernel allows it
// (src/probes/noise_probe.cpp): it cost every start-up 6-8 ms.
struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, NW_MAX_NOISE_KEYS);
  __type(key, struct nw_noise_key);
  __type(value, struct nw_noise_val);
} noise SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, NW_FIXED_COUNT);
  __type(key, __u32);
  __type(value, struct nw_noise_val);
} fixed SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, NW_PREEMPT_CACHE);
  __type(key, __u32);
  __type(value, struct nw_noise_entry);
} preempt_cache SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(map_flags, BPF_F_MMAPABLE);
  __uint(max_entries, NW_MAX_CPUS);
  __type(key, __u32);
  __type(value, struct nw_cpu_state);
} cpus SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct nw_probe_stats);
} probe_stats SEC(".maps");

static __always_inline struct nw_cpu_state *cpu_at(__u32 cpu) { return bpf_map_lookup_elem(&cpus, &cpu); }

// Scheduler-side timestamps come from the scheduler's own clock, rq->clock (sched_clock), as
// update_rq_clock() last set it: the switch and every wake-up path update it just before their
// tracepoint, so it is fresh there, and reading it is a load. bpf_ktime_get_ns() costs ~65 ns on
// a KVM guest (an indirect call into the clocksource, under retpolines): three of those per
// round trip of a context-switch storm were most of the probe's cost. One clock for all
// scheduler timestamps keeps spans comparable across CPUs (sched_clock is synchronised where
// TSCs are). When a wake-up preempts, the scheduler skips its next clock update, so the switch
// that follows reads the wake-up's time: the preempting task is then charged from the wake-up
// on, scheduling latency included, which is the cost it caused. Interrupt programs measure
// durations only and keep ktime.
// The runqueue is reached through the task (its group scheduling entity's cfs_rq, whose rq is
// the CPU the task is queued on or runs on): the per-CPU `runqueues` symbol would be simpler but
// needs CONFIG_KALLSYMS_ALL, which kernels such as this project's VMs do not have. Without
// CONFIG_FAIR_GROUP_SCHED there is no cfs_rq->rq, and every scheduler timestamp is ktime instead
// (decided once, at load time, so the two clocks never mix: a task whose runqueue cannot be
// reached gives 0, which every span check skips, not a reading of the other clock).
// The walk starts from an untrusted copy of the task pointer (bpf_rdonly_cast: a register move
// once verified, the same loads at run time): each pointer loaded from a trusted one costs the
// verifier up to four linear searches of the kernel's BTF (btf_nested_type_is_trusted, ~130k
// types) on every path that reaches it, and the verifier's time is noisewatch's start-up. Here
// that was on_wakeup 4.9 -> 2.0 ms, on_exec 2.9 -> 0.6, on_migrate 1.9 -> 0.6. The kfunc arrived in
// Linux 6.2: user space sets has_rdonly_cast where the kernel's BTF has it (a weak extern, so
// that the object loads where it does not; a dead call to an unresolved weak kfunc is accepted
// from 5.16). Without it the walk starts from the task pointer itself: the same loads, only the
// verification is slower (6.1 does not search the BTF for trust anyway).
const volatile bool has_rdonly_cast = false;
extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym __weak;

static __always_inline struct task_struct *untrusted(struct task_struct *t) {
  if (!has_rdonly_cast) return t;
  return bpf_rdonly_cast(t, bpf_core_type_id_kernel(struct task_struct));
}

static __always_inline struct rq *rq_of(struct task_struct *t) {
  if (!bpf_core_field_exists(struct cfs_rq, rq)) return 0;
  struct task_struct *u = untrusted(t);
  struct cfs_rq *cfs = u->se.cfs_rq;
  return cfs ? cfs->rq : 0;
}

static __always_inline __u64 rq_clock(struct rq *rq) {
  if (!bpf_core_field_exists(struct cfs_rq, rq)) return bpf_ktime_get_ns();
  return rq ? rq->clock : 0;
}

static __always_inline __u64 sched_now(struct task_struct *t) { return rq_clock(rq_of(t)); }

// Hypervisor steal on a runqueue's CPU, in ns, as the scheduler has accounted it so far (it
// takes it out of the task clock at every clock update, so a task's runtime never contains it).
// Precise where /proc/stat rounds to 10 ms. 0 without CONFIG_PARAVIRT_TIME_ACCOUNTING (Debian 12's
// own kernels).
static __always_inline __u64 rq_steal(struct rq *rq) {
  if (!bpf_core_field_exists(struct rq, prev_steal_time_rq) || !rq) return 0;
  return rq->prev_steal_time_rq;
}

// The key of one-element arrays, read from .rodata rather than put on each caller's stack.
static const __u32 zero_key = 0;

static __always_inline struct nw_probe_stats *stats(void) { return bpf_map_lookup_elem(&probe_stats, &zero_key); }

// `pid`: t->pid, when the caller has it (each read of a task field is a load of its own).
static __always_inline struct nw_task_info *tracked_pid(struct task_struct *t, __u32 pid) {
  __u32 idx = pid & slots_mask();
  struct nw_task_info *ti = bpf_map_lookup_elem(&task_slots, &idx);
  if (ti && ti->pid == pid && ti->gen == generation) return ti;
  if (!overflow_tasks) return 0;
  __u32 *at = bpf_task_storage_get(&task_overflow, t, 0, 0);
  if (!at) return 0;
  idx = *at;
  ti = bpf_map_lookup_elem(&task_slots, &idx);
  return ti && ti->pid == pid && ti->gen == generation ? ti : 0;
}

static __always_inline struct nw_task_info *tracked_info(struct task_struct *t) { return tracked_pid(t, t->pid); }

// Is `comm` (a task's name, NUL-padded) the name user space configured in `want`?
static __always_inline bool same_comm(const char *comm, const volatile char *want) {
  for (int i = 0; i < NW_COMM_LEN; ++i) {
    if (comm[i] != want[i]) return false;
    if (!comm[i]) break;
  }
  return true;
}

// (Callers test test_unseen_on first: that keeps even the argument's evaluation, a helper call for
// the current task, out of the programs when the knob is unset.)
static __always_inline bool test_unseen(struct task_struct *t) { return same_comm(t->comm, test_unseen_comm); }

// Does time taken on this CPU now delay a tracked task? (During a throttle episode it delays the
// throttled ones: an interrupt then is charged as itself and left out of the episode.)
static __always_inline bool affected(struct nw_cpu_state *s) {
  return s->curr_tracked || s->waiting > 0 || s->watched || s->throttled_n > 0;
}

#include "task_times.bpf.h"
#include "windows.bpf.h"
#include "timeline.bpf.h"  // after windows.bpf.h: an event is keyed by the window

static __always_inline void add_to(struct nw_noise_val *v, __u64 count, __u64 time, __u64 max) {
  v->count += count;
  v->time_ns += time;
  if (max > v->max_ns) v->max_ns = max;
}

// A new hash entry's first value, read from .rodata rather than built on each caller's stack.
static const struct nw_noise_val zero_val = {};

static __always_inline void hash_add(struct nw_noise_key *key, __u64 count, __u64 time, __u64 max) {
  key->cpu = bpf_get_smp_processor_id();
  struct nw_noise_val *v = bpf_map_lookup_elem(&noise, key);
  if (!v) {
    bpf_map_update_elem(&noise, key, &zero_val, BPF_NOEXIST);
    v = bpf_map_lookup_elem(&noise, key);
    if (!v) {
      struct nw_probe_stats *st = stats();
      if (st) st->lost_noise_keys += count;
      return;
    }
    __sync_fetch_and_add(&noise_inserts, 1);
  }
  add_to(v, count, time, max);
}

static __always_inline void record(__u32 kind, __u32 id, const char *comm, __u64 dur) {
  struct nw_noise_key key = {};
  key.kind = kind;
  key.id = id;
  key.window = window_now();
  if (comm) __builtin_memcpy(key.comm, comm, NW_COMM_LEN);
  hash_add(&key, 1, dur, dur);
  tl_emit(kind, id, comm, dur);
}

// The source a fixed slot stands for (user space: fixed_slot_key). Call sites pass constant
// slots, or a vector/softirq base plus a number: this folds away.
static __always_inline void fixed_source(__u32 slot, __u32 *kind, __u32 *id) {
  *id = 0;
  if (slot == NW_FIXED_BLOCK) {
    *kind = NW_KIND_BLOCK;
  } else if (slot == NW_FIXED_WAKEUP_IDLE) {
    *kind = NW_KIND_WAKEUP_IDLE;
  } else if (slot == NW_FIXED_FAULT) {
    *kind = NW_KIND_FAULT;
  } else if (slot == NW_FIXED_STEAL) {
    *kind = NW_KIND_STEAL;
  } else if (slot >= NW_FIXED_IRQ) {
    *kind = NW_KIND_IRQ;
    *id = slot - NW_FIXED_IRQ;
  } else if (slot < NW_FIXED_SOFTIRQ) {
    *kind = NW_KIND_VECTOR;
    *id = slot - NW_FIXED_VECTOR;
  } else {
    *kind = NW_KIND_SOFTIRQ;
    *id = slot - NW_FIXED_SOFTIRQ;
  }
}

// Sources with a fixed key (enum nw_fixed_slot). A slot is only written from one context level
// (scheduler tracepoints, hard IRQ, or softirq), so a nested program never updates it halfway.
// With --windows the slot's source goes to the hash with the window in its key instead.
static __always_inline void record_fixed(__u32 slot, __u64 dur) {
  if (windows_on || timeline_on) {
    __u32 kind, id;
    fixed_source(slot, &kind, &id);
    if (windows_on) {
      record(kind, id, 0, dur);
      return;
    }
    tl_emit(kind, id, 0, dur);
  }
  struct nw_noise_val *v = bpf_map_lookup_elem(&fixed, &slot);
  if (v) add_to(v, 1, dur, dur);
}

// A blocking span's cause, charged the span's whole time (so the parts sum to the total, window
// by window). `from`: the CPU (+ 1) holding the cause of the wake-up that ended it, 0 for a span
// ended by a task the probe saw running without seeing it woken (blocking:other). Straight to the
// hash, not to the timeline, which shows the span once, as blocking. A global function (verified
// once, not on every path of the switch program that may end a span).
__noinline int block_cause(__u32 from, __u64 dur) {
  // One key on the stack, the timer's lateness first (each key is 32 bytes of a frame that counts
  // against the verifier's 512 for on_switch's deepest call chain).
  struct nw_noise_key key = {.kind = NW_KIND_SLEEP_LATE, .window = window_now()};
  struct nw_cpu_state *w = from ? cpu_at(from - 1) : 0;
  __u32 kind = w ? w->wake_kind : 0;
  if (kind == NW_KIND_BLOCK_SLEEP && w->wake_late_ns) hash_add(&key, 1, w->wake_late_ns - 1, w->wake_late_ns - 1);
  if (kind) {
    key.kind = kind;
    key.id = w->wake_id;
    if (kind == NW_KIND_BLOCK_WAIT) __builtin_memcpy(key.comm, w->wake_comm, NW_COMM_LEN);
  } else {
    key.kind = NW_KIND_BLOCK_OTHER;
  }
  hash_add(&key, 1, dur, dur);
  return 0;
}

// A task's name as two words: copied with two loads, compared with two compares.
struct nw_comm {
  __u64 w[2];
};

// (Word loads through a pointer to words: copied with memcpy from `t->comm + 8`, clang loses the
// word alignment and emits eight byte loads, shifts and ors, ~35 instructions on on_switch's
// storm path.)
static __always_inline struct nw_comm comm_of(struct task_struct *t) {
  const __u64 *w = (const __u64 *)t->comm;
  struct nw_comm c = {.w = {w[0], w[1]}};
  return c;
}

// The task leaving the CPU at a switch, as the out-of-line parts of on_switch need it (at most
// five arguments reach a BPF function). Written, only where one of them is called, into this
// CPU's entry of `leaving_at` rather than onto on_switch's stack: the verifier adds up the stack of
// every frame of a call chain against 512 bytes, three of these on on_switch's frame were 144 of
// them, and 6.18.44 refused --timeline (608 bytes; another 6.18 build had loaded it).
struct nw_leaving {
  __u64 now;  // the switch's scheduler clock
  __u32 cpu;
  __u32 pid;
  __u32 tracked;
  __u32 pad;
  struct nw_comm comm;
};

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, NW_MAX_CPUS);  // user space: the possible CPUs
  __type(key, __u32);
  __type(value, struct nw_leaving);
} leaving_at SEC(".maps");

static __always_inline struct nw_leaving *leaving(__u64 now, __u32 cpu, struct task_struct *prev, __u32 pid,
                                                  bool tracked) {
  struct nw_leaving *lv = bpf_map_lookup_elem(&leaving_at, &cpu);
  if (!lv) return 0;
  lv->now = now;
  lv->cpu = cpu;
  lv->pid = pid;
  lv->tracked = tracked;
  lv->comm = comm_of(prev);
  return lv;
}

// A cache entry's record moves to the hash when another source needs the entry: rare (8 times in
// 300 k round trips of a switch storm), so out of line, verified once instead of on every path of
// on_switch that records. It takes the entry's index, not the entry: a global function's pointer
// argument is plain memory to the verifier, which before Linux 6.2 or so refuses it as a map key
// ("R2 type=mem expected=fp, pkt, pkt_meta, map_key, map_value"); looked up here it is a map value.
__noinline int evict_cached(__u32 idx) {
  struct nw_noise_entry *e = bpf_map_lookup_elem(&preempt_cache, &idx);
  if (e && e->val.count) hash_add(&e->key, e->val.count, e->val.time_ns, e->val.max_ns);
  return 0;
}

// Preemption or contention by task `pid`. Called from sched_switch only (interrupts off), so the
// entry cannot be rewritten under us; a different task (or kind) evicts the entry into the hash.
// Inlined: in a switch storm it runs at every switch, where a call costs more than the ~1 ms of
// verification it would save at start-up.
static __always_inline void record_cached(__u32 kind, __u32 pid, const __u64 *comm, __u64 dur) {
  __u32 idx = pid & (NW_PREEMPT_CACHE - 1);
  struct nw_noise_entry *e = bpf_map_lookup_elem(&preempt_cache, &idx);
  if (!e) return;
  // The name's two words (and the window) are loaded where they are compared or stored, not
  // before the calls: every value kept across a call is a stack slot of on_switch's, and its frame
  // counts against the verifier's 512 bytes for the whole call chain.
  tl_emit_words(kind, pid, comm[0], comm[1], dur);
  __u64 *k = (__u64 *)e->key.comm;
  if (e->key.kind == kind && e->key.id == pid && k[0] == comm[0] && k[1] == comm[1] &&
      (!windows_on || e->key.window == window_now())) {
    add_to(&e->val, 1, dur, dur);
    return;
  }
  if (e->val.count) evict_cached(idx);
  e->key.kind = kind;
  e->key.id = pid;
  e->key.window = window_now();
  k[0] = comm[0];
  k[1] = comm[1];
  e->val.count = 1;
  e->val.time_ns = dur;
  e->val.max_ns = dur;
}

static __always_inline __u32 task_cpu_of(struct task_struct *p) { return p->thread_info.cpu; }

// One open interrupt level (start, intr_total at start) cut at `t`: the part before is closed
// as its own time (into intr_total, so enclosing levels still subtract it) without being
// charged, and the level restarts at `t`. A start older than any real handler is a leftover of an
// exit that fired before the probe was attached: dropped.
static __always_inline void split_level(struct nw_cpu_state *s, __u64 *start, __u64 *intr0, __u64 t) {
  if (!*start || t < *start) return;
  if (t - *start > 50000000ull) {
    *start = 0;
    return;
  }
  __u64 wall = t - *start, nested = s->intr_total - *intr0;
  if (wall > nested) s->intr_total += wall - nested;
  *start = t;
  *intr0 = s->intr_total;
}

// A tracked task woken inside an interrupt on the CPU it is queued on, where nothing tracked ran
// or waited: until this instant the interrupt delayed nobody (the task was blocked, which is
// blocking's time), from now on it delays the task. Without the cut, the part before the wake-up
// would count twice (in blocking and in irq/softirq), and be subtracted from a wait span that
// never contained it. Innermost level first (a hard IRQ or vector can sit inside a softirq).
static __always_inline void split_open_interrupts(struct nw_cpu_state *s) {
  if (affected(s) || !(s->irq_start | s->vec_start | s->softirq_start)) return;
  __u64 t = bpf_ktime_get_ns();
  split_level(s, &s->irq_start, &s->irq_intr0, t);
  split_level(s, &s->vec_start, &s->vec_intr0, t);
  split_level(s, &s->softirq_start, &s->softirq_intr0, t);
}

// A tracked task starts waiting on the CPU whose state is `s`. `steal`: that CPU's accounted
// steal now (its runqueue clock just updated), or 0 when unknown. (Callers look the state up: on
// the hot paths it is the one they already hold.)
static __always_inline void wait_begin(struct nw_cpu_state *s, __u64 now, __u64 steal) {
  if (__sync_fetch_and_add(&s->waiting, 1) == 0) {
    // The running task (another process, or one of the benchmark's own) starts taking time from
    // us only now.
    s->mark_ts = now;
    s->mark_intr = s->intr_total;
    if (steal) s->steal_mark = steal;
  }
}

static __always_inline void wait_end(struct nw_cpu_state *s) {
  if (s && s->waiting > 0) __sync_fetch_and_add(&s->waiting, -1);
}

// A tracked task became running or runnable. The rise from 0 closes the blocking span. (Two
// CPUs crossing 0 at once: the exchange hands the span start to exactly one of them, and a start
// written after a rise is overwritten by the next fall before any rise can read it.)
static __always_inline void activity_up(__u64 now) {
  if (__sync_fetch_and_add(&active_tasks, 1) != 0) return;
  __u64 since = __sync_lock_test_and_set(&idle_since, 0);
  __u32 from = (__u32)__sync_lock_test_and_set(&cause_cpu, 0);
  if (since && now > since) {
    record_fixed(NW_FIXED_BLOCK, now - since);
    block_cause(from, now - since);
  }
}

// A tracked task blocked or died.
static __always_inline void activity_down(__u64 now) {
  __s64 before = __sync_fetch_and_add(&active_tasks, -1);
  if (before == 1) {
    cause_cpu = 0;
    idle_since = now;
  } else if (before <= 0) {  // a rise this generation never saw (tracked while running): resync
    __sync_fetch_and_add(&active_tasks, 1);
  }
}

// The held child's run time before its execve, measured on its own slices (ktime: its rare
// events only; the scheduler's runtime for a running task is only as fresh as its last tick).
// Steal is not run time (the scheduler leaves it out of the task's runtime): the runqueue's
// count of it since the slice began (`st`, rq_steal now) is subtracted. An execve makes the host
// busy (a new address space to map), so the steal in the slice that ends at it is often the
// largest of the run; left in, it pushed the benchmark's CPU time below the work it did. At the
// execve the runqueue's count is as old as its clock's last update (up to a tick): steal since
// then stays in (the kernel keeps the hypervisor's own count out of BPF's reach on this kind of
// kernel: its per-CPU variables are not in kallsyms).
static __always_inline void held_slice_end(struct nw_task_info *ti, __u64 st) {
  if (!(ti->flags & NW_TASK_HELD) || !ti->held_since) return;
  __u64 t = bpf_ktime_get_ns();
  if (t > ti->held_since) {
    __u64 d = t - ti->held_since;
    __u64 stolen = ti->held_steal && st > ti->held_steal ? st - ti->held_steal : 0;
    ti->cpu_base += d > stolen ? d - stolen : 0;
  }
  ti->held_since = 0;
}

// A tracked task's page fault, measured as CPU time (ktime: only tracked tasks in a fault pay
// for it). The fault's clock stops while the task is off-CPU: a fault that waits for I/O is
// blocking's time (or whatever kept the task waiting), not the fault's. Interrupts taken during
// it are subtracted: they are charged as irq/softirq already.
static __always_inline __u64 fault_elapsed(struct nw_task_info *ti, struct nw_cpu_state *s, __u64 now) {
  __u64 wall = now > ti->fault_start ? now - ti->fault_start : 0;
  __u64 nested = s->intr_total - ti->fault_intr0;
  return wall > nested ? wall - nested : 0;
}

static __always_inline void fault_pause(struct nw_task_info *ti, struct nw_cpu_state *s) {
  ti->fault_start = fault_elapsed(ti, s, bpf_ktime_get_ns()) | 1;  // never 0 while in a fault
  ti->flags |= NW_TASK_FAULT_PAUSED;
}

static __always_inline void fault_resume(struct nw_task_info *ti, struct nw_cpu_state *s) {
  ti->fault_start = bpf_ktime_get_ns() - ti->fault_start;
  ti->fault_intr0 = s->intr_total;
  ti->flags &= ~NW_TASK_FAULT_PAUSED;
}

// Is an interrupt-like event of `own` time on this CPU charged? Whatever affected() says, except
// that a watched CPU's measurer cannot see events shorter than its threshold (watch_min_ns).
static __always_inline bool charged(struct nw_cpu_state *s, __u64 own) {
  return s->curr_tracked || s->waiting > 0 || s->throttled_n > 0 || (s->watched && own >= s->watch_min_ns);
}

// ---- watched CPUs (check's spinners, the agent) ------------------------------------------
// A watched CPU charges the CPU time of every task but its measurer, whose gaps these charges
// explain: check asks that what it charges on a CPU never exceed the gap time its spinner
// measured there. So spans here are timed with ktime, the spinner's own clock (CLOCK_MONOTONIC):
// rq->clock can lag behind a switch (a wake-up that preempts skips the next update, so the
// preempting task's span would start before the spinner stopped) and does not follow NTP's
// rate. Only while user space holds the CPU open (check: the spinner itself, from its first to
// its last clock read; nothing is half inside that window, since the spinner runs at both ends)
// and only spans of at least watch_min_ns, like the interrupt paths (charged()). A switch the
// probe does not see leaves the span of the task it put on the CPU to the next task seen
// leaving: still inside the same gap of the measurer.
// Global functions (not static, not inlined) are verified once, on their own, instead of once
// per path through on_switch: the rare branches live there, which keeps the switch program's
// verification (part of noisewatch's start-up) short. They cost a call where they are taken.
__noinline int watched_switch(struct nw_cpu_state *s, struct nw_leaving *lv) {
  if (!s || !lv) return 0;
  __u64 now = bpf_ktime_get_ns();
  if (lv->pid && lv->pid != s->watch_measurer && s->watch_mark_ns && now > s->watch_mark_ns) {
    __u64 span = now - s->watch_mark_ns;
    __u64 nested = s->intr_total - s->watch_mark_intr;
    span = span > nested ? span - nested : 0;
    if (span && span >= s->watch_min_ns) record_cached(NW_KIND_PREEMPT, lv->pid, lv->comm.w, span);
  }
  s->watch_mark_ns = now;
  s->watch_mark_intr = s->intr_total;
  return 0;
}

// ---- scheduler -------------------------------------------------------------------------

// SMT: at a switch on CPU s, the overlap of a non-idle task on one thread of the core with a
// tracked task on the other (o is the sibling's state).
__noinline int smt_switch(struct nw_cpu_state *s, struct nw_cpu_state *o, struct nw_leaving *lv) {
  if (!s || !o || !lv) return 0;
  __u64 now = lv->now;
  if (!lv->tracked && lv->pid && o->curr_tracked && o->tracked_since) {
    __u64 from = s->mark_ts > o->tracked_since ? s->mark_ts : o->tracked_since;
    if (s->smt_charged_until > from) from = s->smt_charged_until;
    if (now > from) record(NW_KIND_SMT, lv->pid, (const char *)lv->comm.w, now - from);
    s->smt_charged_until = now;
  } else if (lv->tracked && s->tracked_since && o->curr_pid && !o->curr_tracked) {
    __u64 from = s->tracked_since > o->mark_ts ? s->tracked_since : o->mark_ts;
    if (o->smt_charged_until > from) from = o->smt_charged_until;
    char comm[NW_COMM_LEN];
    __builtin_memcpy(comm, o->curr_comm, NW_COMM_LEN);
    if (now > from) record(NW_KIND_SMT, o->curr_pid, comm, now - from);
    o->smt_charged_until = now;
  }
  return 0;
}

__noinline int throttle_end(struct nw_cpu_state *s, struct nw_task_info *ti, __u64 now);

// A switch this probe never saw: the task it believed running on this CPU (curr_pid) is not the
// one leaving now. Some kernels leave switches untraced (seen on this project's VMs: every switch
// to or from the init agent's threads, for ftrace's own sched_switch events too, and every wake-up
// issued while one of them is current, even from an interrupt taken in it; a tracing program that
// could not run would do the same). An unseen switch put `prev` on the CPU; `ran`, its runtime
// since the last switch-out seen (else since it was last picked; final here), says when: the span
// before that is charged to the unseen task, the rest was `prev` running. Since the last pick is
// not enough: unseen tasks can also have taken the CPU from `prev` and given it back, and the time
// it ran before them would be charged as its blocking (an unseen sleeper waking every 300 us made
// blocking + CPU time 1.22x the wall time). (No usable runtime, as for real-time tasks: the unseen
// task is charged nothing.) `prev` has been running since then whatever this
// probe last saw of it: a tracked task still "waiting" would stay so for good, and every later
// slice of the benchmark on this CPU would be charged as kept waiting by itself; one still
// "blocked" (its wake-up unseen too: a sleeper whose timer fired while an agent thread ran) would
// leave the benchmark-wide count one short for the rest of the run, and the benchmark charged as
// blocking while it ran.
__noinline int resync(struct nw_cpu_state *s, struct nw_task_info *pi, struct nw_leaving *lv, __u64 ran) {
  if (!s || !lv) return 0;
  __u64 now = lv->now;
  __u64 t_in = now > ran ? now - ran : 0;
  if (t_in < s->mark_ts || t_in > now) t_in = s->mark_ts;
  __u64 nested = s->intr_total - s->mark_intr;
  if (pi || s->curr_tracked || s->waiting > 0 || s->throttled_n > 0) s->switches_unseen++;
  // (Not during a throttle episode, as in on_switch: the episode is charged the whole span.)
  if (s->waiting > 0 && s->throttled_n <= 0 && s->mark_ts && t_in > s->mark_ts && s->curr_pid) {
    __u64 span = t_in - s->mark_ts;
    span = span > nested ? span - nested : 0;
    if (span) record(NW_KIND_PREEMPT, s->curr_pid, s->curr_comm, span);
  }
  if (pi) {
    if (pi->phase == NW_PHASE_WAITING) wait_end(cpu_at(pi->cpu));
    else if (pi->phase == NW_PHASE_THROTTLED) throttle_end(cpu_at(pi->cpu), pi, t_in);
    else if (pi->phase != NW_PHASE_RUNNING)  // NEW or BLOCKED: running since t_in
      // Less every interrupt and steal since the last switch seen (the slice's runtime leaves
      // them out): the blocking span it ends must not reach into the time the task ran.
      activity_up(t_in > s->mark_ts + nested ? t_in - nested : s->mark_ts);
    pi->phase = NW_PHASE_RUNNING;
    pi->cpu = lv->cpu;
    // The held child's slice began with the unseen switch, `now - t_in` ago (a duration: the
    // scheduler's clock, held slices are ktime): task_leaves measures it from there.
    if (pi->flags & NW_TASK_HELD) {
      __u64 k = bpf_ktime_get_ns();
      pi->held_since = k > now - t_in ? k - (now - t_in) : k;
      pi->held_steal = 0;
    }
  }
  s->curr_pid = lv->pid;
  s->curr_tracked = pi ? 1 : 0;
  s->tracked_since = pi ? t_in : 0;
  s->mark_ts = t_in;
  s->mark_intr = s->intr_total;
  return 0;
}

// ---- CFS bandwidth throttling --------------------------------------------------------------
// A tracked task leaving its CPU still runnable because its task group (or an ancestor) used up
// its CPU quota (cpu.cfs_quota_us, cpu.max; a container's --cpus) is not waiting for another task:
// nothing may run it until the group's quota is refilled. That time is the quota's, charged to
// throttle:<the throttled group> at its next switch-in. Kernels that throttle per task (6.18: the
// task is dequeued on its way back to user space, p->throttled) say so on the task; older ones
// only on the group's runqueues (cfs_rq->throttle_count counts the throttled levels above and
// at the task's own).
// Is the task leaving throttled? Asked at every involuntary switch of a tracked task (two of
// five in a switch storm), so one or two direct loads, inline: through bpf_probe_read_kernel
// (BPF_CORE_READ) this question was half of on_switch's cost (~65 ns a call, 27 ns a switch).
// (task_struct.throttled arrived in 6.18. Read as task_struct's own member, not through a flavour
// type: each type CO-RE relocates costs libbpf a search of the kernel's ~130,000 types at
// start-up, ~0.75 ms; the committed vmlinux.h has it, whatever kernel builds noisewatch.)
static __always_inline bool throttle_suspect(struct task_struct *p) {
  struct task_struct *u = untrusted(p);
  if (bpf_core_field_exists(u->throttled)) return u->throttled;
  if (!bpf_core_field_exists(struct cfs_rq, throttle_count)) return false;
  struct cfs_rq *own = u->se.cfs_rq;
  return own && own->throttle_count > 0;
}

// The throttled group of a task throttle_suspect() answered yes for: its kernfs id (low 32 bits),
// or 1 when the level is not found. A throttled group's runqueue and those of all the groups
// below it have a throttle_count, so it is the highest one up the task's entity chain that has
// one. Out of line (a global function: the verifier checks it, loop included, once, not on every
// path of on_switch that reaches it; on_switch's verification is part of noisewatch's start-up).
// Where the group's name is, from its cfs_rq: cfs_rq.tg, then task_group.css.cgroup, cgroup.kn and
// kernfs_node.id (the cgroup's id). Byte offsets user space read from the kernel's BTF (see
// src/probes/kernel_btf_scan.h: as CO-RE they cost libbpf three searches of the kernel's types at
// every start-up, for a path that runs once per throttle). Not found: the group is unnamed.
const volatile bool group_name_ok = false;
const volatile __u32 off_cfs_rq_tg = 0, off_tg_cgroup = 0, off_cgroup_kn = 0, off_kn_id = 0;

// The task is the current one (at sched_switch, the task leaving): a trusted task pointer as a
// global function's argument needs Linux 6.9 (arg:trusted), and every read here is a plain read.
__noinline __u32 throttled_group(void) {
  void *p = (void *)bpf_get_current_task();
  if (!p) return 0;
  // A sched_entity's fields, at offsets relocated through the task's own `se` (a sched_entity root
  // of its own would cost libbpf a search of the kernel's types at every start-up).
  __u32 se_at = bpf_core_field_offset(struct task_struct, se);
  __u32 cfs_rq_at = bpf_core_field_offset(struct task_struct, se.cfs_rq) - se_at;
  __u32 parent_at = bpf_core_field_offset(struct task_struct, se.parent) - se_at;
  struct cfs_rq *top = 0;
  void *se = (void *)p + se_at;
  for (int level = 0; level < 8 && se; level++) {
    struct cfs_rq *rq = 0;
    bpf_probe_read_kernel(&rq, sizeof rq, se + cfs_rq_at);
    if (!rq || BPF_CORE_READ(rq, throttle_count) <= 0) break;
    top = rq;
    bpf_probe_read_kernel(&se, sizeof se, se + parent_at);
  }
  if (top && group_name_ok) {
    void *tg = 0, *cg = 0, *kn = 0;
    __u64 id = 0;
    bpf_probe_read_kernel(&tg, sizeof tg, (void *)top + off_cfs_rq_tg);
    if (tg) bpf_probe_read_kernel(&cg, sizeof cg, tg + off_tg_cgroup);
    if (cg) bpf_probe_read_kernel(&kn, sizeof kn, cg + off_cgroup_kn);
    if (kn) bpf_probe_read_kernel(&id, sizeof id, kn + off_kn_id);
    if ((__u32)id) return (__u32)id;
  }
  return 1;  // throttled, but the level was not found: an unnamed group (user space says so)
}

// A throttled task gets a CPU again: its group was unthrottled. The first of its episode's tasks
// to run closes the episode (charged once, from its start: interrupts in it were nobody's, as no
// tracked task ran or waited there); the others of the episode are runnable from now on and wait
// like any preempted task (the next switch charges whoever runs meanwhile). A later one of them
// ends that wait. `s`: the CPU it was throttled on. A global function, verified once.
__noinline int throttle_end(struct nw_cpu_state *s, struct nw_task_info *ti, __u64 now) {
  if (!s || !ti) return 0;
  if (ti->throttle_epoch != s->throttle_epoch || s->throttled_n <= 0) {
    wait_end(cpu_at(ti->cpu));
    return 0;
  }
  // Less the interrupts and steal in it, charged as themselves (the CPU counts as affected).
  __u64 span = now > s->throttle_since ? now - s->throttle_since : 0, nested = s->intr_total - s->throttle_intr0;
  __u32 cg = s->throttle_cg;
  __s32 left = s->throttled_n - 1;
  s->throttled_n = 0;
  s->throttle_epoch++;
  if (left > 0) __sync_fetch_and_add(&s->waiting, left);
  // Last: nothing is kept across its calls (a smaller frame in on_switch's call chains).
  if (span > nested) record(NW_KIND_THROTTLE, cg, 0, span - nested);
  return 0;
}

// 3. The tracked task leaving: preempted (still runnable) or blocking by its own choice. A task
// preempted while it was getting ready to sleep (state already set, `preempt` true) is still on
// the runqueue, so it waits; __schedule() counts that switch as involuntary too. `dead`: its last
// switch. Steps 3 and 4 stay inline: as global functions (verified once each) they cost ~10 ns
// a call at every switch of a tracked task on this project's VMs, where every return goes
// through the kernel's return thunk (AMD's SRSO mitigation).
static __always_inline void task_leaves(struct nw_cpu_state *s, struct nw_task_info *pi, struct task_struct *prev,
                                        __u64 now, __u64 steal, __u32 cpu, bool runnable, bool dead) {
  __u32 was = pi->phase;
  if (pi->fault_start && !(pi->flags & NW_TASK_FAULT_PAUSED)) fault_pause(pi, s);
  // Only this CPU writes its counts, under its runqueue lock. A thread past its exit no longer
  // counts (see NW_TASK_EXITING).
  bool counts = !(pi->flags & NW_TASK_EXITING);
  held_slice_end(pi, steal);
  pi->cpu = cpu;
  pi->rt_out = prev->se.sum_exec_runtime;
  if (runnable) {
    __u32 throttled = throttle_suspect(prev) ? throttled_group() : 0;  // prev is current here
    if (throttled) {
      // Runnable, so not blocking; but no task of ours waits on this runqueue either: it is
      // this CPU's throttle episode, opened by the first of them.
      pi->phase = NW_PHASE_THROTTLED;
      pi->throttle_epoch = s->throttle_epoch;
      if (s->throttled_n++ == 0) {
        s->throttle_since = now;
        s->throttle_intr0 = s->intr_total;
        s->throttle_cg = throttled;
      }
    } else {
      pi->phase = NW_PHASE_WAITING;
      __sync_fetch_and_add(&s->waiting, 1);
    }
    if (counts) s->switches_involuntary++;
    if (was == NW_PHASE_NEW) activity_up(now);
  } else {
    pi->phase = NW_PHASE_BLOCKED;
    if (counts) s->switches_voluntary++;
    if (was != NW_PHASE_NEW) activity_down(now);
    if (dead) {
      // Its last switch: its runtime is final here (the scheduler updated it while dequeuing).
      // A held child that never reached its execve ran nothing of the benchmark's.
      __u64 rt = pi->rt_out;
      if (!(pi->flags & NW_TASK_HELD) && rt > pi->cpu_base) __sync_fetch_and_add(&cpu_ns, rt - pi->cpu_base);
      pi->gen = 0;
      // The process's last thread: do_exit() counted every thread out of signal->live before this
      // switch. (The latest such switch wins: one of them unseen moves the end earlier by at most
      // one thread's exit path.)
      if (prev->tgid == bench_tgid && prev->signal->live.counter == 0) bench_exit_ns = bpf_ktime_get_ns();
    }
  }
}

// 4. A tracked task arriving (the caller sets the CPU's marks).
static __always_inline void task_arrives(struct nw_cpu_state *s, struct nw_task_info *ni, __u64 now, __u64 steal,
                                         __u32 cpu, __u32 pid) {
  if (windows_on && windows_exec_on) exec_window_switch_in(pid);
  if (ni->phase == NW_PHASE_WAITING) wait_end(ni->cpu == cpu ? s : cpu_at(ni->cpu));
  else if (ni->phase == NW_PHASE_THROTTLED) throttle_end(cpu_at(ni->cpu), ni, now);
  else if (ni->phase != NW_PHASE_RUNNING)  // NEW (tracked while runnable), or a missed wake-up
    activity_up(now);
  if (ni->flags & NW_TASK_HELD) {
    ni->held_since = bpf_ktime_get_ns();
    ni->held_steal = steal;
  }
  if (ni->flags & NW_TASK_FAULT_PAUSED) fault_resume(ni, s);
  ni->phase = NW_PHASE_RUNNING;
  ni->cpu = cpu;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(on_switch, bool preempt, struct task_struct *prev, struct task_struct *next, unsigned int prev_state) {
  if (test_unseen_on && (test_unseen(prev) || test_unseen(next))) return 0;
  struct rq *rq = rq_of(next);  // this CPU's runqueue, locked, its clock just updated
  __u64 now = rq_clock(rq);
  __u32 cpu = bpf_get_smp_processor_id();
  struct nw_cpu_state *s = cpu_at(cpu);
  if (!s) return 0;
  __u32 prev_pid = prev->pid, next_pid = next->pid;
  struct nw_task_info *pi = prev_pid ? tracked_pid(prev, prev_pid) : 0;
  __u32 sib = s->sibling;

  // 0. Hypervisor steal since the mark (the scheduler just updated it): taken from the benchmark
  // if it ran or waited here. It counts as nested time, so the waiting span below leaves it out.
  __u64 steal = rq_steal(rq);
  if (s->steal_mark && steal > s->steal_mark && (pi || s->waiting > 0 || s->throttled_n > 0)) {
    __u64 d = steal - s->steal_mark;
    record_fixed(NW_FIXED_STEAL, d);
    s->intr_total += d;
  }
  s->steal_mark = steal;
  if (prev_pid != s->curr_pid) {
    __u64 rt = prev->se.sum_exec_runtime;
    resync(s, pi, leaving(now, cpu, prev, prev_pid, pi != 0),
           pi && pi->rt_out && rt >= pi->rt_out ? rt - pi->rt_out : rt - prev->se.prev_sum_exec_runtime);
  }

  // 1. Charge the span of the task leaving the CPU if a tracked task was kept waiting by it:
  // preemption by another task, or contention when it is one of the benchmark's own. A watched
  // CPU charges everything but its measurer instead (watched_switch).
  if (s->watched) {
    watched_switch(s, leaving(now, cpu, prev, prev_pid, pi != 0));
  } else if (s->waiting > 0 && s->throttled_n <= 0 && s->mark_ts && now > s->mark_ts) {
    // (Not during a throttle episode: its tasks wait for the quota, and the episode is charged
    // the whole span, whoever runs meanwhile.)
    __u64 span = now - s->mark_ts;
    __u64 nested = s->intr_total - s->mark_intr;
    span = span > nested ? span - nested : 0;
    if (prev_pid == 0) {
      if (s->waiting > 0) record_fixed(NW_FIXED_WAKEUP_IDLE, span);
    } else {
      // Contention is keyed by the benchmark task's name alone: keyed by pid, a program that
      // starts thousands of threads inserts a hash key per thread (a 10,000-thread storm: on_switch
      // 613 ns per call instead of 117, bench/HISTORY.md) and can fill the map. Preemption keeps
      // the pid: the advice names the process to stop.
      record_cached(pi ? NW_KIND_CONTENTION : NW_KIND_PREEMPT, pi ? 0 : prev_pid, (const __u64 *)prev->comm, span);
    }
  }

  // 2. SMT: overlap of a non-idle sibling task with a tracked task on this core.
  if (sib) smt_switch(s, cpu_at(sib - 1), leaving(now, cpu, prev, prev_pid, pi != 0));

  // 3. The task leaving.
  if (pi)
    task_leaves(s, pi, prev, now, steal, cpu, preempt || prev_state == 0 /* TASK_RUNNING */,
                prev_state & TASK_DEAD_STATE);

  // 4. The task arriving. A CPU whose runqueue holds nothing but the arriving task (or that goes
  // idle) has nobody waiting on it: clearing the count here bounds the damage of any missed
  // hand-over (a move path without a tracepoint, a race not thought of) to one slice instead of
  // the rest of the run. (The runqueue lock is held here, so nr_running is exact. Tasks of a
  // CFS-bandwidth-throttled group are not in it: their wait is the quota's, not charged.)
  if (next_pid == 0 || (rq && rq->nr_running <= 1)) s->waiting = 0;
  // (The arriving task is looked up only now: a pointer held across the steps above doubles the
  // paths the verifier walks through them, and its time is noisewatch's start-up.)
  struct nw_task_info *ni = next_pid ? tracked_pid(next, next_pid) : 0;
  if (ni) {
    task_arrives(s, ni, now, steal, cpu, next_pid);
    // The runqueue's clock has not moved since the mark: the wake-up that made the task runnable
    // preempted (an idle CPU, woken from an interrupt, is the common case) and the scheduler
    // skipped this switch's clock update. The task's runtime then starts at the mark, so the
    // interrupts since it, charged while it waited, are inside its CPU time as well: they are
    // counted as such (cpu_irq_ns). Without this a 6.1 guest's disk I/O, woken in the disk's IRQ,
    // had charges + blocking + CPU time 4 % above the wall time. (A tracked task leaving had them
    // counted already, as it ran.)
    if (!pi && now == s->mark_ts && now) s->intr_running += s->intr_total - s->mark_intr;
  }
  s->curr_tracked = ni != 0;
  s->tracked_since = ni ? now : 0;
  s->curr_pid = next_pid;
  __builtin_memcpy(s->curr_comm, next->comm, NW_COMM_LEN);
  s->mark_ts = now;
  s->mark_intr = s->intr_total;
  return 0;
}

// ---- why a blocking span ended ---------------------------------------------------------------
// softirq vectors (include/linux/interrupt.h)
#define NW_SOFTIRQ_TIMER 1
#define NW_SOFTIRQ_TASKLET 6
#define NW_SOFTIRQ_HRTIMER 8

// Why a blocked tracked task is being woken, read where the wake-up is issued (this CPU, the
// waker's context): the innermost open interrupt level, else the task issuing it. A timer (the
// local timer vector's hrtimers, the TIMER and HRTIMER softirqs) is a sleep or a timeout; a device
// IRQ, or the softirq that finishes its work (BLOCK, NET_RX, NET_TX, IRQ_POLL, TASKLET, HI), is
// I/O, named by the last device IRQ seen on this CPU; a task is a wait on that task; the rest
// (IPIs, RCU, the idle task flushing queued calls) is other.
static __always_inline void wake_cause(struct nw_cpu_state *s, struct task_struct *cur) {
  __u64 latest = 0, late = 0;
  __u32 kind = NW_KIND_BLOCK_WAIT, id = 0;
  if (s->irq_start) {
    latest = s->irq_start;
    kind = NW_KIND_BLOCK_IO;
    id = s->irq_last - 1;
  }
  if (s->vec_start > latest) {
    latest = s->vec_start;
    kind = s->vec_id == NW_VEC_LOCAL_TIMER ? NW_KIND_BLOCK_SLEEP : NW_KIND_BLOCK_OTHER;
    id = 0;
    late = s->timer_late_ns + 1;
  }
  if (s->softirq_start > latest) {
    __u32 v = s->softirq_vec;
    id = 0;
    late = 0;
    if (v == NW_SOFTIRQ_TIMER || v == NW_SOFTIRQ_HRTIMER) {
      kind = NW_KIND_BLOCK_SLEEP;
      if (v == NW_SOFTIRQ_HRTIMER) late = s->timer_late_ns + 1;  // the timer wheel's lateness is unknown
    } else if (v <= NW_SOFTIRQ_TASKLET) {  // HI, NET_TX, NET_RX, BLOCK, IRQ_POLL, TASKLET: device work
      kind = NW_KIND_BLOCK_IO;
      id = s->irq_last ? s->irq_last - 1 : NW_BLOCK_IO_SOFTIRQ | v;
    } else {
      kind = NW_KIND_BLOCK_OTHER;
    }
  }
  if (kind == NW_KIND_BLOCK_WAIT) {
    id = cur->pid;
    if (!id) kind = NW_KIND_BLOCK_OTHER;  // the idle task running queued wake-ups
    __builtin_memcpy(s->wake_comm, cur->comm, NW_COMM_LEN);
  }
  s->wake_kind = kind;
  s->wake_id = id;
  s->wake_late_ns = kind == NW_KIND_BLOCK_SLEEP ? late : 0;
}

// Why a blocked tracked task wakes while the benchmark as a whole blocks: the cause of the
// blocking span its wake-up ends. sched_wakeup fires in the waker's context (its CPU, under the
// wakee's runqueue lock), except for a wake-up queued on the wakee's CPU's wake list (an idle or
// distant CPU: try_to_wake_up() hands it over and sends an IPI, or lets the idle task find it):
// there it fires in that IPI or in the idle task, and the waker's context was read when the
// wake-up was queued (on_csd_queue). (A program on sched_waking, which fires in the waker's
// context for every wake-up on the machine, did this before: one more program per wake-up, the
// third of a switch storm's three; bench/program_cost.sh.)
// A global function: verified once (on_wakeup and on_wakeup_new both reach it), called only while
// the benchmark blocks.
__noinline int note_wake_cause(__u32 task_cpu) {
  __u32 here = bpf_get_smp_processor_id();
  struct nw_cpu_state *s = cpu_at(here);
  if (!s) return 0;
  __u32 queued = s->wake_queued_from;
  // The idle task flushing the wake list runs no interrupt of its own: a wake-up inside one (a
  // sleep's timer firing on the idle CPU) is that interrupt's, whatever request another CPU
  // queued meanwhile (a CI run charged six injected sleeps to a kworker's request that way).
  bool in_interrupt = s->irq_start | s->vec_start | s->softirq_start;
  if (queued && here == task_cpu &&
      ((!(__u32)bpf_get_current_pid_tgid() && !in_interrupt) ||
       (s->vec_start && s->vec_id == NW_VEC_CALL_FUNCTION_SINGLE))) {
    s->wake_queued_from = 0;
    cause_cpu = queued;
    return 0;
  }
  wake_cause(s, bpf_get_current_task_btf());
  cause_cpu = here + 1;
  return 0;
}

// A call-function request queued for another CPU (csd:csd_queue_cpu, in the requester's
// context): a wake-up handed to that CPU's wake list among them (they cannot be told apart here
// without the kernel's symbol table; a request of another kind queued meanwhile at worst names
// its requester). Only while the benchmark blocks: one load decides for every other request.
SEC("tp_btf/csd_queue_cpu")
int BPF_PROG(on_csd_queue, unsigned int cpu, unsigned long callsite, void *func, void *csd) {
  if (!idle_since) return 0;
  __u32 here = bpf_get_smp_processor_id();
  struct nw_cpu_state *s = cpu_at(here), *t = cpu_at(cpu);
  if (!s || !t) return 0;
  wake_cause(s, bpf_get_current_task_btf());
  t->wake_queued_from = here + 1;
  return 0;
}

static __always_inline int on_wake(struct task_struct *p) {
  if (test_unseen_on && test_unseen(bpf_get_current_task_btf())) return 0;
  struct nw_task_info *ti = tracked_info(p);
  if (!ti || ti->phase == NW_PHASE_WAITING || ti->phase == NW_PHASE_RUNNING || ti->phase == NW_PHASE_THROTTLED)
    return 0;
  __u32 cpu = task_cpu_of(p);
  struct nw_cpu_state *s = cpu_at(cpu);
  if (!s) return 0;
  // The runqueue the task was just queued on (or runs on), its clock just updated. Reached once
  // (see rq_of on the verifier's cost of walking pointers).
  struct rq *rq = rq_of(p);
  __u64 now = rq_clock(rq);
  // A task tracked while it ran (phase NEW: the held child, check's spinners) can be "woken" in
  // the instant between setting its sleep state and switching out (try_to_wake_up finds it still
  // on the runqueue). It is running, not waiting: counting it as waiting would leave the CPU's
  // count stuck, and charge every later slice of the benchmark there as preemption by itself.
  if (bpf_core_field_exists(p->on_cpu) && p->on_cpu) {
    ti->phase = NW_PHASE_RUNNING;
    if (s->curr_pid == p->pid && !s->curr_tracked) {
      s->curr_tracked = 1;
      s->tracked_since = now;
    }
    activity_up(now);  // phase was NEW: not counted yet
    return 0;
  }
  if (ti->phase == NW_PHASE_BLOCKED && idle_since) note_wake_cause(cpu);
  if (cpu == bpf_get_smp_processor_id()) split_open_interrupts(s);
  ti->phase = NW_PHASE_WAITING;
  ti->cpu = cpu;
  wait_begin(s, now, rq_steal(rq));
  activity_up(now);
  return 0;
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(on_wakeup, struct task_struct *p) { return on_wake(p); }

SEC("tp_btf/sched_wakeup_new")
int BPF_PROG(on_wakeup_new, struct task_struct *p) { return on_wake(p); }

// hrtimer._softexpires, from the kernel's BTF (see src/probes/kernel_btf_scan.h: read with a plain
// read, struct hrtimer is one kernel type fewer for libbpf to search at start-up).
const volatile bool timer_late_ok = false;
const volatile __u32 off_hrtimer_softexpires = 0;

// How late each hrtimer fires (the time it expires less the time asked for: timer slack, interrupt
// latency). Kept for the wake-up its callback may issue next on this CPU (callbacks do not nest).
SEC("tp_btf/hrtimer_expire_entry")
int BPF_PROG(on_hrtimer_expire, struct hrtimer *timer, ktime_t *now) {
  struct nw_cpu_state *s = cpu_at(bpf_get_smp_processor_id());
  if (!s) return 0;
  __s64 t = 0;
  bpf_probe_read_kernel(&t, sizeof(t), now);
  __s64 soft = 0;
  if (timer_late_ok) bpf_probe_read_kernel(&soft, sizeof soft, (void *)timer + off_hrtimer_softexpires);
  s->timer_late_ns = soft && t > soft ? t - soft : 0;
  return 0;
}

SEC("tp_btf/sched_migrate_task")
int BPF_PROG(on_migrate, struct task_struct *p, int dest_cpu) {
  struct nw_task_info *ti = tracked_info(p);
  if (!ti) return 0;
  __u32 from = task_cpu_of(p);
  // set_task_cpu() fires this tracepoint even when the CPU does not change.
  if (from == (__u32)dest_cpu) return 0;
  record(NW_KIND_MIGRATE, (from << 16) | ((__u32)dest_cpu & 0xffff), 0, 0);
  if (ti->phase == NW_PHASE_WAITING) {
    wait_end(cpu_at(ti->cpu));
    ti->cpu = dest_cpu;
    struct nw_cpu_state *to = cpu_at(dest_cpu);
    if (to) wait_begin(to, sched_now(p), 0);  // still the source runqueue: its callers hold and update it
  }
  return 0;
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(on_fork, struct task_struct *parent, struct task_struct *child) {
  // Fires for threads too (every clone), with current as the creator.
  if (!tracked_info(bpf_get_current_task_btf())) return 0;
  __u32 pid = child->pid, idx = pid & slots_mask();
  struct nw_task_info init = {.phase = NW_PHASE_NEW, .gen = generation, .pid = pid};
  if (windows_on && windows_exec_on) exec_window_fork(child);
  struct nw_task_info *slot = bpf_map_lookup_elem(&task_slots, &idx);
  if (slot && (slot->gen != generation || slot->pid == pid)) {
    *slot = init;
    return 0;
  }
  // Another tracked task holds the slot: the next entry of the overflow part, named in the child's
  // task storage. (Two forks racing for one free slot is not guarded: it needs two pids equal
  // modulo the slot count created at the same instant.)
  __u64 n = __sync_fetch_and_add(&overflow_tasks, 1);
  __u32 at = slots_mask() + 1 + n;
  slot = n < NW_OVERFLOW_SLOTS ? bpf_map_lookup_elem(&task_slots, &at) : 0;
  __u32 *named = slot ? bpf_task_storage_get(&task_overflow, child, 0, BPF_LOCAL_STORAGE_GET_F_CREATE) : 0;
  if (!named) {
    struct nw_probe_stats *st = stats();
    if (st) st->lost_tracked++;
    return 0;
  }
  *slot = init;
  *named = at;
  return 0;
}

// The held child's execve: from here on its CPU time is the benchmark's. (Fires once the child
// has left the memory it shared with noisewatch for its own.) Later execs are the benchmark's own;
// with --windows-exec any of them may begin a window.
SEC("tp_btf/sched_process_exec")
int BPF_PROG(on_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm) {
  struct nw_task_info *ti = tracked_info(p);
  if (!ti) return 0;
  if (ti->flags & NW_TASK_HELD) {
    held_slice_end(ti, rq_steal(rq_of(p)));
    ti->flags &= ~NW_TASK_HELD;
  }
  if (windows_on && windows_exec_on) exec_window_exec(p);
  return 0;
}

// Testing knob (NOISEWATCH_TEST_REFUSE): on_exit reads through a number, which the verifier
// refuses, so that the message explaining a refusal is tested on a real one. Unset, the verifier
// never walks the branch.
const volatile bool test_refuse = false;

SEC("tp_btf/sched_process_exit")
int BPF_PROG(on_exit, struct task_struct *p) {
  if (test_refuse) return *(volatile int *)(long)p->pid;
  struct nw_task_info *ti = tracked_info(p);
  if (!ti) return 0;
  // Every tracked task is forgotten at its last switch (on_switch), where its runtime is final.
  // A thread's switches stop counting here: getrusage() folds a thread's switch counts into the
  // process at exit_notify(), before its last switch, whereas a process leader's are summed when
  // it is reaped, after that switch.
  if (p->pid != p->tgid) ti->flags |= NW_TASK_EXITING;
  // Its runtime so far (as of the scheduler's last update) is the benchmark's now, and the last
  // switch adds the rest: when that switch goes unseen (these VMs hide switches to their agent's
  // threads) only the rest is lost, not the whole of it (a run's cpu_ns was 0).
  __u64 rt = p->se.sum_exec_runtime;
  if (!(ti->flags & NW_TASK_HELD) && rt > ti->cpu_base) {
    __sync_fetch_and_add(&cpu_ns, rt - ti->cpu_base);
    ti->cpu_base = rt;
  }
  if (windows_on && windows_exec_on) exec_window_exit(p);
  return 0;
}

// ---- page faults -----------------------------------------------------------------------

SEC("fentry/handle_mm_fault")
int BPF_PROG(on_fault_entry, struct vm_area_struct *vma, unsigned long address, unsigned int flags,
             struct pt_regs *regs) {
  struct nw_task_info *ti = tracked_info(bpf_get_current_task_btf());
  // The held child's faults before its execve are noisewatch's.
  if (!ti || (ti->flags & NW_TASK_HELD)) return 0;
  struct nw_cpu_state *s = cpu_at(bpf_get_smp_processor_id());
  if (!s) return 0;
  ti->flags &= ~NW_TASK_FAULT_PAUSED;
  ti->fault_intr0 = s->intr_total;
  ti->fault_start = bpf_ktime_get_ns();
  return 0;
}

SEC("fexit/handle_mm_fault")
int BPF_PROG(on_fault_exit, struct vm_area_struct *vma, unsigned long address, unsigned int flags, struct pt_regs *regs,
             unsigned int ret) {
  struct nw_task_info *ti = tracked_info(bpf_get_current_task_btf());
  if (!ti || !ti->fault_start) return 0;
  struct nw_cpu_state *s = cpu_at(bpf_get_smp_processor_id());
  if (!s) return 0;
  if (ti->flags & NW_TASK_FAULT_PAUSED) fault_resume(ti, s);  // resumed without a switch seen
  __u64 own = fault_elapsed(ti, s, bpf_ktime_get_ns());
  ti->fault_start = 0;
  // Fault handling can be preempted, and another tracked task on this CPU can fault meanwhile:
  // the slot is updated atomically (the window's hash entry too).
  __u32 slot = NW_FIXED_FAULT;
  struct nw_noise_val *v = bpf_map_lookup_elem(&fixed, &slot);
  __u32 window = window_now();
  tl_emit(NW_KIND_FAULT, 0, 0, own);
  if (windows_on) {
    struct nw_noise_key key = {.kind = NW_KIND_FAULT, .window = window, .cpu = bpf_get_smp_processor_id()};
    v = bpf_map_lookup_elem(&noise, &key);
    if (!v) {
      hash_add(&key, 1, own, own);
      return 0;
    }
  }
  if (!v) return 0;
  __sync_fetch_and_add(&v->count, 1);
  __sync_fetch_and_add(&v->time_ns, own);
  if (own > v->max_ns) v->max_ns = own;
  return 0;
}

// ---- interrupts ------------------------------------------------------------------------

// Own time of an event that began at *start with intr_total at *intr0; adds it to the CPU's
// intr_total so enclosing spans subtract it.
static __always_inline __u64 close_span(struct nw_cpu_state *s, __u64 *start, __u64 *intr0, __u64 now) {
  if (!*start || now < *start) return 0;
  __u64 wall = now - *start;
  __u64 nested = s->intr_total - *intr0;
  __u64 own = wall > nested ? wall - nested : 0;
  s->intr_total += own;
  if (s->curr_tracked) s->intr_running += own;
  *start = 0;
  return own;
}

SEC("tp_btf/irq_handler_entry")
int BPF_PROG(on_irq_entry, int irq, struct irqaction *action) {
  struct nw_cpu_state *s = cpu_at(bpf_get_smp_processor_id());
  if (!s) return 0;
  s->irq_start = bpf_ktime_get_ns();
  s->irq_intr0 = s->intr_total;
  s->irq_last = irq + 1;
  return 0;
}

SEC("tp_btf/irq_handler_exit")
int BPF_PROG(on_irq_exit, int irq, struct irqaction *action, int ret) {
  struct nw_cpu_state *s = cpu_at(bpf_get_smp_processor_id());
  if (!s) return 0;
  __u64 own = close_span(s, &s->irq_start, &s->irq_intr0, bpf_ktime_get_ns());
  if (own && charged(s, own)) {
    if ((unsigned int)irq < NW_IRQ_SLOTS) record_fixed(NW_FIXED_IRQ + irq, own);
    else record(NW_KIND_IRQ, irq, 0, own);
  }
  return 0;
}

SEC("tp_btf/softirq_entry")
int BPF_PROG(on_softirq_entry, unsigned int vec) {
  struct nw_cpu_state *s = cpu_at(bpf_get_smp_processor_id());
  if (!s) return 0;
  s->softirq_start = bpf_ktime_get_ns();
  s->softirq_intr0 = s->intr_total;
  s->softirq_vec = vec;
  return 0;
}

SEC("tp_btf/softirq_exit")
int BPF_PROG(on_softirq_exit, unsigned int vec) {
  struct nw_cpu_state *s = cpu_at(bpf_get_smp_processor_id());
  if (!s) return 0;
  __u64 own = close_span(s, &s->softirq_start, &s->softirq_intr0, bpf_ktime_get_ns());
  if (own && charged(s, own)) {
    if (vec < NW_SOFTIRQ_SLOTS) record_fixed(NW_FIXED_SOFTIRQ + vec, own);
    else record(NW_KIND_SOFTIRQ, vec, 0, own);
  }
  return 0;
}

SEC("tp_btf/nmi_handler")
int BPF_PROG(on_nmi, void *handler, s64 delta_ns, int handled) {
  struct nw_cpu_state *s = cpu_at(bpf_get_smp_processor_id());
  if (!s || delta_ns <= 0) return 0;
  s->intr_total += delta_ns;
  if (s->curr_tracked) s->intr_running += delta_ns;
  if (charged(s, delta_ns)) {
    // The handler's address travels in the comm bytes; user space resolves it via kallsyms.
    char comm[NW_COMM_LEN] = {};
    __u64 addr = (__u64)handler;
    __builtin_memcpy(comm, &addr, sizeof(addr));
    record(NW_KIND_NMI, 0, comm, delta_ns);
  }
  return 0;
}

// An SMT sibling's task that has run since before the probe attached, never switched out since:
// the probe has seen no switch put it there, so smt_switch would not know the benchmark's core was
// shared (a hog alone on the sibling CPU switches only when something else wants that CPU). The
// sibling's tick names it: the task it interrupts is the one running. Only an untracked task is
// taken so (a tracked one's unseen arrival is resync's), and only while the probe believes the CPU
// idle; mark_ts stays as it was, so the overlap counts from the benchmark's own start.
static __always_inline void seed_sibling_task(struct nw_cpu_state *s) {
  if (!s->sibling || s->curr_pid) return;
  struct task_struct *t = bpf_get_current_task_btf();
  __u32 pid = t->pid;
  if (!pid || tracked_info(t)) return;
  s->curr_pid = pid;
  s->curr_tracked = 0;
  __builtin_memcpy(s->curr_comm, t->comm, NW_COMM_LEN);
}

static __always_inline int vector_entry(__u32 id) {
  struct nw_cpu_state *s = cpu_at(bpf_get_smp_processor_id());
  if (!s) return 0;
  if (id == NW_VEC_LOCAL_TIMER) seed_sibling_task(s);
  s->vec_id = id;
  s->vec_start = bpf_ktime_get_ns();
  s->vec_intr0 = s->intr_total;
  return 0;
}

static __always_inline int vector_exit(__u32 id) {
  struct nw_cpu_state *s = cpu_at(bpf_get_smp_processor_id());
  if (!s) return 0;
  __u64 own = close_span(s, &s->vec_start, &s->vec_intr0, bpf_ktime_get_ns());
  if (own && charged(s, own)) record_fixed(NW_FIXED_VECTOR + id, own);
  return 0;
}

// One entry/exit pair per APIC vector; user space disables the ones this kernel lacks.
#define NW_VECTOR(tp, id)                                                \
  SEC("tp_btf/" #tp "_entry")                                            \
  int BPF_PROG(on_##tp##_entry, int vector) { return vector_entry(id); } \
  SEC("tp_btf/" #tp "_exit")                                             \
  int BPF_PROG(on_##tp##_exit, int vector) { return vector_exit(id); }

NW_VECTOR(local_timer, NW_VEC_LOCAL_TIMER)
NW_VECTOR(reschedule, NW_VEC_RESCHEDULE)
NW_VECTOR(call_function, NW_VEC_CALL_FUNCTION)
NW_VECTOR(call_function_single, NW_VEC_CALL_FUNCTION_SINGLE)
NW_VECTOR(irq_work, NW_VEC_IRQ_WORK)
NW_VECTOR(thermal_apic, NW_VEC_THERMAL)
NW_VECTOR(threshold_apic, NW_VEC_THRESHOLD)
NW_VECTOR(deferred_error_apic, NW_VEC_DEFERRED_ERROR)
NW_VECTOR(error_apic, NW_VEC_ERROR)
NW_VECTOR(spurious_apic, NW_VEC_SPURIOUS)
NW_VECTOR(x86_platform_ipi, NW_VEC_X86_PLATFORM_IPI)
NW_VECTOR(reboot, NW_VEC_REBOOT)

// ---- frequency -------------------------------------------------------------------------

SEC("tp_btf/cpu_frequency")
int BPF_PROG(on_cpu_frequency, unsigned int khz, unsigned int cpu_id) {
  struct nw_cpu_state *s = cpu_at(cpu_id);
  if (!s) return 0;
  __u64 now = bpf_ktime_get_ns();
  if (s->freq_ts && now > s->freq_ts) s->freq_khz_ns += s->freq_khz * (now - s->freq_ts);
  s->freq_khz = khz;
  s->freq_ts = now;
  s->freq_changes++;
  return 0;
}
