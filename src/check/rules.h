// SPDX-License-Identifier: Apache-2.0
// The configuration rules of `noisewatch check`, one function per finding id (docs/contracts.md).
// Each reads only through ctx.root, so it works the same live and on a sysroot, and reports
// `unknown` when its input files are absent.
#pragma once
#include <cstdint>
#include <map>
#include <vector>

#include "check/check_context.h"
#include "check/finding.h"

namespace nw::check {

Finding check_cpu_governor(const CheckContext& ctx);
Finding check_frequency_range(const CheckContext& ctx);
Finding check_turbo_boost(const CheckContext& ctx);
Finding check_smt(const CheckContext& ctx);
Finding check_cpu_isolation(const CheckContext& ctx);
Finding check_nohz_full(const CheckContext& ctx);
Finding check_rcu_nocbs(const CheckContext& ctx);
Finding check_irq_affinity(const CheckContext& ctx);
Finding check_irqbalance(const CheckContext& ctx);
Finding check_aslr(const CheckContext& ctx);
Finding check_transparent_hugepages(const CheckContext& ctx);
Finding check_nmi_watchdog(const CheckContext& ctx);
Finding check_hybrid_cpu(const CheckContext& ctx);
Finding check_cpu_idle_states(const CheckContext& ctx);
Finding check_virtualization(const CheckContext& ctx);
Finding check_load(const CheckContext& ctx);
Finding check_power_supply(const CheckContext& ctx);
Finding check_thermal_throttling(const CheckContext& ctx);
Finding check_numa_balancing(const CheckContext& ctx);
Finding check_cpu_quota(const CheckContext& ctx);
Finding check_cpu_quota_cpuset(const CheckContext& ctx);
Finding check_memory_limit(const CheckContext& ctx);
Finding check_container_unpinned(const CheckContext& ctx);
Finding check_preempt_rt(const CheckContext& ctx);

// Only after the live measurement: fails when even the quietest measured CPU lost at least
// kNoiseFailPpm of its time (results taken on this machine now are not comparable).
inline constexpr double kNoiseWarnPpm = 10'000, kNoiseFailPpm = 100'000;
Finding check_measured_noise(const CheckContext& ctx, const std::vector<CpuNoise>& measured);

// Throttle counts (core + package) of those `cpus` that have them, read now (a Sysroot keeps
// the first read of a file: give a new one), for CheckContext::throttle_before and _after:
// check_thermal_throttling fails when one grew between the two.
std::map<int, uint64_t> read_throttle_counts(const sys::Sysroot& root, const std::vector<int>& cpus);

// Every rule, in the order of docs/contracts.md's list of ids.
std::vector<Finding> run_all_checks(const CheckContext& ctx);

}  // namespace nw::check
