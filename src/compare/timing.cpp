#include "compare/timing.h"

#include <vector>

#include "stats/descriptive.h"
#include "stats/inference.h"

namespace nw::compare {

std::string_view verdict_name(Verdict v) {
  switch (v) {
    case Verdict::slower: return "slower";
    case Verdict::faster: return "faster";
    case Verdict::no_change: return "no-change";
  }
  return "no-change";
}

SampleSummary summarize_times(std::span<const double> t) {
  SampleSummary s;
  s.runs = t.size();
  if (t.empty()) return s;
  s.median_ns = stats::median({t.begin(), t.end()});
  s.mean_ns = stats::mean(t);
  s.cv = t.size() > 1 && s.mean_ns > 0 ? stats::stddev(t) / s.mean_ns : 0;
  return s;
}

TimingResult compare_timings(std::span<const double> base, std::span<const double> next,
                             const Options& options) {
  TimingResult r;
  r.ratio = stats::median({next.begin(), next.end()}) / stats::median({base.begin(), base.end()});
  auto hl = stats::hodges_lehmann_ratio(base, next, options.alpha);
  r.hl_ratio = hl.estimate;
  r.ci_low = hl.low;
  r.ci_high = hl.high;
  r.ci_bounded = hl.bounded;
  r.p_value = stats::mann_whitney_u(base, next).p_value;
  r.significant = r.p_value < options.alpha;
  double limit = options.threshold_percent / 100;
  if (r.significant && r.ratio > 1 + limit) r.verdict = Verdict::slower;
  else if (r.significant && r.ratio < 1 - limit) r.verdict = Verdict::faster;
  return r;
}

}  // namespace nw::compare
