// SPDX-License-Identifier: Apache-2.0
// Two-sample inference for timings: is NEW different from BASE, by how much, and how sure are we?
// Rank-based on purpose: benchmark timings are skewed and have outliers, so a t-test's normality
// assumption does not hold, while Mann-Whitney / Hodges-Lehmann only assume a location shift.
#pragma once
#include <cstddef>
#include <span>
#include <vector>

namespace nw::stats {

struct MannWhitney {
  double u = 0;        // U statistic of the second sample (pairs where y > x, ties count 1/2)
  double z = 0;        // normal approximation, continuity- and tie-corrected; > 0 when y tends larger
  double p_value = 1;  // two-sided
};

// Mann-Whitney U test with the normal approximation, midranks for ties, tie-corrected variance
// and continuity correction (mann_whitney_exact.h picks the exact distribution where it applies). Returns p = 1 when
// either sample is empty or every value is tied.
MannWhitney mann_whitney_u(std::span<const double> x, std::span<const double> y);

// The k-th smallest (1-based) of the n*m differences y[j] - x[i], without materialising them:
// bisection on the value with an O(n+m) pair count, then snapped to the exact pair difference.
// Both inputs must be sorted ascending; k in [1, n*m].
double kth_pairwise_difference(std::span<const double> x_sorted, std::span<const double> y_sorted, size_t k);

struct ShiftEstimate {
  double estimate = 0;       // Hodges-Lehmann: median of all differences y[j] - x[i]
  double low = 0, high = 0;  // Moses distribution-free interval (exact distribution where it applies)
  bool bounded = true;       // false when the samples are too small for the requested level:
                             // the interval is then the full range of differences
};

// Hodges-Lehmann shift of y relative to x with its (1 - alpha) interval.
ShiftEstimate hodges_lehmann_shift(std::span<const double> x, std::span<const double> y, double alpha = 0.05);

// The same on log values, exponentiated: the ratio y/x for a multiplicative (scale) shift,
// which is how timing regressions behave. Every value must be > 0.
ShiftEstimate hodges_lehmann_ratio(std::span<const double> x, std::span<const double> y, double alpha = 0.05);

// Holm-Bonferroni step-down: which of several p-values stay significant at family-wise `alpha`.
std::vector<bool> holm_significant(std::span<const double> p_values, double alpha = 0.05);

// Holm-adjusted p-values (the smallest family-wise level at which each would be rejected):
// p_adj(i) = max over j <= i of min(1, (k - j + 1) p(j)) along the ascending order. Comparing
// them with alpha gives the same decisions as holm_significant.
std::vector<double> holm_adjusted(std::span<const double> p_values);

}  // namespace nw::stats
