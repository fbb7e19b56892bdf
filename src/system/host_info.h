// SPDX-License-Identifier: Apache-2.0
// Identity of the machine a run was recorded on: enough to tell two records' machines apart.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace nw {

// The machine a run was recorded on (the record's "host" object).
// The benchmark's group in the CPU controller's hierarchy (noisewatch's own: the benchmark
// inherits it) and the quota that can throttle it: its own or the nearest ancestor's.
struct CgroupInfo {
  int version = 0;                        // 1 or 2
  std::string path;                       // "/", "/docker/ab12", ...
  std::optional<std::string> quota_path;  // the innermost group with a CPU quota (itself or above)
  std::optional<int64_t> quota_us, period_us;
  std::optional<int64_t> weight;  // the group's own v1 cpu.shares or v2 cpu.weight
};

// The container around the benchmark (system/container.h) and what its cgroups grant it besides
// CPU bandwidth (system/cgroup_limits.h): the record's host.container.
struct ContainerInfo {
  bool detected = false;
  std::string runtime;  // "docker", "kubernetes", ...; "" when unknown
  std::vector<std::string> evidence;
  std::optional<std::string> cpuset_path;  // the cpuset group the CPUs were read from
  std::vector<int> cpuset_cpus;
  std::optional<std::string> memory_path;  // the limited group with the least room, else its own
  std::optional<int64_t> memory_limit_bytes, memory_usage_bytes;
};

struct HostInfo {
  std::string hostname, kernel, cpu_model;
  bool virtualized = false;
  int online_cpus = 0;
  std::optional<CgroupInfo> cgroup;        // absent where no cpu controller is mounted
  std::optional<ContainerInfo> container;  // absent where nothing about it could be read
};

}  // namespace nw

namespace nw::sys {

class Sysroot;

// Reads kernel, CPU model, hypervisor flag and online CPUs under `root` ("" = live machine).
// Hostname and kernel come from uname() on the live machine, from proc/sys/kernel for a sysroot.
HostInfo read_host_info(const std::string& root = "");
// host.container alone; nullopt when neither /proc/self/cgroup nor a cpuset or memory group
// could be read.
std::optional<ContainerInfo> read_container_info(const Sysroot& root);

}  // namespace nw::sys
