// SPDX-License-Identifier: Apache-2.0
// Which CPU the benchmark runs on when the user did not say.
#pragma once
#include <string>
#include <vector>

#include "system/interrupts.h"

namespace nw::runner {

// The CPU picked without measuring (check::recommend_cpu picks from a measurement), and why.
struct DefaultCpus {
  std::vector<int> cpus;  // empty when no CPU is allowed
  std::string reason;     // one line, for the user
};

// Among `allowed` (the CPUs this process may use: sys::CpuAvailability), never CPU 0 when another
// is allowed (it does the housekeeping: timers, RCU, most IRQs by default); among the rest, the CPU
// that has served the fewest device IRQs so far.
DefaultCpus choose_cpu(const std::vector<int>& allowed, const sys::Interrupts& irqs);

// The CPUs a benchmark command pins to, read from this machine: `cpu_arg` as --cpu gives it (a
// CPU list, checked: nw::Error when one is offline or not allowed), or "" for choose_cpu's pick.
// The reason names the CPUs the process may not use, if any (`run`, live `compare`).
DefaultCpus cpus_for(const std::string& cpu_arg);

}  // namespace nw::runner
