// Timing half of compare: ratio of medians, Hodges-Lehmann interval, Mann-Whitney p, verdict.
#pragma once
#include <span>

#include "compare/model.h"

namespace nw::compare {

SampleSummary summarize_times(std::span<const double> times_ns);

// Verdict: slower/faster when the Mann-Whitney p-value is below alpha AND the median ratio lies
// outside +-threshold; no-change otherwise. Times must be > 0.
TimingResult compare_timings(std::span<const double> base_ns, std::span<const double> new_ns,
                             const Options& options);

}  // namespace nw::compare
