// SPDX-License-Identifier: Apache-2.0
// The processes visible under /proc: names, states and CPU use, for the irqbalance and load
// checks. Read from /proc/<pid>/stat only, so a snapshot of those files gives the same answer.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace nw::sys {

class Sysroot;

struct ProcessInfo {
  int pid = 0;
  std::string comm;
  char state = '?';        // R running, S sleeping, D disk wait, ...
  double cpu_seconds = 0;  // utime + stime
  double age_seconds = 0;  // since the process started; 0 when unknown
  int policy = -1;         // SCHED_OTHER 0, SCHED_FIFO 1, SCHED_RR 2, ...; -1 when the line is short
  int rt_priority = 0;     // 1-99 for SCHED_FIFO/RR
  // Average share of one CPU since the process started (cpu_seconds / age), 0 when unknown.
  double cpu_share() const { return age_seconds > 0 ? cpu_seconds / age_seconds : 0; }
};

// A real-time policy (SCHED_FIFO, SCHED_RR): such a task preempts every SCHED_OTHER task at once.
inline bool realtime_policy(int policy) { return policy == 1 || policy == 2; }

// Parses one /proc/<pid>/stat line (comm may contain spaces and parentheses).
std::optional<ProcessInfo> parse_proc_stat(const std::string& line, double uptime_s, long ticks_per_s);
std::vector<ProcessInfo> read_processes(const Sysroot& root);
// The CPUs a process may run on (Cpus_allowed_list of /proc/<pid>/status), nullopt when unreadable.
std::optional<std::vector<int>> allowed_cpus_of(const Sysroot& root, int pid);

}  // namespace nw::sys
