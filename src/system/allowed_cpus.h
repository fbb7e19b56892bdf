// SPDX-License-Identifier: Apache-2.0
// The CPUs this process may use: those sched_setaffinity accepts, its cpuset's (a cpuset cgroup
// such as `docker run --cpuset-cpus 0` narrows them), among the online CPUs. `run`, `check` and
// `agent` default to these, because a thread cannot be pinned anywhere else (EINVAL): a container
// is a machine of its own. The affinity this process inherited is not the limit: under isolcpus
// every process starts without the isolated CPUs, yet moving a benchmark onto one (taskset -c N)
// is allowed and is the point. cpu_selection.h turns them and a --cpu request into the CPUs to use.
#pragma once
#include <optional>
#include <vector>

namespace nw::sys {

struct CpuAvailability {
  std::vector<int> online;   // sorted; empty when unknown (no readable online file)
  std::vector<int> allowed;  // sorted; the online CPUs this process may use

  // Online CPUs this process may not use: named as "not available to this process
  // (cpuset/affinity)", never measured or pinned to.
  std::vector<int> unavailable() const;
};

// Pure: `affinity` nullopt means no restriction is known (a sysroot: another machine's files, not
// this process), so every online CPU is allowed. Unknown `online` is taken to be the affinity.
CpuAvailability cpu_availability(std::vector<int> online, const std::optional<std::vector<int>>& affinity);

// This process's affinity; nullopt when sched_getaffinity fails.
std::optional<std::vector<int>> read_affinity();

// Pure: the CPUs a process may move itself to: its cpuset's where one is known, else its affinity.
std::optional<std::vector<int>> may_take(const std::optional<std::vector<int>>& cpuset,
                                         const std::optional<std::vector<int>>& affinity);

// This process's: may_take(its cpuset's CPUs, read_affinity()).
std::optional<std::vector<int>> read_may_take();

// This process on this machine: /sys/devices/system/cpu/online and read_may_take().
CpuAvailability read_cpu_availability();

}  // namespace nw::sys
