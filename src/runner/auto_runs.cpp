// SPDX-License-Identifier: Apache-2.0
#include "runner/auto_runs.h"

#include <cmath>

#include "stats/sequential.h"

namespace nw::runner {

std::vector<double> measured_walls(const RunRecord& rec) {
  std::vector<double> out;
  for (const RunSample* r : rec.measured())
    if (r->exit_status == 0 && r->wall_ns > 0) out.push_back(double(r->wall_ns));
  return out;
}

Schedule auto_schedule(int warmup, const AutoRuns& a) {
  return [warmup, a, started = 0](const RunRecord& so_far) mutable -> std::optional<Step> {
    if (started < warmup) {
      ++started;
      return Step{.warmup = true};
    }
    const auto walls = measured_walls(so_far);
    if (int(walls.size()) >= a.max_runs) return std::nullopt;
    if (stats::median_relative_precision(walls, a.alpha) * 100 <= a.precision_percent) return std::nullopt;
    ++started;
    return Step{};
  };
}

RunsAuto auto_summary(const RunRecord& rec, const AutoRuns& a) {
  const auto walls = measured_walls(rec);
  const double precision = stats::median_relative_precision(walls, a.alpha) * 100;
  return {.precision_percent = a.precision_percent,
          .max_runs = a.max_runs,
          .confidence_percent = (1 - a.alpha) * 100,
          .measured_runs = walls.size(),
          .reached = precision <= a.precision_percent,
          .achieved_percent = std::isfinite(precision) ? std::optional(precision) : std::nullopt};
}

}  // namespace nw::runner
