// SPDX-License-Identifier: Apache-2.0
// performance-governor, fixed-frequency, turbo-off: the CPU frequency must not move between runs.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "knobs/families.h"
#include "knobs/render.h"
#include "system/cpulist.h"
#include "system/sysroot.h"

namespace nw::knobs::family {

namespace {

const char* kCpu = "/sys/devices/system/cpu";

// The CPU's cpufreq policy directory (cpuN/cpufreq is a link to cpufreq/policyN), or "".
std::string cpufreq_dir(const sys::Sysroot& root, int cpu) {
  std::string d = fmt::format("{}/cpu{}/cpufreq", kCpu, cpu);
  if (root.is_dir(d)) return d;
  d = fmt::format("{}/cpufreq/policy{}", kCpu, cpu);
  return root.is_dir(d) ? d : "";
}

std::string no_cpufreq(const std::vector<int>& cpus) {
  return fmt::format(
      "no cpufreq driver for CPU {}: this kernel does not control the CPU's frequency "
      "(a VM, or cpufreq disabled)",
      sys::format_cpulist(cpus));
}

// Calls add(dir, cpu) for every target CPU with a cpufreq directory; absent when none has one.
template <typename Add>
Plan per_policy(const sys::Sysroot& root, const Targets& t, Add add) {
  Plan p;
  std::vector<int> missing;
  for (int c : t.cpus) {
    std::string dir = cpufreq_dir(root, c);
    if (dir.empty()) {
      missing.push_back(c);
      continue;
    }
    add(p, dir, c);
  }
  if (missing.size() == t.cpus.size()) p.absent = no_cpufreq(t.cpus);
  else if (!missing.empty()) p.note = no_cpufreq(missing);
  return p;
}

}  // namespace

Plan plan_governor(const sys::Sysroot& root, const Targets& t) {
  return per_policy(root, t, [&](Plan& p, const std::string& dir, int cpu) {
    auto avail = root.read_line(dir + "/scaling_available_governors");
    if (avail && (" " + *avail + " ").find(" performance ") == std::string::npos) {
      p.note += fmt::format("{}CPU {} offers no performance governor ({})", p.note.empty() ? "" : "; ", cpu, *avail);
      return;
    }
    p.writes.push_back({dir + "/scaling_governor", "performance\n", Format::text});
    // intel_pstate and amd-pstate in active mode also take an energy/performance preference.
    if (root.exists(dir + "/energy_performance_preference"))
      p.writes.push_back({dir + "/energy_performance_preference", "performance\n", Format::text});
  });
}

Plan plan_fixed_frequency(const sys::Sysroot& root, const Targets& t) {
  return per_policy(root, t, [&](Plan& p, const std::string& dir, int cpu) {
    auto max = root.read_int(dir + "/scaling_max_freq");
    if (!max || !root.exists(dir + "/scaling_min_freq")) {
      p.note += fmt::format("{}CPU {} has no scaling_min_freq/scaling_max_freq", p.note.empty() ? "" : "; ", cpu);
      return;
    }
    p.writes.push_back({dir + "/scaling_min_freq", fmt::format("{}\n", *max), Format::text});
  });
}

Plan plan_turbo(const sys::Sysroot& root, const Targets& t) {
  Plan p;
  std::string no_turbo = std::string(kCpu) + "/intel_pstate/no_turbo";
  std::string boost = std::string(kCpu) + "/cpufreq/boost";
  if (root.exists(no_turbo)) {
    p.writes.push_back({no_turbo, "1\n", Format::text});
  } else if (root.exists(boost)) {
    p.writes.push_back({boost, "0\n", Format::text});
  } else {
    // amd-pstate (and acpi-cpufreq on recent kernels) have boost per policy.
    for (int c : t.cpus) {
      std::string dir = cpufreq_dir(root, c);
      if (!dir.empty() && root.exists(dir + "/boost")) p.writes.push_back({dir + "/boost", "0\n", Format::text});
    }
  }
  if (p.writes.empty())
    p.absent =
        "no turbo control (intel_pstate/no_turbo, cpufreq/boost or a policy's boost): no cpufreq driver, "
        "or the CPU has no turbo";
  return p;
}

Commands cmd_governor(const Context& c) {
  return {render::write(c, "performance", render::cpu_path(c.cpus, "cpufreq/scaling_governor")),
          render::write(c, "performance", render::cpu_path(c.cpus, "cpufreq/energy_performance_preference")) +
              "   # intel_pstate / amd-pstate active mode only"};
}

Commands cmd_fixed_frequency(const Context& c) {
  std::string list = c.cpus.empty() ? "<cpu>" : fmt::format("{}", fmt::join(c.cpus, " "));
  std::string dir = std::string(kCpu) + "/cpu$c/cpufreq";
  return {fmt::format("for c in {}; do cat {}/scaling_max_freq | {}tee {}/scaling_min_freq; done", list, dir,
                      c.sudo ? "sudo " : "", dir)};
}

Commands cmd_turbo(const Context& c) {
  return {render::write(c, "1", std::string(kCpu) + "/intel_pstate/no_turbo") + "   # intel_pstate",
          render::write(c, "0", std::string(kCpu) + "/cpufreq/boost") + "   # acpi-cpufreq",
          render::write(c, "0", render::cpu_path(c.cpus, "cpufreq/boost")) + "   # amd-pstate (per policy)"};
}

}  // namespace nw::knobs::family
