// SPDX-License-Identifier: Apache-2.0
// Timing half of compare: ratio of medians, Hodges-Lehmann interval, Mann-Whitney p, verdict.
#pragma once
#include <span>

#include "compare/model.h"

namespace nw::compare {

SampleSummary summarize_times(std::span<const double> times_ns);

// Ratio, interval and test of NEW against BASE (times must be > 0). With fewer than kMinTestRuns
// on a side there is no test: the verdict is inconclusive and only the ratio means anything.
// Otherwise the verdict is decided on the raw p (decide_verdict), as for a single benchmark.
TimingResult compare_timings(std::span<const double> base_ns, std::span<const double> new_ns, const Options& options);

// slower/faster when p_adjusted is below alpha AND the median ratio lies outside +-threshold;
// no-change otherwise; inconclusive when untested. Called again once p_adjusted is known.
void decide_verdict(TimingResult& r, const Options& options);

}  // namespace nw::compare
