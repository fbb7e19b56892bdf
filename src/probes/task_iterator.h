// SPDX-License-Identifier: Apache-2.0
// Every task's run time, read through the probe's task iterator (bpf/task_times.bpf.h) in one
// read() instead of three /proc files per task: a repetition's neighbours (runner/neighbours.h)
// cost ~0.8-1 ms of /proc per snapshot on this project's VMs, ~0.15 ms this way, against a
// repetition of hyperfine's kind lasting ~2 ms.
#pragma once

#include <optional>
#include <vector>

#include "system/task_times.h"

namespace nw::probes {

// Reads the iterator attached as `link_fd` once through: every task with its cpu and names.
// nullopt when it cannot be read (the caller reads /proc).
std::optional<std::vector<sys::TaskTime>> read_task_iterator(int link_fd);

}  // namespace nw::probes
