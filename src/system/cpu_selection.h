// SPDX-License-Identifier: Apache-2.0
// Which CPUs a command pins to or measures: an explicit --cpu LIST, checked against the CPUs this
// process may use (allowed_cpus.h), or by default those CPUs. Pure, so that the rules are tested
// without a cpuset; `run`, `check` and `agent` all choose through it.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "system/allowed_cpus.h"

namespace nw::sys {

struct CpuSelection {
  std::vector<int> cpus;         // sorted; empty only when no CPU is known at all
  std::vector<int> unavailable;  // online CPUs this process may not use, to name in the output
};

// `requested` (an explicit --cpu LIST): every CPU in it must be online and allowed, else nw::Error
// (one line naming the CPUs that are allowed and what to do). Without it: the `preferred` CPUs
// (check's isolated ones) that are allowed, or every allowed CPU when none of them is.
CpuSelection select_cpus(const CpuAvailability& avail, const std::optional<std::vector<int>>& requested,
                         const std::vector<int>& preferred = {});

// "CPU 1 not available to this process (cpuset/affinity)", "CPUs 2-3 not ..."; "" for none.
std::string unavailable_note(const std::vector<int>& unavailable);

}  // namespace nw::sys
