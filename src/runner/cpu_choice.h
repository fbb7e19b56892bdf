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

// CPUs this process may run on and that are online.
std::vector<int> allowed_cpus();

// Never CPU 0 when another is allowed (it does the housekeeping: timers, RCU, most IRQs by
// default); among the rest, the CPU that has served the fewest device IRQs so far.
DefaultCpus choose_cpu(const std::vector<int>& allowed, const sys::Interrupts& irqs);

// Checks user-given CPUs against the allowed set; throws nw::Error naming the bad one.
void validate_cpus(const std::vector<int>& wanted, const std::vector<int>& allowed);

}  // namespace nw::runner
