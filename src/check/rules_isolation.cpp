// SPDX-License-Identifier: Apache-2.0
// cpu-isolation, nohz-full, rcu-nocbs: keep the scheduler, the tick and RCU callbacks off the
// benchmark's CPUs.
#include <algorithm>

#include <fmt/format.h>

#include "check/rule_helpers.h"
#include "check/rules.h"
#include "system/cpulist.h"

namespace nw::check {

namespace {

std::optional<std::vector<int>> nohz_full_cpus(const CheckContext& ctx, std::string* source) {
  if (auto line = ctx.root.read_line("/sys/devices/system/cpu/nohz_full")) {
    *source = "/sys/devices/system/cpu/nohz_full";
    if (line->empty() || *line == "(null)") return std::vector<int>{};
    try {
      return sys::parse_cpulist(*line);
    } catch (const std::exception&) {
    }
  }
  if (ctx.cmdline) {
    *source = "/proc/cmdline";
    return ctx.cmdline->cpus("nohz_full", ctx.topo.online).value_or(std::vector<int>{});
  }
  return std::nullopt;
}

}  // namespace

Finding check_cpu_isolation(const CheckContext& ctx) {
  if (!ctx.isolated)
    return make_finding("cpu-isolation", Status::unknown, ctx.targets,
                        "neither /sys/devices/system/cpu/isolated nor /proc/cmdline is readable");
  auto missing = uncovered(ctx.targets, *ctx.isolated);
  if (missing.empty())
    return make_finding(
        "cpu-isolation", Status::ok, ctx.targets,
        fmt::format("CPU {} isolated (isolated CPUs: {})", cpus_text(ctx.targets), cpus_text(*ctx.isolated)));
  return make_finding("cpu-isolation", Status::warn, missing,
                      fmt::format("CPU {} not isolated (isolated CPUs: {}): the scheduler puts other tasks there",
                                  cpus_text(missing), cpus_text(*ctx.isolated)),
                      boot_fix(ctx, "cpu-isolation", *ctx.isolated));
}

Finding check_nohz_full(const CheckContext& ctx) {
  std::string source;
  auto cpus = nohz_full_cpus(ctx, &source);
  if (!cpus)
    return make_finding("nohz-full", Status::unknown, ctx.targets,
                        "neither /sys/devices/system/cpu/nohz_full nor /proc/cmdline is readable");
  auto missing = uncovered(ctx.targets, *cpus);
  if (missing.empty())
    return make_finding("nohz-full", Status::ok, ctx.targets,
                        fmt::format("nohz_full={} covers CPU {}", sys::format_cpulist(*cpus), cpus_text(ctx.targets)));
  std::string summary = fmt::format("CPU {} not in nohz_full ({}: {}): the scheduler tick interrupts them",
                                    cpus_text(missing), source, cpus_text(*cpus));
  if (source == "/proc/cmdline") summary += " (no nohz_full file: the kernel may lack CONFIG_NO_HZ_FULL)";
  return make_finding("nohz-full", Status::warn, missing, summary, boot_fix(ctx, "nohz-full", *cpus));
}

Finding check_rcu_nocbs(const CheckContext& ctx) {
  if (!ctx.cmdline) return make_finding("rcu-nocbs", Status::unknown, ctx.targets, "/proc/cmdline is not readable");
  // nohz_full CPUs are offloaded too: the kernel implies rcu_nocbs for them.
  std::vector<int> covered = ctx.cmdline->cpus("rcu_nocbs", ctx.topo.online).value_or(std::vector<int>{});
  std::string ignored;
  auto nohz = nohz_full_cpus(ctx, &ignored).value_or(std::vector<int>{});
  covered.insert(covered.end(), nohz.begin(), nohz.end());
  std::sort(covered.begin(), covered.end());
  covered.erase(std::unique(covered.begin(), covered.end()), covered.end());
  auto missing = uncovered(ctx.targets, covered);
  std::string param = ctx.cmdline->get("rcu_nocbs").value_or("");
  if (missing.empty())
    return make_finding("rcu-nocbs", Status::ok, ctx.targets,
                        fmt::format("RCU callbacks offloaded from CPU {} (rcu_nocbs={}, nohz_full={})",
                                    cpus_text(ctx.targets), param.empty() ? "unset" : param, cpus_text(nohz)));
  return make_finding(
      "rcu-nocbs", Status::warn, missing,
      fmt::format("CPU {} process their own RCU callbacks (rcu_nocbs={}): the callbacks run in softirq there",
                  cpus_text(missing), param.empty() ? "unset" : param),
      boot_fix(ctx, "rcu-nocbs", covered));
}

}  // namespace nw::check
