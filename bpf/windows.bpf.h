// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
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
//  - --windows-exec COMM: no marker at all. A process of the benchmark that runs COMM is a window,
//    cut as a harness that starts a process per run (hyperfine, shell loops) times it: from the
//    fork that creates it (a tentative window, dropped if the child execs something else or exits
//    first) to its exit, or to when its parent gets the CPU back if it is waiting then (it reaps
//    the child and reads its clock). exec_window_* below; called by on_fork, on_exec, on_exit and
//    on_switch. The harness's own time between them is outside every window. --windows pyperf:
//    the same, for the processes running the program the root process runs (not the root).
//  - --windows-at SYMBOL: a uprobe at the function's entry and a uretprobe at its return; the
//    outermost call on a thread is a window (nested and recursive calls are inside it).
//  - --windows gbench: Google Benchmark's State::StartKeepRunning() to FinishKeepRunning(), each
//    labelled with its iteration count; user space names them from the benchmark's JSON output.
//    Only what the library times is in it: its opener's State::ResumeTiming() to PauseTiming()
//    (on_timer_start/on_timer_stop below; StartKeepRunning and FinishKeepRunning call them too).
//    While that timer is stopped the window is paused: `cur_window` is 0, so every charge made
//    meanwhile is outside any window, exactly as between windows, and the gap's length goes to
//    the window's paused_ns. No charge path changes (no verifier cost there): only these uprobes
//    move cur_window. The opener stops and starts its timer itself, running, so none of its own
//    spans (preempted, blocked, in an interrupt) straddles a gap's end.
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
// --windows-exec: the command name (comm, NUL-padded) whose execs are windows.
const volatile bool windows_exec_on = false;
const volatile char windows_exec_comm[NW_LABEL_LEN] = {};
// --windows pyperf: the windows are the processes that run the program the process run's root
// runs (pyperf's workers are `sys.executable bench.py --worker ...`), the root itself not one:
// its pid (user space sets it before each process run) and its name after its last execve.
const volatile bool windows_exec_as_root = false;
__u32 exec_window_root;
char exec_window_root_comm[NW_LABEL_LEN];
// --windows-exec: the process of the window open now (0: none), whether that window is still
// tentative, and the parent whose next switch-in ends it (0: none pending).
__u32 exec_window_pid;
__u32 exec_window_tentative;
__u32 exec_window_closer;
// --windows-at and --windows gbench: the window's label is the integer at this byte offset from
// the function's first argument (-1: none). Google Benchmark's State::StartKeepRunning(): `this`,
// whose max_iterations (offset 16 in 1.7.1 and in current releases) tells a repetition from the
// iteration-count search before it.
const volatile __s32 call_label_offset = -1;
// --windows gbench: the threads of a ->Threads(N) benchmark each start their State together; a
// start while another thread's window is open joins that window (its opener ends it).
const volatile bool call_window_shared = false;
// --windows gbench: the window's timer is its opener's State timer (on_timer_start/on_timer_stop
// attached): it begins paused, and is timed from the opener's ResumeTiming to its PauseTiming.
// The opener alone moves it (one writer: no race between threads). A window other threads joined
// (->Threads(N), NW_WIN_SHARED) is not cut at its opener's pauses, only measured: the other
// threads run on through them, and a span of theirs (waiting while the opener runs its set-up)
// charged at its end would straddle the gap's edge, charging the window time outside it.
const volatile bool call_window_timed = false;
// The open window while its timer is stopped (its number + 1; cur_window is 0 meanwhile), and
// since when. User space resets them between process runs.
__u32 paused_window;
__u64 paused_since;

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, NW_MAX_WINDOWS);
  __type(key, __u32);
  __type(value, struct nw_window);
} windows SEC(".maps");

static __always_inline struct nw_window *window_at(__u32 open) {
  __u32 k = open - 1;
  return open ? bpf_map_lookup_elem(&windows, &k) : 0;
}

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

// The open window, timed or paused (its number + 1; 0: none).
static __always_inline __u32 window_open(void) { return call_window_timed && !cur_window ? paused_window : cur_window; }

// The window's timer stops (its opener's PauseTiming): charges from now on are outside it (`cut`;
// a shared window's gap is only measured).
static __always_inline void window_pause(__u32 open, __u64 now, bool cut) {
  paused_window = open;
  paused_since = now;
  if (cut) cur_window = 0;
}

// A paused window timed again (its opener's ResumeTiming), or ending paused (`closing`): its gap
// so far is not its time. The first start of its timer is where it begins instead: the time from
// StartKeepRunning's entry to it (the threads' start barrier) is no gap, the library never timed it.
static __always_inline void window_unpause(__u64 now, bool closing) {
  __u32 open = paused_window;
  struct nw_window *w = window_at(open);
  if (w) {
    if (w->flags & NW_WIN_AWAIT_TIMER) {
      if (closing) {
        w->paused_ns = now - w->begin_ns;  // never timed: all of it a gap
      } else {
        w->begin_ns = now;
        w->flags &= ~NW_WIN_AWAIT_TIMER;
      }
    } else {
      w->paused_ns += now - paused_since;
      w->pauses += 1;
    }
  }
  paused_window = 0;
  cur_window = open;
}

static __always_inline void window_begin(__u64 now, __s64 label, __u32 flags, const char *text, __u32 pid) {
  if (call_window_timed && paused_window) window_unpause(now, true);
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
  w->pid = pid;
  w->paused_ns = 0;
  w->pauses = 0;
  if (text) __builtin_memcpy(w->text, text, NW_LABEL_LEN);
  else __builtin_memset(w->text, 0, NW_LABEL_LEN);
  cur_window = k + 1;
}

static __always_inline void window_end(__u64 now) {
  if (call_window_timed && paused_window) window_unpause(now, true);
  __u32 open = cur_window;
  if (!open) {
    __sync_fetch_and_add(&stray_ends, 1);
    return;
  }
  window_close(open, now, 0);
  cur_window = 0;
}

// The open exec window is not one after all (its child ran something else or nothing).
static __always_inline void exec_window_discard(__u64 now) {
  window_close(cur_window, now, NW_WIN_DISCARDED);
  cur_window = 0;
  exec_window_pid = 0;
  exec_window_tentative = 0;
}

// The open exec window ends now (its process exited, or its parent got the CPU back).
static __always_inline void exec_window_end_now(__u64 now) {
  if (cur_window) window_end(now);
  exec_window_pid = 0;
  exec_window_closer = 0;
}

// A tracked task created a process (on_fork): it may be a run, so a tentative window opens, unless
// a window is open (what a run starts is the run's).
static __always_inline void exec_window_fork(struct task_struct *child) {
  __u32 pid = child->pid;
  if (pid != (__u32)child->tgid) return;  // a thread
  __u64 now = bpf_ktime_get_ns();
  if (exec_window_closer) exec_window_end_now(now);  // another thread of the parent forks first
  if (cur_window) return;
  window_begin(now, 0, NW_WIN_FROM_EXEC | NW_WIN_TENTATIVE, 0, pid);
  exec_window_pid = pid;
  exec_window_tentative = 1;
}

// A tracked task's execve (on_exec): the tentative window of its fork becomes a window when its
// new name is the command's, and is dropped when it is not. A process running the command
// without a fork seen (the benchmark's own first execve, a shell's exec) begins one here; the same
// process exec'ing the command again (a wrapper of the same name) stays one window.
static __always_inline void exec_window_exec(struct task_struct *p) {
  char comm[NW_LABEL_LEN];
  if (bpf_probe_read_kernel(comm, sizeof comm, p->comm)) return;
  __u32 pid = p->pid;
  if (windows_exec_as_root && pid == exec_window_root) {
    __builtin_memcpy(exec_window_root_comm, comm, NW_LABEL_LEN);
    return;
  }
  const volatile char *want = windows_exec_as_root ? exec_window_root_comm : windows_exec_comm;
  bool match = same_comm(comm, want);
  __u64 now = bpf_ktime_get_ns();
  bool mine = cur_window && exec_window_pid == pid;
  if (mine && exec_window_tentative) {
    if (!match) {
      exec_window_discard(now);
      return;
    }
    struct nw_window *w = window_at(cur_window);
    if (w) {
      __builtin_memcpy(w->text, comm, NW_LABEL_LEN);
      w->flags = (w->flags & ~NW_WIN_TENTATIVE) | NW_WIN_TEXT_LABEL;
    }
    exec_window_tentative = 0;
    return;
  }
  if (!match || mine) return;
  if (cur_window && exec_window_tentative) exec_window_discard(now);
  window_begin(now, 0, NW_WIN_FROM_EXEC | NW_WIN_TEXT_LABEL, comm, pid);
  exec_window_pid = pid;
  exec_window_tentative = 0;
  exec_window_closer = 0;
}

// A tracked task's exit (on_exit): the window of its process (its leader: after an execve the
// exec'ing thread is the leader) ends; when the parent waits for it, at the parent's next
// switch-in (exec_window_switch_in), since that is when it reaps the child and stops its clock.
static __always_inline void exec_window_exit(struct task_struct *p) {
  __u32 pid = p->pid;
  if (!pid || pid != exec_window_pid || pid != (__u32)p->tgid || !cur_window) return;
  __u64 now = bpf_ktime_get_ns();
  if (exec_window_tentative) {
    exec_window_discard(now);
    return;
  }
  struct task_struct *parent = p->real_parent;
  if (parent && !parent->on_cpu && tracked_info(parent)) {
    exec_window_closer = parent->pid;
    return;
  }
  exec_window_end_now(now);
}

// on_switch, a tracked task getting the CPU: the parent a window waits for.
static __always_inline void exec_window_switch_in(__u32 pid) {
  if (exec_window_closer && exec_window_closer == pid) exec_window_end_now(bpf_ktime_get_ns());
}

static __always_inline bool current_tracked(void) { return tracked_info(bpf_get_current_task_btf()) != 0; }

// Attached to every process (pid -1) running the binary: only the benchmark's tasks mark.
SEC("usdt")
int on_usdt_begin(struct pt_regs *ctx) {
  __u64 now = bpf_ktime_get_ns();
  if (!current_tracked()) return 0;
  long label = 0;
  bool has = bpf_usdt_arg_cnt(ctx) > 0 && bpf_usdt_arg(ctx, 0, &label) == 0;
  window_begin(now, label, has ? NW_WIN_LABEL : 0, 0, (__u32)bpf_get_current_pid_tgid());
  return 0;
}

SEC("usdt")
int on_usdt_end(struct pt_regs *ctx) {
  __u64 now = bpf_ktime_get_ns();
  if (!current_tracked()) return 0;
  window_end(now);
  return 0;
}

// --windows-at: attached by user space to the function (every process running the binary; only
// the benchmark's threads count). --windows gbench attaches on_call_return as a uprobe at the entry
// of State::FinishKeepRunning() instead: the window is what Google Benchmark times.
SEC("uprobe")
int on_call_entry(struct pt_regs *ctx) {
  struct nw_task_info *ti = tracked_info(bpf_get_current_task_btf());
  if (!ti) return 0;
  if (ti->call_depth++ != 0) return 0;
  __u64 now = bpf_ktime_get_ns();
  if (call_window_shared) {
    struct nw_window *open = window_at(window_open());
    if (open && !open->end_ns) {
      open->flags |= NW_WIN_SHARED;
      return 0;
    }
  }
  __s64 label = 0;
  __u32 flags = NW_WIN_FROM_CALL;
  if (call_label_offset >= 0 &&
      !bpf_probe_read_user(&label, sizeof label, (const void *)(PT_REGS_PARM1(ctx) + call_label_offset)))
    flags |= NW_WIN_LABEL;
  if (call_window_timed) flags |= NW_WIN_AWAIT_TIMER;
  window_begin(now, label, flags, 0, (__u32)bpf_get_current_pid_tgid());
  if (call_window_timed && cur_window) window_pause(cur_window, now, true);
  return 0;
}

SEC("uretprobe")
int on_call_return(struct pt_regs *ctx) {
  __u64 now = bpf_ktime_get_ns();
  struct nw_task_info *ti = tracked_info(bpf_get_current_task_btf());
  if (!ti || !ti->call_depth) return 0;
  if (--ti->call_depth == 0) {
    // Only the window this thread opened (another thread's call may have ended it and begun its own).
    struct nw_window *w = window_at(window_open());
    if (w && w->pid == (__u32)bpf_get_current_pid_tgid() && !w->end_ns) window_end(now);
  }
  return 0;
}

// --windows gbench: uprobes at the entry of State::PauseTiming() and State::ResumeTiming() (every
// process running the library). Only the thread that opened the window moves it: another thread,
// a pause outside any window (FinishKeepRunning pauses after the window ended there) or a second
// stop or start in a row (the library refuses those itself) changes nothing.
SEC("uprobe")
int on_timer_stop(struct pt_regs *ctx) {
  __u64 now = bpf_ktime_get_ns();
  __u32 open = cur_window;
  struct nw_window *w = window_at(open);
  if (w && !w->end_ns && w->pid == (__u32)bpf_get_current_pid_tgid())
    window_pause(open, now, !(w->flags & NW_WIN_SHARED));
  return 0;
}

SEC("uprobe")
int on_timer_start(struct pt_regs *ctx) {
  __u64 now = bpf_ktime_get_ns();
  struct nw_window *w = window_at(paused_window);
  if (w && !w->end_ns && w->pid == (__u32)bpf_get_current_pid_tgid()) window_unpause(now, false);
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
  window_begin(now, 0, flags, text, (__u32)bpf_get_current_pid_tgid());
  return 0;
}

#endif
