// SPDX-License-Identifier: Apache-2.0
#include "probes/counter_host.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "probes/counter_fd.h"

namespace nw::probes {

bool cpuinfo_says_virtualized(const std::string& cpuinfo) {
  std::ifstream in(cpuinfo);
  for (std::string line; std::getline(in, line);) {
    if (!line.starts_with("flags")) continue;
    std::istringstream words(line.substr(line.find(':') + 1));
    for (std::string w; words >> w;)
      if (w == "hypervisor") return true;
    return false;
  }
  return false;
}

std::string no_pmu_reason(int err, bool virtualized) {
  if (err == EACCES || err == EPERM) return permission_hint();
  if (virtualized) return "no hardware PMU exposed: virtual machine";
  return fmt::format("no hardware PMU exposed by the kernel (perf_event_open: {})", std::strerror(err));
}

PmuAvailability probe_hardware_pmu(const std::string& cpuinfo) {
  perf_event_attr attr{};
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_HARDWARE;
  attr.config = PERF_COUNT_HW_CPU_CYCLES;
  // User mode only, so that an unprivileged kernel.perf_event_paranoid=2 still answers.
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  int err = probe_open(attr);
  if (err == 0) return {true, ""};
  return {false, no_pmu_reason(err, cpuinfo_says_virtualized(cpuinfo))};
}

std::optional<std::string> aperf_mperf_missing(const std::string& devices) {
  auto events = sysfs_pmu_events("msr", devices);
  auto has = [&](const char* e) { return std::find(events.begin(), events.end(), e) != events.end(); };
  if (events.empty()) return fmt::format("no msr PMU in {} (kernel without CONFIG_PERF_EVENTS_MSR?)", devices);
  if (!has("aperf") || !has("mperf"))
    return "the msr PMU offers no aperf/mperf: the CPU (or the hypervisor) does not expose "
           "APERF/MPERF";
  if (!has("tsc")) return "the msr PMU offers no tsc to convert aperf/mperf into GHz";
  return std::nullopt;
}

std::string permission_hint() {
  std::ifstream in("/proc/sys/kernel/perf_event_paranoid");
  std::string level = "?";
  in >> level;
  return fmt::format(
      "perf_event_open not permitted (kernel.perf_event_paranoid={}): run as root "
      "or `sysctl kernel.perf_event_paranoid=1`",
      level);
}

}  // namespace nw::probes
