// SPDX-License-Identifier: Apache-2.0
// The benchmarks of one comparison taken together: Holm's correction across them (74 benchmarks
// tested at alpha 0.05 would otherwise give about 4 false alarms), the summary counts and the
// headline benchmark.
#pragma once
#include <vector>

#include "compare/model.h"

namespace nw::compare {

// Sets p_adjusted (Holm, over the tested benchmarks) of every wall-time result, and separately of
// every tested CPU result, then re-decides their verdicts on the adjusted p.
void adjust_for_multiplicity(std::vector<BenchmarkComparison>& all, const Options& o);

Summary summarize(const std::vector<BenchmarkComparison>& all);

// The top-level verdict speaks for the most alarming benchmark: the largest significant slowdown,
// else the largest speed-up, else the largest inconclusive change, else the largest change.
size_t pick_headline(const std::vector<BenchmarkComparison>& all);

}  // namespace nw::compare
