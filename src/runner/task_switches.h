// SPDX-License-Identifier: Apache-2.0
// What the held child did before the probe tracked it, which getrusage() counts and the probe
// cannot have seen: its context switches (/proc/<pid>/status) and its run time
// (/proc/<pid>/schedstat).
#pragma once
#include <sys/types.h>

#include <string>

#include "record/run_record.h"

namespace nw::runner {

// Parses the voluntary_ctxt_switches / nonvoluntary_ctxt_switches lines; missing lines read 0.
SwitchCounts parse_task_switches(const std::string& status_text);
// 0/0 when the file cannot be read (the task is gone).
SwitchCounts read_task_switches(pid_t pid);
// The first field of /proc/<pid>/schedstat: the scheduler's runtime in ns (exact, even for a
// running task); 0 when it cannot be read.
uint64_t parse_task_runtime(const std::string& schedstat_text);
uint64_t read_task_runtime(pid_t pid);

}  // namespace nw::runner
