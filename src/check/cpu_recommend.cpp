// SPDX-License-Identifier: Apache-2.0
// Which measured CPU to benchmark on: the ranking and the recommendation of check and
// `run --cpu auto`.
#include <algorithm>

#include <fmt/format.h>

#include "check/cpu_noise.h"
#include "common/durations.h"
#include "system/cpulist.h"

namespace nw::check {

std::vector<int> housekeeping_cpus(const std::vector<int>& online, const std::vector<int>& isolated) {
  std::vector<int> hk;
  if (!isolated.empty()) {
    for (int c : online)
      if (std::find(isolated.begin(), isolated.end(), c) == isolated.end()) hk.push_back(c);
  } else if (!online.empty()) {
    hk.push_back(online.front());
  }
  return hk;
}

std::vector<CpuNoise> rank_cpus(std::vector<CpuNoise> measured) {
  std::sort(measured.begin(), measured.end(), [](const CpuNoise& a, const CpuNoise& b) {
    if (a.noise_ppm != b.noise_ppm) return a.noise_ppm < b.noise_ppm;
    if (a.max_gap_ns != b.max_gap_ns) return a.max_gap_ns < b.max_gap_ns;
    return a.cpu < b.cpu;
  });
  return measured;
}

std::optional<CpuChoice> recommend_cpu(const std::vector<CpuNoise>& measured, const std::vector<int>& housekeeping) {
  if (measured.empty()) return std::nullopt;
  const auto ranked = rank_cpus(measured);
  const CpuNoise& quietest = ranked.front();
  auto is_hk = [&](int c) { return std::find(housekeeping.begin(), housekeeping.end(), c) != housekeeping.end(); };
  // Housekeeping (timers, RCU, default IRQ target) is a reason to prefer another CPU only when
  // that CPU is about as quiet: a measured difference of 3x outweighs what the role predicts.
  auto comparable = [&](const CpuNoise& c) {
    return c.noise_ppm <= quietest.noise_ppm || c.noise_ppm < kComparableNoiseRatio * quietest.noise_ppm;
  };
  const CpuNoise* pick = &quietest;
  for (const auto& r : ranked)
    if (comparable(r) && !is_hk(r.cpu)) {
      pick = &r;
      break;
    }
  std::string why = fmt::format("CPU {}: {:.0f} ppm noise, longest gap {}", pick->cpu, pick->noise_ppm,
                                format_duration(double(pick->max_gap_ns)));
  const size_t n = ranked.size();
  const CpuNoise* other_non_hk = nullptr;
  for (const auto& r : ranked)
    if (!is_hk(r.cpu)) {
      other_non_hk = &r;
      break;
    }
  if (n == 1) {
    why += ", the only CPU measured";
  } else if (pick != &quietest) {
    why += fmt::format(
        ", quietest non-housekeeping CPU of {} measured: housekeeping breaks the tie with CPU {} ({:.0f} ppm, "
        "quieter by less than {:.0f}x; housekeeping: {})",
        n, quietest.cpu, quietest.noise_ppm, kComparableNoiseRatio, sys::format_cpulist(housekeeping));
  } else if (!is_hk(pick->cpu)) {
    why += fmt::format(", quietest of {} measured", n);
  } else if (!other_non_hk) {
    why += fmt::format(", quietest of {} measured (all are housekeeping CPUs)", n);
  } else {
    std::string ratio = quietest.noise_ppm > 0
                            ? fmt::format("{:.1f}x as noisy", other_non_hk->noise_ppm / quietest.noise_ppm)
                            : std::string("noisier, this one measuring none");
    why += fmt::format(
        ", quietest of {} measured; a housekeeping CPU, but the quietest other CPU ({}, {:.0f} ppm) is {} "
        "({:.0f}x or more), so housekeeping does not break the tie",
        n, other_non_hk->cpu, other_non_hk->noise_ppm, ratio, kComparableNoiseRatio);
  }
  return CpuChoice{pick->cpu, why};
}

}  // namespace nw::check
