// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
// Every task's scheduler run time, in one read: a task iterator that writes one fixed record per
// task (bpf/task_times.h). It stands in for three /proc files per task (0.8-1 ms per snapshot on
// this project's VMs with ~200 tasks, where a procfs open is slow), taken once per repetition for
// the neighbours (src/runner/neighbours.h). The same figure as /proc/<pid>/task/<tid>/schedstat's
// first field (se.sum_exec_runtime), the same CPU as stat's `processor`, the same names as comm.
// A task a security module protects from inspection (root's readlink of its /proc/<pid>/ns
// refused) is not iterated, where /proc lists it: stock kernels have none; this project's VMs
// protect their supervisor so. Part of the probe's object (its own object would parse the
// kernel's BTF again: +12 ms once); loaded only where the kernel has task iterators
// (probes/kernel_features.cpp).
#include "task_times.h"

// The iterator's context and a pid's number as the kernel lays them out, declared here without
// CO-RE: the context is the iterator's fixed ABI, and upid has been its `nr` and a namespace
// pointer since Linux 2.6.24. Every kernel type libbpf relocates costs a search of the kernel's
// ~130,000 BTF types at load (~0.75 ms each: 13 types were once most of libbpf's share of start-up).
struct nw_iter_meta {
  struct seq_file *seq;
};
struct nw_iter_task {
  struct nw_iter_meta *meta;
  struct task_struct *task;
};
struct nw_upid {
  int nr;
  void *ns;
};
// struct pid's level and numbers[], from the kernel's BTF (src/probes/kernel_btf_scan.h; without
// them this program is not loaded): plain reads, one kernel type fewer for libbpf to search.
const volatile __u32 off_pid_level = 0, off_pid_numbers = 0;

static __always_inline __u32 pid_level(void *p) {
  __u32 level = 0;
  bpf_probe_read_kernel(&level, sizeof level, p + off_pid_level);
  return level;
}

// A task's number in the pid namespace at `level` (the reader's, as its /proc shows it), 0 when
// it has none there.
static __always_inline __u32 pid_at(struct task_struct *t, __u32 level) {
  void *p = BPF_CORE_READ(t, thread_pid);
  if (!p || level >= 32 || level > pid_level(p)) return 0;
  struct nw_upid u = {};
  bpf_probe_read_kernel(&u, sizeof u, p + off_pid_numbers + level * sizeof(struct nw_upid));
  return u.nr;
}

SEC("iter/task")
int task_times(struct nw_iter_task *ctx) {
  struct task_struct *t = ctx->task;
  if (!t) return 0;
  // The iterator walks the reader's pid namespace; numbers are given as they are there, like
  // /proc (inside a container, the container's numbers).
  struct task_struct *me = bpf_get_current_task_btf();
  void *mine = BPF_CORE_READ(me, thread_pid);
  __u32 level = mine ? pid_level(mine) : 0;
  struct task_struct *leader = BPF_CORE_READ(t, group_leader);
  struct nw_task_time r = {};
  r.tid = pid_at(t, level);
  r.pid = pid_at(leader, level);
  if (!r.tid || !r.pid) return 0;
  r.runtime_ns = BPF_CORE_READ(t, se.sum_exec_runtime);
  r.cpu = BPF_CORE_READ(t, thread_info.cpu);
  BPF_CORE_READ_STR_INTO(&r.comm, t, comm);
  BPF_CORE_READ_STR_INTO(&r.process_comm, leader, comm);
  bpf_seq_write(ctx->meta->seq, &r, sizeof r);
  return 0;
}
