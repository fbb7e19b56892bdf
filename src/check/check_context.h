// SPDX-License-Identifier: Apache-2.0
// Everything the configuration rules read, gathered once per check from one Sysroot.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "system/allowed_cpus.h"
#include "system/kernel_cmdline.h"
#include "system/sysroot.h"
#include "system/topology.h"

namespace nw::check {

struct CheckContext {
  const sys::Sysroot& root;
  std::vector<int> targets;        // the CPUs the benchmark would run on
  sys::CpuAvailability available;  // of this process (live), else every online CPU
  sys::Topology topo;
  std::optional<sys::KernelCmdline> cmdline;  // nullopt when /proc/cmdline is unreadable
  std::optional<std::vector<int>> isolated;   // isolated file ∪ isolcpus=; nullopt if neither readable
  // Thermal throttle counts (core + package) per target CPU read just before and just after the
  // live measurement (read_throttle_counts); empty without it.
  std::map<int, uint64_t> throttle_before, throttle_after;
};

// Reads the shared inputs and resolves the target CPUs through sys::select_cpus: `cpus` when given
// (each must be online and, live, allowed for this process, else nw::Error), otherwise the allowed
// isolated CPUs if any, else every allowed CPU. On a sysroot every online CPU is allowed: the
// affinity of this process says nothing about another machine.
CheckContext make_context(const sys::Sysroot& root, const std::optional<std::vector<int>>& cpus);

// Parses a --cpu value ("2", "2-3,6"); throws nw::Error with what to do on bad syntax.
std::vector<int> parse_cpu_option(const std::string& text);

}  // namespace nw::check
