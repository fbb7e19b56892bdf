// SPDX-License-Identifier: Apache-2.0
// The knobs' planners (what `tune` writes on this machine) and renderers (the commands by hand),
// one file per family; catalogue.cpp puts them in the table. Internal to src/knobs.
#pragma once
#include <string>
#include <vector>

#include "knobs/knob.h"

namespace nw::knobs::family {

using Commands = std::vector<std::string>;

// family_cpufreq.cpp: frequency scaling.
Plan plan_governor(const sys::Sysroot& root, const Targets& t);
Plan plan_fixed_frequency(const sys::Sysroot& root, const Targets& t);
Plan plan_turbo(const sys::Sysroot& root, const Targets& t);
Commands cmd_governor(const Context& c);
Commands cmd_fixed_frequency(const Context& c);
Commands cmd_turbo(const Context& c);

// family_cpu.cpp: SMT siblings and idle states.
inline constexpr long long kDeepIdleLatencyUs = 10;  // exit latency above this is "deep"
Plan plan_smt(const sys::Sysroot& root, const Targets& t);
Plan plan_idle_states(const sys::Sysroot& root, const Targets& t);
Commands cmd_smt(const Context& c);
Commands cmd_idle_states(const Context& c);

// family_kernel.cpp: sysctls and transparent huge pages.
Plan plan_sysctl(const sys::Sysroot& root, const std::string& name, const std::string& value);
Plan plan_thp(const sys::Sysroot& root, const Targets& t);
Commands cmd_sysctl(const Context& c, const std::string& name, const std::string& value);
Commands cmd_aslr(const Context& c);
Commands cmd_thp(const Context& c);

// family_irq.cpp: IRQs, unbound work queues and irqbalance.
Plan plan_irqbalance(const sys::Sysroot& root, const Targets& t);
Plan plan_irq_affinity(const sys::Sysroot& root, const Targets& t);
Plan plan_irq_default_affinity(const sys::Sysroot& root, const Targets& t);
Plan plan_workqueue(const sys::Sysroot& root, const Targets& t);
Commands cmd_irqbalance(const Context& c);
Commands cmd_irq_affinity(const Context& c);
Commands cmd_irq_default_affinity(const Context& c);
Commands cmd_workqueue(const Context& c);

// family_benchmark.cpp: per-benchmark and manual knobs (no planner: `run` flags or by hand).
Commands cmd_pin(const Context& c);
Commands cmd_fifo(const Context& c);
Commands cmd_timer_slack(const Context& c);
Commands cmd_nice(const Context& c);
Commands cmd_clean_env(const Context& c);
Commands cmd_stop_process(const Context& c);
Commands cmd_cpu_quota(const Context& c);

// family_container.cpp: what to change in a container's spec (manual: `tune` never writes to a
// cgroup it did not create). spec_note() is the line that says so; remove_quota_by_hand() the
// write that removes a quota from a group made by hand.
std::string spec_note();
std::string remove_quota_by_hand(const Context& c);
Commands cmd_cpu_quota_cpuset(const Context& c);
Commands cmd_memory_limit(const Context& c);
Commands cmd_container_cpuset(const Context& c);

}  // namespace nw::knobs::family
