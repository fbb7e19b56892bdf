// SPDX-License-Identifier: Apache-2.0
// CPU frequency scaling state (cpufreq sysfs): governor, limits, EPP and turbo/boost.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace nw::sys {

class Sysroot;

struct CpuFreqPolicy {
  int cpu = -1;
  std::optional<std::string> governor, driver, epp;  // epp: energy_performance_preference
  std::optional<long long> min_khz, max_khz, hw_max_khz;
};

// Turbo/boost state, from intel_pstate/no_turbo or cpufreq/boost (global or per policy).
struct TurboState {
  std::optional<bool> enabled;
  std::string source;  // the file that said so
};

// Per CPU: nullopt when the CPU has no cpufreq directory (no driver, or a VM).
std::optional<CpuFreqPolicy> read_cpufreq(const Sysroot& root, int cpu);
// "active"/"passive"/"guided" of intel_pstate or amd_pstate, when one of them drives the CPUs.
std::optional<std::string> pstate_mode(const Sysroot& root, std::string* driver_dir = nullptr);
TurboState read_turbo(const Sysroot& root, const std::vector<int>& cpus);

}  // namespace nw::sys
