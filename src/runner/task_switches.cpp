// SPDX-License-Identifier: Apache-2.0
#include "runner/task_switches.h"

#include <time.h>

#include <sstream>

#include "common/files.h"
#include "system/monotonic_clock.h"

namespace nw::runner {

SwitchCounts parse_task_switches(const std::string& status_text) {
  SwitchCounts t;
  std::istringstream in(status_text);
  std::string line;
  while (std::getline(in, line)) {
    auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = line.substr(0, colon);
    uint64_t* field = key == "voluntary_ctxt_switches"      ? &t.voluntary
                      : key == "nonvoluntary_ctxt_switches" ? &t.involuntary
                                                            : nullptr;
    if (!field) continue;
    try {
      *field = std::stoull(line.substr(colon + 1));
    } catch (const std::exception&) {
      *field = 0;
    }
  }
  return t;
}

SwitchCounts read_task_switches(pid_t pid) {
  return parse_task_switches(read_file("/proc/" + std::to_string(pid) + "/status"));
}

uint64_t parse_task_runtime(const std::string& schedstat_text) {
  try {
    return std::stoull(schedstat_text);
  } catch (const std::exception&) {
    return 0;
  }
}

// The process's CPU clock, not /proc/PID/schedstat: for a task on a CPU the kernel brings that
// clock up to date when it is read, whereas schedstat is as old as the scheduler's last update (up
// to a tick), and what a held child still running when tracked ran since then would be counted as
// the benchmark's. The held child is one thread, so the process's clock is its own. (schedstat
// where the clock cannot be read.)
uint64_t read_task_runtime(pid_t pid) {
  if (pid <= 0) return 0;  // (to clock_getcpuclockid, 0 and -1 name the calling process)
  clockid_t clock;
  timespec ts{};
  if (clock_getcpuclockid(pid, &clock) == 0 && clock_gettime(clock, &ts) == 0) return sys::timespec_ns(ts);
  return parse_task_runtime(read_file("/proc/" + std::to_string(pid) + "/schedstat"));
}

}  // namespace nw::runner
