// SPDX-License-Identifier: Apache-2.0
#include "system/cgroup_limits.h"

#include "system/cpulist.h"

namespace nw::sys {

namespace {

// v1 has no "max": an unlimited group shows the largest page counter in bytes, a little under
// 2^63 whatever the page size. No real limit comes near 2^60 bytes (1 EiB).
constexpr int64_t kUnlimitedV1 = int64_t(1) << 60;

std::optional<std::vector<int>> read_cpus(const Sysroot& root, const std::string& file) {
  auto line = root.read_line(file);
  if (!line || line->empty()) return std::nullopt;
  try {
    return parse_cpulist(*line);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace

std::optional<CpusetCpus> read_cpuset(const Sysroot& root, const std::string& pid) {
  auto own = controller_cgroup_of(root, "cpuset", pid);
  if (!own) return std::nullopt;
  const std::vector<std::string> files = own->version == 2
                                             ? std::vector<std::string>{"cpuset.cpus.effective"}
                                             : std::vector<std::string>{"cpuset.effective_cpus", "cpuset.cpus"};
  for (const auto& g : self_and_ancestors(*own))
    for (const auto& f : files)
      if (auto cpus = read_cpus(root, g.dir + "/" + f)) return CpusetCpus{g, *cpus};
  return std::nullopt;
}

std::optional<int64_t> read_cpu_weight(const Sysroot& root, const CpuCgroup& cg) {
  auto v = root.read_int(cg.dir + (cg.version == 2 ? "/cpu.weight" : "/cpu.shares"));
  if (!v) return std::nullopt;
  return int64_t(*v);
}

std::optional<int64_t> parse_memory_limit(const std::string& text) {
  try {
    long long v = std::stoll(text);
    if (v < 0 || v >= kUnlimitedV1) return std::nullopt;
    return int64_t(v);
  } catch (const std::exception&) {
    return std::nullopt;  // "max", or nothing readable
  }
}

std::optional<MemoryLimit> read_memory_limit(const Sysroot& root, const std::string& pid) {
  auto own = controller_cgroup_of(root, "memory", pid);
  if (!own) return std::nullopt;
  const bool v2 = own->version == 2;
  auto usage_of = [&](const CpuCgroup& g) {
    return root.read_int(g.dir + (v2 ? "/memory.current" : "/memory.usage_in_bytes"));
  };
  auto own_usage = usage_of(*own);
  if (!own_usage) return std::nullopt;
  MemoryLimit best{*own, std::nullopt, *own_usage};
  for (const auto& g : self_and_ancestors(*own)) {
    auto text = root.read_line(g.dir + (v2 ? "/memory.max" : "/memory.limit_in_bytes"));
    auto limit = text ? parse_memory_limit(*text) : std::nullopt;
    auto usage = usage_of(g);
    if (!limit || !usage) continue;
    // The group with the least room reclaims first, whichever level it is.
    if (!best.limit_bytes || *limit - *usage < *best.limit_bytes - best.usage_bytes)
      best = MemoryLimit{g, *limit, *usage};
  }
  return best;
}

}  // namespace nw::sys
