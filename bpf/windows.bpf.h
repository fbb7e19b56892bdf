// Marked windows (--windows): the benchmark marks the windows it measures, and every charge made
// while window k is open carries k + 1 in its key (0 outside any window), so user space splits a
// process run's noise by window after it ends. Nothing is streamed: the markers only move
// `cur_window` and timestamp the window in `windows`. Included by noise.bpf.c after
// tracked_info(); loaded (the marker programs) and taken (the window in the keys) only with
// --windows: windows_on is read-only data, so without it the verifier drops every use.
//
// Two ways to mark, with the same effect:
//  - USDT probes noisewatch:window_begin (optional integer argument: a label) and
//    noisewatch:window_end (include/noisewatch/markers.h), attached by user space as uprobes;
//  - a line "begin" ("begin LABEL") or "end" written to the inherited marker fd, seen at the
//    write's syscall entry (syscalls:sys_enter_write), so it is timestamped at the write, not
//    when noisewatch reads the pipe (it reads it only between process runs).
// Windows are the process's, one at a time: a begin while a window is open closes it there
// (flagged), an end with none open is counted as stray.
#ifndef NOISEWATCH_WINDOWS_BPF_H
#define NOISEWATCH_WINDOWS_BPF_H

#include <bpf/usdt.bpf.h>

const volatile bool windows_on = false;
// 0 outside any window, k + 1 while window k is open. User space resets these between process
// runs, when nothing is tracked.
__u32 cur_window;
__u64 windows_seen;     // begins this process run, dropped ones included (64-bit: atomic fetch)
__u64 windows_dropped;  // begins past NW_MAX_WINDOWS
__u64 stray_ends;       // ends with no window open
__u64 marker_lines;     // marker-fd writes recognised as markers (user space checks its lines)
// The marker fd's number in the benchmark (user space sets it; -1: none).
__s32 marker_fd = -1;

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, NW_MAX_WINDOWS);
  __type(key, __u32);
  __type(value, struct nw_window);
} windows SEC(".maps");

// The window charges made now belong to (the key's `window` field).
static __always_inline __u32 window_now(void) { return windows_on ? cur_window : 0; }

static __always_inline void window_close(__u32 open, __u64 now, __u32 flag) {
  __u32 k = open - 1;
  struct nw_window *w = bpf_map_lookup_elem(&windows, &k);
  if (w) {
    w->end_ns = now;
    w->flags |= flag;
  }
}

static __always_inline void window_begin(__u64 now, __s64 label, __u32 flags, const char *text) {
  __u32 open = cur_window;
  if (open) window_close(open, now, NW_WIN_IMPLICIT_END);
  __u32 k = (__u32)__sync_fetch_and_add(&windows_seen, 1);
  struct nw_window *w = k < NW_MAX_WINDOWS ? bpf_map_lookup_elem(&windows, &k) : 0;
  if (!w) {
    __sync_fetch_and_add(&windows_dropped, 1);
    cur_window = 0;
    return;
  }
  w->begin_ns = now;
  w->end_ns = 0;
  w->label = label;
  w->flags = flags;
  w->pid = (__u32)bpf_get_current_pid_tgid();
  if (text)
    __builtin_memcpy(w->text, text, NW_LABEL_LEN);
  else
    __builtin_memset(w->text, 0, NW_LABEL_LEN);
  cur_window = k + 1;
}

static __always_inline void window_end(__u64 now) {
  __u32 open = cur_window;
  if (!open) {
    __sync_fetch_and_add(&stray_ends, 1);
    return;
  }
  window_close(open, now, 0);
  cur_window = 0;
}

static __always_inline bool current_tracked(void) { return tracked_info(bpf_get_current_task_btf()) != 0; }

// Attached to every process (pid -1) running the binary: only the benchmark's tasks mark.
SEC("usdt")
int on_usdt_begin(struct pt_regs *ctx) {
  __u64 now = bpf_ktime_get_ns();
  if (!current_tracked()) return 0;
  long label = 0;
  bool has = bpf_usdt_arg_cnt(ctx) > 0 && bpf_usdt_arg(ctx, 0, &label) == 0;
  window_begin(now, label, has ? NW_WIN_LABEL : 0, 0);
  return 0;
}

SEC("usdt")
int on_usdt_end(struct pt_regs *ctx) {
  __u64 now = bpf_ktime_get_ns();
  if (!current_tracked()) return 0;
  window_end(now);
  return 0;
}

// write(2)'s number: the raw sys_enter tracepoint sees every system call.
#if defined(__TARGET_ARCH_arm64)
#define NW_NR_WRITE 64
#else
#define NW_NR_WRITE 1
#endif

// "begin", "begin LABEL" or "end", each ended by a newline or the end of the write. Attached to
// the raw sys_enter tracepoint (BTF): it runs on every system call of the machine while loaded,
// but returns at the first compare for all but write(2) to the marker fd, and costs less than the
// syscalls:sys_enter_write event, which formats a trace record for every write first.
SEC("tp_btf/sys_enter")
int BPF_PROG(on_marker_write, struct pt_regs *regs, long id) {
  if (id != NW_NR_WRITE || marker_fd < 0) return 0;
  if ((int)PT_REGS_PARM1_CORE(regs) != marker_fd) return 0;
  __u64 now = bpf_ktime_get_ns();
  if (!current_tracked()) return 0;
  const char *buf = (const char *)PT_REGS_PARM2_CORE(regs);
  __u64 n = PT_REGS_PARM3_CORE(regs);
  char line[NW_MARKER_LINE] = {};
  if (n > NW_MARKER_LINE) n = NW_MARKER_LINE;
  if (n < 3 || bpf_probe_read_user(line, n, buf)) return 0;
  bool end_of_line3 = n == 3 || line[3] == '\n' || line[3] == '\r';
  if (line[0] == 'e' && line[1] == 'n' && line[2] == 'd' && end_of_line3) {
    __sync_fetch_and_add(&marker_lines, 1);
    window_end(now);
    return 0;
  }
  if (n < 5 || line[0] != 'b' || line[1] != 'e' || line[2] != 'g' || line[3] != 'i' || line[4] != 'n') return 0;
  char text[NW_LABEL_LEN] = {};
  __u32 flags = NW_WIN_FROM_FD;
  if (n > 6 && line[5] == ' ') {
    // The label: up to NW_LABEL_LEN bytes after "begin ", cut at the end of the line.
    for (int i = 0; i < NW_LABEL_LEN; ++i) {
      if (6 + i >= n) break;
      char c = line[6 + i];
      if (c == '\n' || c == '\r' || c == 0) break;
      text[i] = c;
      flags |= NW_WIN_TEXT_LABEL;
    }
  } else if (n > 5 && line[5] != '\n' && line[5] != '\r') {
    return 0;  // "beginning...": not a marker
  }
  __sync_fetch_and_add(&marker_lines, 1);
  window_begin(now, 0, flags, text);
  return 0;
}

#endif
