// SPDX-License-Identifier: Apache-2.0
// The sentence that answers "code or noise?" for one benchmark, from its finished comparison.
#pragma once
#include <string>
#include <vector>

#include "compare/model.h"

namespace nw::compare {

// Sum of the material noise changes that point the same way as the timing change (points of
// BASE's median); 0 when the timing did not change or there is no noise data.
double explained_points(const BenchmarkComparison& c);

// `family`: how many benchmarks were tested together (Holm's correction), 1 for a single one.
std::string explain(const BenchmarkComparison& c, const Options& options, size_t family = 1);

}  // namespace nw::compare
