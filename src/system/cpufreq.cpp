// SPDX-License-Identifier: Apache-2.0
#include "system/cpufreq.h"

#include "system/sysroot.h"

namespace nw::sys {

std::optional<CpuFreqPolicy> read_cpufreq(const Sysroot& root, int cpu) {
  std::string dir = "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/cpufreq";
  if (!root.is_dir(dir)) {
    // Some copies keep only cpufreq/policyN; the policy of a CPU alone is policy<cpu>.
    dir = "/sys/devices/system/cpu/cpufreq/policy" + std::to_string(cpu);
    if (!root.is_dir(dir)) return std::nullopt;
  }
  CpuFreqPolicy p;
  p.cpu = cpu;
  p.governor = root.read_line(dir + "/scaling_governor");
  p.driver = root.read_line(dir + "/scaling_driver");
  p.epp = root.read_line(dir + "/energy_performance_preference");
  p.min_khz = root.read_int(dir + "/scaling_min_freq");
  p.max_khz = root.read_int(dir + "/scaling_max_freq");
  p.hw_max_khz = root.read_int(dir + "/cpuinfo_max_freq");
  return p;
}

std::optional<std::string> pstate_mode(const Sysroot& root, std::string* driver_dir) {
  for (const char* d : {"intel_pstate", "amd_pstate"}) {
    auto status = root.read_line(std::string("/sys/devices/system/cpu/") + d + "/status");
    if (status && *status != "off") {
      if (driver_dir) *driver_dir = d;
      return status;
    }
  }
  return std::nullopt;
}

TurboState read_turbo(const Sysroot& root, const std::vector<int>& cpus) {
  TurboState t;
  if (auto no_turbo = root.read_int("/sys/devices/system/cpu/intel_pstate/no_turbo")) {
    t.enabled = *no_turbo == 0;
    t.source = "intel_pstate/no_turbo=" + std::to_string(*no_turbo);
    return t;
  }
  if (auto boost = root.read_int("/sys/devices/system/cpu/cpufreq/boost")) {
    t.enabled = *boost != 0;
    t.source = "cpufreq/boost=" + std::to_string(*boost);
    return t;
  }
  // amd-pstate exposes boost per policy (cpufreq/policyN/boost) on recent kernels.
  for (int c : cpus) {
    std::string p = "/sys/devices/system/cpu/cpu" + std::to_string(c) + "/cpufreq/boost";
    if (auto boost = root.read_int(p)) {
      if (*boost != 0 || !t.enabled) {
        t.enabled = *boost != 0;
        t.source = "cpu" + std::to_string(c) + "/cpufreq/boost=" + std::to_string(*boost);
      }
      if (*boost != 0) break;
    }
  }
  return t;
}

}  // namespace nw::sys
