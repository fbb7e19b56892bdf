// SPDX-License-Identifier: Apache-2.0
// CPU topology of the machine under a root: online CPUs, SMT siblings, NUMA nodes and core
// kinds (hybrid P/E cores). hwloc reads it (it honours a file-system root through HWLOC_FSROOT);
// when hwloc cannot load, the sysfs topology files are read directly.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace nw::sys {

class Sysroot;

struct CpuKind {
  std::vector<int> cpus;
  int efficiency = 0;           // hwloc's rank: higher = more performant
  std::string name;             // "P-core", "E-core", or "" when the kernel does not say
  std::optional<int> capacity;  // /sys/.../cpu_capacity (1024 = the fastest)
  std::optional<int> max_mhz;
};

struct Topology {
  std::vector<int> online;                   // empty when unknown
  std::map<int, std::vector<int>> siblings;  // CPU -> its SMT siblings (itself excluded)
  std::optional<bool> smt_active;            // /sys/devices/system/cpu/smt/active
  int numa_nodes = 0;                        // 0 when unknown
  std::vector<CpuKind> kinds;                // least to most performant; one kind = homogeneous
  std::string source;                        // "hwloc" or "sysfs"

  const CpuKind* kind_of(int cpu) const;
};

Topology read_topology(const Sysroot& root);

}  // namespace nw::sys
