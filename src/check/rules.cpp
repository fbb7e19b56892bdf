// SPDX-License-Identifier: Apache-2.0
#include "check/rules.h"

namespace nw::check {

std::vector<Finding> run_all_checks(const CheckContext& ctx) {
  using Rule = Finding (*)(const CheckContext&);
  static const Rule kRules[] = {
      check_cpu_governor,
      check_frequency_range,
      check_turbo_boost,
      check_smt,
      check_cpu_isolation,
      check_nohz_full,
      check_rcu_nocbs,
      check_irq_affinity,
      check_irqbalance,
      check_aslr,
      check_transparent_hugepages,
      check_nmi_watchdog,
      check_hybrid_cpu,
      check_cpu_idle_states,
      check_virtualization,
      check_load,
      check_power_supply,
      check_thermal_throttling,
      check_numa_balancing,
      check_cpu_quota,
      check_cpu_quota_cpuset,
      check_memory_limit,
      check_container_unpinned,
      check_preempt_rt,
  };
  std::vector<Finding> out;
  for (Rule r : kRules) out.push_back(r(ctx));
  return out;
}

}  // namespace nw::check
