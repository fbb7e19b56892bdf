// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
// Timeline (--timeline): every charged span at or above a threshold, timestamped, into a BPF ring
// buffer. Included by noise.bpf.c after windows.bpf.h and before its record functions, which call tl_emit().
//
// Written with BPF_RB_NO_WAKEUP: noisewatch is never woken during a run (it would become noise
// itself); it drains the buffer between process runs. A per-CPU rate bound keeps a storm of
// short events from filling the buffer with one source; whatever is not written, over the bound
// or for want of room, is counted (nw_tl_rate), never silently lost. Off (timeline_on false at
// load), every call is dead code the verifier removes.
#ifndef NOISEWATCH_TIMELINE_BPF_H
#define NOISEWATCH_TIMELINE_BPF_H

const volatile bool timeline_on = false;
const volatile __u64 tl_threshold_ns = 10000;
const volatile __u64 tl_rate_per_sec = 20000;  // per CPU

struct {
  __uint(type, BPF_MAP_TYPE_RINGBUF);
  __uint(max_entries, 4096);  // user space: the real size with --timeline
} timeline SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct nw_tl_rate);
} tl_rate SEC(".maps");

// A span of `dur` charged to (kind, id: high and low halves of kind_id; comm as two words) that
// ends now, in the window charges are made in now. The rate fields are per CPU; an interrupt
// program nested in a scheduler program can race on them, which at worst lets one event more
// through or miscounts one drop. Out of line (a global function, verified once): inlined, its
// helper calls made every caller spill what it holds across them, and on_switch's chain of calls
// outgrew the verifier's 512 bytes of stack on 6.18.44 (608).
__noinline int tl_write(__u64 kind_id, __u64 c0, __u64 c1, __u64 dur) {
  struct nw_tl_rate *r = bpf_map_lookup_elem(&tl_rate, &zero_key);
  if (!r) return 0;
  __u64 now = bpf_ktime_get_ns();
  if (now - r->since >= 1000000000ull) {
    r->since = now;
    r->count = 0;
  }
  if (r->count >= tl_rate_per_sec) {
    r->dropped_rate++;
    return 0;
  }
  struct nw_tl_event *e = bpf_ringbuf_reserve(&timeline, sizeof(*e), 0);
  if (!e) {
    r->dropped_full++;
    return 0;
  }
  r->count++;
  e->end_ns = now;
  e->dur_ns = dur;
  e->kind = (__u32)(kind_id >> 32);
  e->id = (__u32)kind_id;
  e->cpu = bpf_get_smp_processor_id();
  e->window = window_now();
  __u64 *w = (__u64 *)e->comm;
  w[0] = c0;
  w[1] = c1;
  bpf_ringbuf_submit(e, BPF_RB_NO_WAKEUP);
  return 0;
}

// The comm comes as words so that callers holding it in registers need not put it on the stack.
// Off (timeline_on false at load), every call is dead code the verifier removes.
static __always_inline void tl_emit_words(__u32 kind, __u32 id, __u64 c0, __u64 c1, __u64 dur) {
  if (!timeline_on || dur < tl_threshold_ns) return;
  tl_write(((__u64)kind << 32) | id, c0, c1, dur);
}

static __always_inline void tl_emit(__u32 kind, __u32 id, const char *comm, __u64 dur) {
  if (!timeline_on || dur < tl_threshold_ns) return;
  __u64 c0 = 0, c1 = 0;
  if (comm) {
    __builtin_memcpy(&c0, comm, 8);
    __builtin_memcpy(&c1, comm + 8, 8);
  }
  tl_write(((__u64)kind << 32) | id, c0, c1, dur);
}

#endif
