// SPDX-License-Identifier: Apache-2.0
// The scheduler's run time of every task on the machine, from /proc: what runs beside a
// benchmark (runner/neighbours.h). One small read per task (open/read/close, no streams): the
// two snapshots of a repetition cost ~11 µs per task on the 2-vCPU development VM (2.1 ms with
// 100 tasks, 25 ms with 1,100), where a procfs open is slow.
#pragma once
#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nw::sys {

// A task's name and the CPU it last ran on, from /proc/<pid>/task/<tid>/stat.
struct TaskPlace {
  std::string comm;
  int cpu = -1;
};

struct TaskTime {
  pid_t pid = 0;            // the process (thread group)
  pid_t tid = 0;            // the task (thread)
  uint64_t runtime_ns = 0;  // /proc/<pid>/task/<tid>/schedstat, first field: exact, in ns
  // The task's place and its process's name, when the reader had them at no cost (the kernel's
  // task iterator, probes/task_iterator.h); /proc's reader leaves them out (read_task_place and
  // read_process_comm give them, a read each).
  std::optional<TaskPlace> place;
  std::string process_comm;
};

// Every task under /proc (tasks that end while it reads are skipped), in no particular order.
std::vector<TaskTime> read_task_times();

// Parses one stat line (comm may contain spaces and parentheses; `processor` is field 39).
std::optional<TaskPlace> parse_task_place(std::string_view stat_line);
std::optional<TaskPlace> read_task_place(pid_t pid, pid_t tid);
// The process's name (/proc/<pid>/comm), "" when it has ended.
std::string read_process_comm(pid_t pid);

}  // namespace nw::sys
