// Identity of the machine a run was recorded on: enough to tell two records' machines apart.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

namespace nw {

// The machine a run was recorded on (the record's "host" object).
// The benchmark's group in the CPU controller's hierarchy (noisewatch's own: the benchmark
// inherits it) and the quota that can throttle it: its own or the nearest ancestor's.
struct CgroupInfo {
  int version = 0;                      // 1 or 2
  std::string path;                     // "/", "/docker/ab12", ...
  std::optional<std::string> quota_path;  // the innermost group with a CPU quota (itself or above)
  std::optional<int64_t> quota_us, period_us;
};

struct HostInfo {
  std::string hostname, kernel, cpu_model;
  bool virtualized = false;
  int online_cpus = 0;
  std::optional<CgroupInfo> cgroup;     // absent where no cpu controller is mounted
};

}  // namespace nw

namespace nw::sys {

// Reads kernel, CPU model, hypervisor flag and online CPUs under `root` ("" = live machine).
// Hostname and kernel come from uname() on the live machine, from proc/sys/kernel for a sysroot.
HostInfo read_host_info(const std::string& root = "");

}  // namespace nw::sys
