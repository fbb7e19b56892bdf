// SPDX-License-Identifier: Apache-2.0
#include "compare/cpu_time.h"

#include "compare/timing.h"
#include "stats/descriptive.h"

namespace nw::compare {

namespace {

std::optional<double> mean_cpu(const Benchmark& b) {
  if (!b.cpu_ns.empty()) return stats::mean(b.cpu_ns);
  return b.cpu_mean_ns;
}

std::string basis_of(const Benchmark& base, const Benchmark& next) {
  return base.cpu_basis == next.cpu_basis ? base.cpu_basis : base.cpu_basis + " vs " + next.cpu_basis;
}

}  // namespace

std::optional<CpuComparison> compare_cpu(const Benchmark& base, const Benchmark& next, const Options& o) {
  CpuComparison c;
  if (!base.cpu_ns.empty() && !next.cpu_ns.empty()) {
    c.basis = basis_of(base, next);
    c.timing = compare_timings(base.cpu_ns, next.cpu_ns, o);
    return c;
  }
  auto b = mean_cpu(base), n = mean_cpu(next);
  if (!b || !n) return std::nullopt;
  c.basis = "user+system means";
  c.means_only = true;
  c.timing.ratio = c.timing.hl_ratio = *n / *b;
  c.timing.ci_low = c.timing.ci_high = c.timing.ratio;
  decide_verdict(c.timing, o);  // untested: inconclusive
  return c;
}

int direction(const TimingResult& t, const Options& o) {
  if (t.tested) return t.verdict == Verdict::slower ? 1 : t.verdict == Verdict::faster ? -1 : 0;
  double change = t.change_percent();
  return change > o.threshold_percent ? 1 : change < -o.threshold_percent ? -1 : 0;
}

bool cpu_disagrees(const TimingResult& wall, const TimingResult& cpu, const Options& o) {
  int w = direction(wall, o), c = direction(cpu, o);
  if (wall.tested && cpu.tested) return w != c;
  return w * c < 0;
}

}  // namespace nw::compare
