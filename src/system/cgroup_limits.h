// SPDX-License-Identifier: Apache-2.0
// What a process's cgroups grant it besides CPU bandwidth (cgroup.h): the CPUs of its cpuset,
// its CPU weight among its sibling groups, and its memory limit and usage. Read through a Sysroot
// in either cgroup version, so `check --sysroot` and the fixture trees see what the live machine
// sees.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "system/cgroup.h"
#include "system/sysroot.h"

namespace nw::sys {

// The CPUs a process's cpuset grants and the group they were read from: v1 cpuset.effective_cpus
// (cpuset.cpus on kernels without it); v2 cpuset.cpus.effective of the group or, where the cpuset
// controller is not enabled for it, of the nearest ancestor that has the file (it inherits them).
struct CpusetCpus {
  CpuCgroup group;
  std::vector<int> cpus;
};
// nullopt when no cpuset controller is mounted or no group on the way up has a readable list.
std::optional<CpusetCpus> read_cpuset(const Sysroot& root, const std::string& pid = "self");

// The group's CPU weight: v1 cpu.shares (default 1024), v2 cpu.weight (default 100); nullopt
// when the file is absent (v2 root group) or not a number.
std::optional<int64_t> read_cpu_weight(const Sysroot& root, const CpuCgroup& cg);

// A memory limit of the process's group or of one above it (a limit counts everything below it),
// with that group's usage. limit_bytes nullopt: no limit anywhere up the hierarchy (then group is
// the process's own).
struct MemoryLimit {
  CpuCgroup group;
  std::optional<int64_t> limit_bytes;
  int64_t usage_bytes = 0;
  // usage / limit; 0 without a limit.
  double used() const { return limit_bytes && *limit_bytes > 0 ? double(usage_bytes) / double(*limit_bytes) : 0.0; }
};
// The limited group with the least room left (limit - usage), among the process's own memory
// group and its ancestors; nullopt when no memory controller is mounted or the own group's usage
// is unreadable (v1 memory.usage_in_bytes, v2 memory.current).
std::optional<MemoryLimit> read_memory_limit(const Sysroot& root, const std::string& pid = "self");

// A memory limit file's value: v1 memory.limit_in_bytes, v2 memory.max. nullopt for "no limit":
// v2 "max", v1 the page-rounded largest counter (9223372036854771712 on 4 KiB pages), or text
// that is not a number.
std::optional<int64_t> parse_memory_limit(const std::string& text);

}  // namespace nw::sys
