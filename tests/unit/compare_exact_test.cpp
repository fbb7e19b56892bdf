// SPDX-License-Identifier: Apache-2.0
// The exact Mann-Whitney distribution compare uses for small samples without ties, against
// SciPy 1.10.1 (Debian 12's python3-scipy): scipy.stats.mannwhitneyu(x, y, method="exact") or
// method="asymptotic" (use_continuity=True), two-sided; and against brute-force enumeration.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <vector>

#include "compare/timing.h"
#include "stats/inference.h"
#include "stats/mann_whitney_exact.h"

namespace nw::stats {
namespace {

std::vector<double> iota_from(double start, size_t n) {
  std::vector<double> v(n);
  std::iota(v.begin(), v.end(), start);
  return v;
}

// P(U <= u) by listing every way to place n x's among n + m positions.
double brute_force_cdf(size_t n, size_t m, double u) {
  std::vector<bool> is_x(n + m, false);
  std::fill(is_x.end() - std::ptrdiff_t(n), is_x.end(), true);
  size_t total = 0, at_most = 0;
  do {
    size_t x_below = 0, count = 0;  // U of y: for each y, the x's below it
    for (bool x : is_x) {
      if (x) ++x_below;
      else count += x_below;
    }
    ++total;
    at_most += double(count) <= u;
  } while (std::next_permutation(is_x.begin(), is_x.end()));
  return double(at_most) / double(total);
}

TEST(MannWhitneyExact, CdfMatchesEnumeration) {
  for (size_t n = 1; n <= 6; ++n)
    for (size_t m = 1; m <= 6; ++m)
      for (double u = 0; u <= double(n * m); u += 1)
        EXPECT_NEAR(mann_whitney_exact_cdf(n, m, u), brute_force_cdf(n, m, u), 1e-15) << n << "x" << m << " u=" << u;
  EXPECT_EQ(mann_whitney_exact_cdf(3, 4, -1), 0.0);
  EXPECT_EQ(mann_whitney_exact_cdf(3, 4, 12), 1.0);
}

TEST(MannWhitneyExact, FiveAgainstFiveIsTheExactValue) {
  // The case: fully separated 5 vs 5. Exact 2/252; the normal approximation said 0.012.
  auto x = iota_from(1, 5), y = iota_from(6, 5);
  auto r = mann_whitney_test(x, y);
  EXPECT_TRUE(r.exact);
  EXPECT_NEAR(r.p_value, 0.007936507936507936, 1e-15);
  EXPECT_NEAR(mann_whitney_u(x, y).p_value, 0.012185780355344813, 1e-12);  // scipy asymptotic
}

TEST(MannWhitneyExact, MatchesScipyExact) {
  struct Case {
    std::vector<double> x, y;
    double p;
  };
  std::vector<Case> cases = {
      // scipy's documentation example (males vs females): statistic 17, p = 0.1111
      {{19, 22, 16, 29, 24}, {20, 11, 17, 12}, 0.1111111111111111},
      {{0.31, 0.92, 1.47, 0.55, 1.2, 0.05, 0.77, 1.9, 0.64, 1.05},
       {1.33, 1.61, 0.98, 2.2, 1.74, 1.12, 2.05, 0.88, 1.5, 1.27, 2.4, 1.02},
       0.013769512221524605},
      {{3, 1, 2}, {4, 5, 6, 7, 8, 9, 0.5}, 0.11666666666666667},
      {iota_from(1, 12), iota_from(11.5, 12), 1.479204602101358e-06},
  };
  std::vector<double> x50 = iota_from(0, 50), y50 = iota_from(7.5, 50), y50_near = iota_from(0.5, 50);
  cases.push_back({x50, y50, 0.016450137297190096});
  cases.push_back({x50, y50_near, 0.8664717523984105});
  for (const auto& c : cases) {
    auto r = mann_whitney_test(c.x, c.y);
    EXPECT_TRUE(r.exact) << c.p;
    EXPECT_NEAR(r.p_value / c.p, 1.0, 1e-9) << "scipy p " << c.p << ", ours " << r.p_value;
    EXPECT_NEAR(mann_whitney_test(c.y, c.x).p_value, r.p_value, 1e-15);  // two-sided: symmetric
  }
}

TEST(MannWhitneyExact, TiesAndLargeSamplesUseTheNormalApproximation) {
  // With ties scipy (and we) use the tie-corrected normal approximation: p = 0.057007942464885414.
  std::vector<double> x = {1, 2, 2, 3, 4}, y = {2, 5, 6, 7, 8};
  auto r = mann_whitney_test(x, y);
  EXPECT_FALSE(r.exact);
  EXPECT_NEAR(r.p_value, 0.057007942464885414, 1e-12);
  auto big = iota_from(0, 51), shifted = iota_from(0.5, 51);
  EXPECT_FALSE(mann_whitney_test(big, shifted).exact);  // over 50 a side
  EXPECT_FALSE(has_ties(iota_from(0, 5), iota_from(5.5, 5)));
  EXPECT_TRUE(has_ties(iota_from(0, 5), iota_from(4, 5)));
}

TEST(MannWhitneyExact, MosesRankFromTheExactDistribution) {
  // 5 vs 5: P(U <= 2) = 4/252 <= 0.025 < P(U <= 3) = 7/252, so the interval runs from the 3rd
  // smallest to the 3rd largest difference. 4 vs 4: P(U <= 0) = 1/70 only. 3 vs 3: none (1/20).
  EXPECT_EQ(moses_exact_rank(5, 5, 0.05), 3u);
  EXPECT_EQ(moses_exact_rank(4, 4, 0.05), 1u);
  EXPECT_EQ(moses_exact_rank(3, 3, 0.05), 0u);
  EXPECT_EQ(moses_exact_rank(3, 3, 0.10), 1u);  // 1/20 <= 0.05
  auto x = iota_from(10, 5), y = iota_from(12.5, 5);
  auto s = hodges_lehmann_shift(x, y);
  EXPECT_TRUE(s.bounded);
  std::vector<double> d;
  for (double a : x)
    for (double b : y) d.push_back(b - a);
  std::sort(d.begin(), d.end());
  EXPECT_DOUBLE_EQ(s.low, d[2]);
  EXPECT_DOUBLE_EQ(s.high, d[d.size() - 3]);
}

TEST(Holm, AdjustedPValues) {
  // Sorted 0.005, 0.01, 0.03, 0.04 -> 4 x 0.005 = 0.02, 3 x 0.01 = 0.03, 2 x 0.03 = 0.06,
  // max(0.06, 1 x 0.04) = 0.06 (statsmodels multipletests(method="holm") gives the same).
  std::vector<double> p = {0.01, 0.04, 0.03, 0.005};
  auto adj = holm_adjusted(p);
  ASSERT_EQ(adj.size(), 4u);
  EXPECT_NEAR(adj[0], 0.03, 1e-15);
  EXPECT_NEAR(adj[1], 0.06, 1e-15);
  EXPECT_NEAR(adj[2], 0.06, 1e-15);
  EXPECT_NEAR(adj[3], 0.02, 1e-15);
  auto decided = holm_significant(p);
  for (size_t i = 0; i < p.size(); ++i) EXPECT_EQ(adj[i] <= 0.05, decided[i]) << i;
  EXPECT_EQ(holm_adjusted(std::vector<double>{0.6, 0.7}), (std::vector<double>{1.0, 1.0}));
}

}  // namespace
}  // namespace nw::stats

namespace nw::compare {
namespace {

TEST(CompareTiming, FiveRunsAgainstFiveGetTheExactP) {
  std::vector<double> base = {100, 101, 102, 103, 104}, next = {110, 111, 112, 113, 114};
  auto r = compare_timings(base, next, Options{});
  EXPECT_TRUE(r.tested);
  EXPECT_TRUE(r.exact);
  EXPECT_NEAR(r.p_value, 0.007936507936507936, 1e-15);  // was 0.012 (normal approximation)
  EXPECT_EQ(r.verdict, Verdict::slower);
}

TEST(CompareTiming, OneRunOnASideIsInconclusiveWithTheRatio) {
  std::vector<double> one = {100}, hundred = {10000}, two = {100, 102};
  auto r = compare_timings(one, hundred, Options{});
  EXPECT_EQ(r.verdict, Verdict::inconclusive);  // was no-change: a 100x slowdown passed
  EXPECT_FALSE(r.tested);
  EXPECT_FALSE(r.ci_bounded);
  EXPECT_DOUBLE_EQ(r.ratio, 100.0);
  EXPECT_EQ(compare_timings(two, one, Options{}).verdict, Verdict::inconclusive);
  EXPECT_TRUE(compare_timings(two, two, Options{}).tested);
}

}  // namespace
}  // namespace nw::compare
