// SPDX-License-Identifier: Apache-2.0
#include "check/check_runner.h"

#include <fmt/format.h>

#include "check/check_context.h"
#include "check/noise_attribution.h"
#include "check/rules.h"
#include "common/errors.h"

namespace nw::check {

CheckReport run_check(const sys::Sysroot& root, const CheckOptions& opts) {
  auto ctx = make_context(root, opts.cpus);
  CheckReport report;
  report.sysroot = root.root();
  report.target_cpus = ctx.targets;
  report.unavailable_cpus = ctx.available.unavailable();
  report.findings = run_all_checks(ctx);
  if (!root.live()) {
    report.notes.push_back("sysroot: the live noise measurement was skipped");
    return report;
  }
  if (opts.duration_s <= 0) return report;
  ctx.throttle_before = read_throttle_counts(sys::Sysroot(), ctx.targets);
  NoiseOptions nopts;
  nopts.threshold_ns = opts.threshold_ns;
  nopts.policy = opts.policy;
  nopts.priority = opts.priority;
  nopts.top_sources = opts.top_sources;
  std::unique_ptr<NoiseAttributor> attributor;
  if (opts.attribute) {
    std::string why;
    attributor = make_probe_attributor(&why);
    if (!attributor && !why.empty()) report.notes.push_back(why);
  }
  nopts.attributor = attributor.get();
  try {
    report.cpus = measure_cpu_noise(ctx.targets, opts.duration_s, nopts);
  } catch (const std::exception& e) {
    if (!attributor) throw;
    // The probe failed to load (privileges, kernel): measure without attribution.
    report.notes.push_back(fmt::format("gap attribution unavailable: {}", e.what()));
    nopts.attributor = nullptr;
    report.cpus = measure_cpu_noise(ctx.targets, opts.duration_s, nopts);
  }
  // Ordinary threads that the load balancer spreads over every CPU hide what differs per CPU.
  bool all_busy = !report.cpus.empty() && opts.policy == 0;
  for (const auto& c : report.cpus) all_busy = all_busy && c.noise_ppm > 200'000;
  if (all_busy)
    report.notes.push_back(
        "every CPU lost over 20% to other work: the ranking mostly reflects that load; --priority fifo:1 shows what "
        "is bound to each CPU (IRQs, pinned threads)");
  auto hk = housekeeping_cpus(ctx.topo.online, ctx.isolated.value_or(std::vector<int>{}));
  if (auto choice = recommend_cpu(report.cpus, hk)) {
    report.recommended_cpu = choice->cpu;
    report.recommendation_reason = choice->reason;
  }
  // What the measurement itself shows: the findings it can fail.
  ctx.throttle_after = read_throttle_counts(sys::Sysroot(), ctx.targets);
  for (auto& f : report.findings)
    if (f.id == "thermal-throttling") f = check_thermal_throttling(ctx);
  report.findings.push_back(check_measured_noise(ctx, report.cpus));
  return report;
}

MeasuredChoice choose_quiet_cpu(const std::vector<int>& candidates, double seconds, const NoiseOptions& opts) {
  sys::Sysroot live;
  auto ctx = make_context(live, candidates.empty() ? std::nullopt : std::optional(candidates));
  MeasuredChoice out;
  out.measured = measure_cpu_noise(candidates.empty() ? ctx.available.allowed : ctx.targets, seconds, opts);
  auto choice =
      recommend_cpu(out.measured, housekeeping_cpus(ctx.topo.online, ctx.isolated.value_or(std::vector<int>{})));
  if (!choice) throw Error("no CPU could be measured; give --cpu N");
  out.choice = *choice;
  return out;
}

}  // namespace nw::check
