// SPDX-License-Identifier: Apache-2.0
// Mann-Whitney U with the exact null distribution where it exists (small samples without ties),
// else the normal approximation: the choice scipy.stats.mannwhitneyu makes, so that 5 runs against
// 5 get p = 0.0079 (exact) and not 0.012 (normal). The Moses interval uses the same distribution.
#pragma once
#include <cstddef>
#include <span>

namespace nw::stats {

// Up to this many values per side (and no ties) the exact distribution is used: it costs
// O(n^2 m^2 / 4) additions once per (n, m), about a millisecond at 50 x 50.
inline constexpr size_t kExactMaxPerSide = 50;

// P(U <= u) for samples of n and m values without ties, under H0 (every ordering equally likely).
double mann_whitney_exact_cdf(size_t n, size_t m, double u);

// True when x and y together contain some value twice (the exact distribution then does not apply).
bool has_ties(std::span<const double> x, std::span<const double> y);

// Whether the exact distribution is used for these samples.
bool exact_applies(std::span<const double> x, std::span<const double> y);

struct MannWhitneyTest {
  double u = 0;        // U of y: pairs where y > x, ties counting 1/2
  double p_value = 1;  // two-sided
  bool exact = false;  // exact distribution; false: normal approximation, tie- and continuity-corrected
};

// Two-sided Mann-Whitney U test; p = 1 when a sample is empty.
MannWhitneyTest mann_whitney_test(std::span<const double> x, std::span<const double> y);

// Moses rank for a (1 - alpha) interval of the shift from the exact distribution: the largest C
// with P(U <= C - 1) <= alpha / 2, so the interval is the C-th smallest to C-th largest pairwise
// difference. 0 when the samples are too small for an interval at that level.
size_t moses_exact_rank(size_t n, size_t m, double alpha);

}  // namespace nw::stats
