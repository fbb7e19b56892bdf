// SPDX-License-Identifier: Apache-2.0
// What this machine lets us count: is there a hardware PMU, and if not, why not (a VM whose
// hypervisor exposes none is the common case), and is APERF/MPERF readable for frequency.
#pragma once
#include <optional>
#include <string>

#include "probes/counter_sysfs_pmu.h"

namespace nw::probes {

struct PmuAvailability {
  bool hardware = false;
  std::string reason;  // why hardware events cannot be counted (empty when they can)
};

// Opens PERF_COUNT_HW_CPU_CYCLES on the calling thread: the kernel's answer is the truth, not
// libpfm4's CPUID-based detection (which names the host's PMU inside a VM that exposes none).
PmuAvailability probe_hardware_pmu(const std::string& cpuinfo = "/proc/cpuinfo");

// Reason for "no hardware PMU" given the errno of perf_event_open on a hardware event.
std::string no_pmu_reason(int err, bool virtualized);

// The x86 "hypervisor" CPUID flag as /proc/cpuinfo shows it.
bool cpuinfo_says_virtualized(const std::string& cpuinfo);

// Why effective frequency cannot be measured here, or nullopt when msr/aperf and msr/mperf
// (and msr/tsc, the reference) are published under `devices`.
std::optional<std::string> aperf_mperf_missing(const std::string& devices = kSysfsPmuDir);

// Message for EACCES/EPERM from perf_event_open: what to do about it.
std::string permission_hint();

}  // namespace nw::probes
