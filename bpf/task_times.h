// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* One record of the task iterator (bpf/task_times.bpf.h) as user space reads it
 * (src/probes/task_iterator.cpp). Plain fixed-size fields: the same layout for clang -target bpf
 * and g++. */
#ifndef NOISEWATCH_BPF_TASK_TIMES_H
#define NOISEWATCH_BPF_TASK_TIMES_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define NW_TASK_COMM_LEN 16

struct nw_task_time {
  __u32 pid;        /* the process (thread group), in the reader's pid namespace */
  __u32 tid;        /* the task */
  __u64 runtime_ns; /* se.sum_exec_runtime */
  __s32 cpu;        /* the CPU it last ran on */
  __u32 pad;
  char comm[NW_TASK_COMM_LEN];         /* the task's name */
  char process_comm[NW_TASK_COMM_LEN]; /* its process's (the thread group leader's) */
};

#endif
