// SPDX-License-Identifier: Apache-2.0
// The agent's own resource use, for its self-metrics (how much the watcher costs).
#pragma once
#include "agent/agent_metrics.h"

namespace nw::agent {

// CPU time from getrusage (every thread), resident memory from /proc/self/statm, open
// descriptors from /proc/self/fd. Fields that cannot be read stay 0.
SelfStats read_self_stats(double start_time_unix);

}  // namespace nw::agent
