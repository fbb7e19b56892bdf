// SPDX-License-Identifier: Apache-2.0
#include "compare/timing.h"

#include <vector>

#include "stats/descriptive.h"
#include "stats/inference.h"
#include "stats/mann_whitney_exact.h"

namespace nw::compare {

std::string_view verdict_name(Verdict v) {
  switch (v) {
    case Verdict::slower:
      return "slower";
    case Verdict::faster:
      return "faster";
    case Verdict::no_change:
      return "no-change";
    case Verdict::inconclusive:
      return "inconclusive";
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

void decide_verdict(TimingResult& r, const Options& options) {
  if (!r.tested) {
    r.significant = false;
    r.verdict = Verdict::inconclusive;
    return;
  }
  r.significant = r.p_adjusted < options.alpha;
  double limit = options.threshold_percent / 100;
  if (r.significant && r.ratio > 1 + limit) r.verdict = Verdict::slower;
  else if (r.significant && r.ratio < 1 - limit) r.verdict = Verdict::faster;
  else r.verdict = Verdict::no_change;
}

TimingResult compare_timings(std::span<const double> base, std::span<const double> next, const Options& options) {
  TimingResult r;
  r.ratio = stats::median({next.begin(), next.end()}) / stats::median({base.begin(), base.end()});
  auto hl = stats::hodges_lehmann_ratio(base, next, options.alpha);
  r.hl_ratio = hl.estimate;
  r.tested = base.size() >= kMinTestRuns && next.size() >= kMinTestRuns;
  // With a single run on a side every value is tied with itself: a "[1, 1]" interval would be
  // a number that looks like a result.
  r.ci_bounded = hl.bounded && r.tested;
  if (r.ci_bounded) {
    r.ci_low = hl.low;
    r.ci_high = hl.high;
  } else {
    r.ci_low = r.ci_high = r.ratio;  // not an interval: renderers print "no CI" / null
  }
  const double margin = 1 + options.threshold_percent / 100;
  r.equivalent = r.ci_bounded && r.ci_low > 1 / margin && r.ci_high < margin;
  if (r.tested) {
    auto test = stats::mann_whitney_test(base, next);
    r.p_value = r.p_adjusted = test.p_value;
    r.exact = test.exact;
  }
  decide_verdict(r, options);
  return r;
}

}  // namespace nw::compare
