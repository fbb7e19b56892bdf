// SPDX-License-Identifier: Apache-2.0
#include "system/cpu_selection.h"

#include <algorithm>

#include <fmt/format.h>

#include "common/errors.h"
#include "system/cpulist.h"

namespace nw::sys {

namespace {

bool contains(const std::vector<int>& sorted, int cpu) { return std::binary_search(sorted.begin(), sorted.end(), cpu); }

// "CPU 1" or "CPUs 1,3": for messages that name one or several CPUs.
std::string cpus_phrase(const std::vector<int>& cpus) {
  return fmt::format("{} {}", cpus.size() == 1 ? "CPU" : "CPUs", format_cpulist(cpus));
}

std::vector<int> checked_request(const CpuAvailability& avail, std::vector<int> wanted) {
  if (wanted.empty()) throw Error("--cpu names no CPU (expected e.g. --cpu 1 or --cpu 2-3)");
  std::sort(wanted.begin(), wanted.end());
  wanted.erase(std::unique(wanted.begin(), wanted.end()), wanted.end());
  // An empty online list is unknown (a tree without the file): only what is known is checked.
  std::vector<int> offline, refused;
  for (int c : wanted) {
    if (!avail.online.empty() && !contains(avail.online, c)) offline.push_back(c);
    else if (!avail.allowed.empty() && !contains(avail.allowed, c)) refused.push_back(c);
  }
  if (!offline.empty())
    throw Error(fmt::format("{} {} not online (online CPUs: {}); pick --cpu from that list", cpus_phrase(offline),
                            offline.size() == 1 ? "is" : "are", format_cpulist(avail.online)));
  if (!refused.empty())
    throw Error(
        fmt::format("{} {} not available to this process (cpuset/affinity allows {}); pick --cpu from "
                    "those, or widen the cpuset or affinity (docker run --cpuset-cpus, taskset)",
                    cpus_phrase(refused), refused.size() == 1 ? "is" : "are", cpus_phrase(avail.allowed)));
  return wanted;
}

}  // namespace

CpuSelection select_cpus(const CpuAvailability& avail, const std::optional<std::vector<int>>& requested,
                         const std::vector<int>& preferred) {
  CpuSelection s;
  s.unavailable = avail.unavailable();
  if (requested) {
    s.cpus = checked_request(avail, *requested);
    return s;
  }
  for (int c : avail.allowed)
    if (std::find(preferred.begin(), preferred.end(), c) != preferred.end()) s.cpus.push_back(c);
  if (s.cpus.empty()) s.cpus = avail.allowed;
  return s;
}

std::string unavailable_note(const std::vector<int>& unavailable) {
  if (unavailable.empty()) return "";
  return fmt::format("{} not available to this process (cpuset/affinity)", cpus_phrase(unavailable));
}

}  // namespace nw::sys
