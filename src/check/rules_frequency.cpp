// SPDX-License-Identifier: Apache-2.0
// cpu-governor, frequency-range, turbo-boost: a CPU whose clock moves makes timings move.
#include <map>

#include <fmt/format.h>

#include "check/rule_helpers.h"
#include "check/rules.h"
#include "knobs/catalogue.h"
#include "system/cpufreq.h"

namespace nw::check {

namespace {

std::string no_cpufreq(const std::vector<int>& cpus) {
  return fmt::format(
      "no cpufreq on CPU {} (no frequency driver: a VM, or the driver is not loaded); the clock is not under "
      "this kernel's control",
      cpus_text(cpus));
}

}  // namespace

Finding check_cpu_governor(const CheckContext& ctx) {
  std::map<std::string, std::vector<int>> by_governor;
  std::vector<int> missing, not_performance;
  std::map<std::string, std::vector<int>> epp_values;
  std::string driver;
  for (int c : ctx.targets) {
    auto p = sys::read_cpufreq(ctx.root, c);
    if (!p || !p->governor) {
      missing.push_back(c);
      continue;
    }
    by_governor[*p->governor].push_back(c);
    if (*p->governor != "performance") not_performance.push_back(c);
    if (p->epp) epp_values[*p->epp].push_back(c);
    if (p->driver) driver = *p->driver;
  }
  if (by_governor.empty()) return make_finding("cpu-governor", Status::unknown, ctx.targets, no_cpufreq(missing));

  std::string summary;
  for (const auto& [gov, cpus] : by_governor)
    summary += fmt::format("{}governor {} on CPU {}", summary.empty() ? "" : "; ", gov, cpus_text(cpus));
  if (!driver.empty()) summary += fmt::format(" (driver {}", driver);
  // In active mode the P-state driver picks the frequency itself, steered by the EPP hint.
  std::string pstate_dir;
  auto mode = sys::pstate_mode(ctx.root, &pstate_dir);
  if (mode) summary += fmt::format(", {} {} mode", pstate_dir, *mode);
  for (const auto& [epp, cpus] : epp_values) summary += fmt::format(", EPP {} on CPU {}", epp, cpus_text(cpus));
  if (!driver.empty()) summary += ")";
  if (!missing.empty()) summary += fmt::format("; no cpufreq on CPU {}", cpus_text(missing));

  if (not_performance.empty()) return make_finding("cpu-governor", Status::ok, ctx.targets, summary);
  return make_finding("cpu-governor", Status::warn, not_performance, summary,
                      knobs::fix_for_finding("cpu-governor", fix_context(ctx, not_performance)));
}

Finding check_frequency_range(const CheckContext& ctx) {
  std::vector<int> varying, fixed, missing;
  std::string summary;
  for (int c : ctx.targets) {
    auto p = sys::read_cpufreq(ctx.root, c);
    if (!p || !p->min_khz || !p->max_khz) {
      missing.push_back(c);
      continue;
    }
    if (*p->min_khz < *p->max_khz) {
      varying.push_back(c);
      summary += fmt::format("{}CPU {}: scaling_min_freq {} kHz < scaling_max_freq {} kHz", summary.empty() ? "" : "; ",
                             c, *p->min_khz, *p->max_khz);
    } else {
      fixed.push_back(c);
    }
  }
  if (varying.empty() && fixed.empty())
    return make_finding("frequency-range", Status::unknown, ctx.targets, no_cpufreq(missing));
  if (!varying.empty()) {
    summary += " (the frequency may move between runs)";
    return make_finding("frequency-range", Status::warn, varying, summary,
                        knobs::fix_for_finding("frequency-range", fix_context(ctx, varying)));
  }
  auto p = sys::read_cpufreq(ctx.root, fixed.front());
  summary = fmt::format("scaling_min_freq = scaling_max_freq ({} kHz on CPU {})", *p->max_khz, fixed.front());
  if (!missing.empty()) summary += fmt::format("; no cpufreq on CPU {}", cpus_text(missing));
  return make_finding("frequency-range", Status::ok, ctx.targets, summary);
}

Finding check_turbo_boost(const CheckContext& ctx) {
  auto t = sys::read_turbo(ctx.root, ctx.targets);
  if (!t.enabled) {
    bool any_cpufreq = false;
    for (int c : ctx.targets) any_cpufreq = any_cpufreq || sys::read_cpufreq(ctx.root, c).has_value();
    return make_finding(
        "turbo-boost", Status::unknown, ctx.targets,
        any_cpufreq ? "no turbo control found (no intel_pstate/no_turbo nor cpufreq/boost)" : no_cpufreq(ctx.targets));
  }
  if (*t.enabled)
    return make_finding(
        "turbo-boost", Status::warn, ctx.targets,
        fmt::format("turbo on ({}): the clock depends on temperature and on the other cores' load", t.source),
        knobs::fix_for_finding("turbo-boost", fix_context(ctx, ctx.targets)));
  return make_finding("turbo-boost", Status::ok, ctx.targets, fmt::format("turbo off ({})", t.source));
}

}  // namespace nw::check
