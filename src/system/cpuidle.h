// SPDX-License-Identifier: Apache-2.0
// CPU idle states (cpuidle sysfs): how deep a CPU may sleep and how long it takes to wake up.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace nw::sys {

class Sysroot;

struct IdleState {
  int index = 0;
  std::string name;
  long long latency_us = 0;  // exit latency
  bool disabled = false;
};

// nullopt when the CPU has no cpuidle directory.
std::optional<std::vector<IdleState>> read_idle_states(const Sysroot& root, int cpu);

}  // namespace nw::sys
