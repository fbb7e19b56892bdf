// SPDX-License-Identifier: Apache-2.0
#include "system/allowed_cpus.h"

#include <sched.h>

#include <algorithm>
#include <iterator>

#include "system/cgroup_limits.h"
#include "system/cpulist.h"

namespace nw::sys {

std::vector<int> CpuAvailability::unavailable() const {
  std::vector<int> out;
  std::set_difference(online.begin(), online.end(), allowed.begin(), allowed.end(), std::back_inserter(out));
  return out;
}

CpuAvailability cpu_availability(std::vector<int> online, const std::optional<std::vector<int>>& affinity) {
  std::sort(online.begin(), online.end());
  CpuAvailability a;
  if (!affinity) {
    a.online = online;
    a.allowed = std::move(online);
    return a;
  }
  std::vector<int> mine = *affinity;
  std::sort(mine.begin(), mine.end());
  if (online.empty()) online = mine;
  a.online = std::move(online);
  std::set_intersection(a.online.begin(), a.online.end(), mine.begin(), mine.end(), std::back_inserter(a.allowed));
  return a;
}

std::optional<std::vector<int>> read_affinity() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return std::nullopt;
  std::vector<int> out;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) out.push_back(c);
  return out;
}

std::optional<std::vector<int>> may_take(const std::optional<std::vector<int>>& cpuset,
                                         const std::optional<std::vector<int>>& affinity) {
  return cpuset && !cpuset->empty() ? cpuset : affinity;
}

std::optional<std::vector<int>> read_may_take() {
  const auto cpuset = read_cpuset(Sysroot{});
  return may_take(cpuset ? std::optional(cpuset->cpus) : std::nullopt, read_affinity());
}

CpuAvailability read_cpu_availability() {
  return cpu_availability(read_online_cpus().value_or(std::vector<int>{}), read_may_take());
}

}  // namespace nw::sys
