// SPDX-License-Identifier: Apache-2.0
// The exact decomposition leaves the workload's own CPU-time variance in `unexplained` (the probes
// only see time taken *from* the benchmark). When a retired-instructions counter exists, the part
// of that remainder that follows the instruction count is the workload doing different work per
// run (nondeterministic input, random seeds): U is regressed on instructions, beta >= 0, and
// beta * Cov(T, I) / Var(T) is moved from "unexplained" to "workload" in this split only; the
// `unexplained` attribution row stays the plain remainder of docs/contracts.md.
#include "reports/workload.h"

#include <cmath>

#include "stats/descriptive.h"

namespace nw::report {

WorkloadSplit split_workload(const RunRecord& rec, const RunMatrix& m, const AttributionResult& a) {
  WorkloadSplit w;
  for (const auto& row : a.rows) {
    if (row.group == Group::unexplained) w.unexplained += row.share;
    else if (row.group == Group::workload) w.workload += row.share;
    else w.machine += row.share;
  }
  // The remainder U of the final decomposition, with refused count fits left in it.
  const auto& residual = a.residual;
  const double var_t = a.var_t;
  auto runs = rec.measured();
  std::vector<double> cpu, instr;
  bool all_instr = !runs.empty();
  bool all_cpu = !runs.empty();
  for (const auto* r : runs) {
    if (!r->has_cpu_time()) all_cpu = false;
    cpu.push_back(double(r->own_cpu_ns()));
    auto it = r->counters.find("instructions");
    if (it == r->counters.end()) all_instr = false;
    else instr.push_back(it->second.value);
  }
  double mc = stats::mean(cpu);
  if (all_cpu && cpu.size() > 1 && mc > 0) w.cpu_time_cv = stats::stddev(cpu) / mc;
  if (all_instr && instr.size() > 1) {
    double mi = stats::mean(instr);
    w.instructions_cv = mi > 0 ? stats::stddev(instr) / mi : 0;
    double vi = stats::variance(instr);
    if (vi > 0 && var_t > 0 && residual.size() == instr.size()) {
      double beta = std::max(0.0, stats::covariance(residual, instr) / vi);
      double share = beta * stats::covariance(m.wall_ns, instr) / var_t;
      share = std::clamp(share, 0.0, std::max(0.0, w.unexplained));
      w.instructions_share = share;
      w.workload += share;
      w.unexplained -= share;
    }
  }
  if (!a.attributable) w.verdict = "none";
  else if (w.machine >= 0.5) w.verdict = "machine";
  else if (w.workload >= 0.5) w.verdict = "workload";
  else if (w.unexplained >= 0.5) w.verdict = "unexplained";
  else w.verdict = "mixed";
  return w;
}

}  // namespace nw::report
