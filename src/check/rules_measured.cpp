// SPDX-License-Identifier: Apache-2.0
// measured-noise: what the live measurement saw, as a finding. Only the quietest measured CPU
// counts: a benchmark can be moved to it, so only when even that CPU is noisy is the machine unfit.
#include <fmt/format.h>

#include "check/cpu_noise.h"
#include "check/rule_helpers.h"
#include "check/rules.h"

namespace nw::check {

Finding check_measured_noise(const CheckContext& ctx, const std::vector<CpuNoise>& measured) {
  if (measured.empty())
    return make_finding("measured-noise", Status::unknown, ctx.targets, "no live noise measurement");
  const CpuNoise q = rank_cpus(measured).front();
  const double pct = q.noise_ppm / 1e4;
  std::string summary =
      fmt::format("the quietest CPU measured, CPU {}, lost {:.2f}% of {:.1f} s to gaps (longest {:.1f} us)", q.cpu, pct,
                  double(q.measured_ns) / 1e9, double(q.max_gap_ns) / 1e3);
  if (q.noise_ppm >= kNoiseFailPpm)
    return make_finding(
        "measured-noise", Status::fail, {q.cpu},
        fmt::format("{}: {:.0f}% or more, so a benchmark run now differs from run to run by more than the "
                    "few percent a comparison must resolve; results are not comparable",
                    summary, kNoiseFailPpm / 1e4),
        {"# see the top sources of the measured noise above; stop or move that work (top -o %CPU), then check again"});
  if (q.noise_ppm >= kNoiseWarnPpm)
    return make_finding(
        "measured-noise", Status::warn, {q.cpu}, fmt::format("{}: {:.0f}% or more", summary, kNoiseWarnPpm / 1e4),
        {"# see the top sources of the measured noise above; the other findings say how to remove them"});
  return make_finding("measured-noise", Status::ok, {q.cpu}, summary);
}

}  // namespace nw::check
