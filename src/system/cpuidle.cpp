// SPDX-License-Identifier: Apache-2.0
#include "system/cpuidle.h"

#include "system/sysroot.h"

namespace nw::sys {

std::optional<std::vector<IdleState>> read_idle_states(const Sysroot& root, int cpu) {
  std::string dir = "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/cpuidle";
  if (!root.is_dir(dir)) return std::nullopt;
  std::vector<IdleState> states;
  for (const auto& entry : root.list_dir(dir)) {
    if (entry.rfind("state", 0) != 0) continue;
    IdleState s;
    try {
      s.index = std::stoi(entry.substr(5));
    } catch (const std::exception&) {
      continue;
    }
    std::string base = dir + "/" + entry;
    auto latency = root.read_int(base + "/latency");
    if (!latency) continue;
    s.latency_us = *latency;
    s.name = root.read_line(base + "/name").value_or(entry);
    s.disabled = root.read_int(base + "/disable").value_or(0) != 0;
    states.push_back(s);
  }
  return states;
}

}  // namespace nw::sys
