// A task's context switches so far, from /proc/<pid>/status: the switches a held child made
// before the probe tracked it, which getrusage() counts and the probe cannot have seen.
#pragma once
#include <sys/types.h>

#include <string>

#include "record/run_record.h"

namespace nw::runner {

// Parses the voluntary_ctxt_switches / nonvoluntary_ctxt_switches lines; missing lines read 0.
SwitchCounts parse_task_switches(const std::string& status_text);
// 0/0 when the file cannot be read (the task is gone).
SwitchCounts read_task_switches(pid_t pid);

}  // namespace nw::runner
