// SPDX-License-Identifier: Apache-2.0
// Mann-Whitney U, Hodges-Lehmann and Holm against reference values (SciPy 1.10
// mannwhitneyu(method="asymptotic", use_continuity=True)) and brute force.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "stats/inference.h"

namespace nw::stats {
namespace {

const std::vector<double> kX = {1.1, 2.3, 2.3, 3.5, 4.0, 5.2, 6.1};
const std::vector<double> kY = {2.3, 4.4, 5.0, 6.6, 7.2, 7.2, 8.9, 9.0};

std::vector<double> all_differences(const std::vector<double>& x, const std::vector<double>& y) {
  std::vector<double> d;
  for (double a : x)
    for (double b : y) d.push_back(b - a);
  std::sort(d.begin(), d.end());
  return d;
}

TEST(MannWhitney, MatchesScipyWithTies) {
  auto r = mann_whitney_u(kX, kY);
  EXPECT_DOUBLE_EQ(r.u, 47.0);
  EXPECT_NEAR(r.p_value, 0.03150926130367257, 1e-12);
  EXPECT_GT(r.z, 0);  // y tends larger
  auto back = mann_whitney_u(kY, kX);
  EXPECT_NEAR(back.p_value, r.p_value, 1e-12);
  EXPECT_LT(back.z, 0);
}

TEST(MannWhitney, MatchesScipyWithoutTies) {
  std::vector<double> x, y;
  for (int i = 0; i < 20; ++i) {
    x.push_back(i);
    y.push_back(i + 5.5);
  }
  auto r = mann_whitney_u(x, y);
  EXPECT_DOUBLE_EQ(r.u, 295.0);
  EXPECT_NEAR(r.p_value, 0.010581211443165648, 1e-12);
}

TEST(MannWhitney, IdenticalSamplesGiveOne) {
  std::vector<double> x = {10, 11, 12, 13, 14};
  EXPECT_DOUBLE_EQ(mann_whitney_u(x, x).p_value, 1.0);
  std::vector<double> same(6, 3.0);
  EXPECT_DOUBLE_EQ(mann_whitney_u(same, same).p_value, 1.0);  // zero variance: no evidence
  EXPECT_DOUBLE_EQ(mann_whitney_u({}, x).p_value, 1.0);
}

TEST(PairwiseDifference, KthMatchesBruteForce) {
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<int> coarse(0, 30);  // many ties on purpose
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<double> x(3 + size_t(trial % 17)), y(2 + size_t(trial % 23));
    for (auto& v : x) v = coarse(rng) * 0.5;
    for (auto& v : y) v = coarse(rng) * 0.5 + (trial % 2 ? 1e6 : 0);
    std::sort(x.begin(), x.end());
    std::sort(y.begin(), y.end());
    auto d = all_differences(x, y);
    for (size_t k = 1; k <= d.size(); ++k) ASSERT_EQ(kth_pairwise_difference(x, y, k), d[k - 1]) << k;
  }
  std::vector<double> sorted = {1, 2};
  EXPECT_THROW(kth_pairwise_difference(sorted, sorted, 0), std::out_of_range);
  EXPECT_THROW(kth_pairwise_difference(sorted, sorted, 5), std::out_of_range);
  std::vector<double> unsorted = {2, 1};
  EXPECT_THROW(kth_pairwise_difference(unsorted, sorted, 1), std::invalid_argument);
}

TEST(PairwiseDifference, LargeSamplesStayExact) {
  std::mt19937_64 rng(3);
  std::normal_distribution<double> g(1e9, 1e7);
  std::vector<double> x(300), y(250);
  for (auto& v : x) v = g(rng);
  for (auto& v : y) v = g(rng) * 1.01;
  std::sort(x.begin(), x.end());
  std::sort(y.begin(), y.end());
  auto d = all_differences(x, y);
  for (size_t k : {size_t(1), size_t(37), d.size() / 2, d.size() / 2 + 1, d.size() - 3, d.size()})
    EXPECT_EQ(kth_pairwise_difference(x, y, k), d[k - 1]);
}

TEST(HodgesLehmann, ShiftAndMosesInterval) {
  auto d = all_differences(kX, kY);  // 56 differences
  auto s = hodges_lehmann_shift(kX, kY);
  EXPECT_DOUBLE_EQ(s.estimate, (d[27] + d[28]) / 2);
  EXPECT_NEAR(s.estimate, 3.0, 1e-12);
  // sigma^2 = 56/12 (16 - 30/210) = 74 with the tie correction; C = floor(28 - 1.96 * 8.6023 + 0.5) = 11.
  EXPECT_TRUE(s.bounded);
  EXPECT_DOUBLE_EQ(s.low, d[10]);
  EXPECT_DOUBLE_EQ(s.high, d[45]);
}

TEST(HodgesLehmann, TinySamplesHaveNoInterval) {
  std::vector<double> x = {1, 2}, y = {3, 4};
  auto s = hodges_lehmann_shift(x, y);
  EXPECT_FALSE(s.bounded);
  EXPECT_DOUBLE_EQ(s.low, 1);
  EXPECT_DOUBLE_EQ(s.high, 3);
}

TEST(HodgesLehmann, RatioIsScaleInvariantAndRejectsZero) {
  std::vector<double> x = {100, 101, 99, 102, 98, 100.5, 99.5, 101.5, 98.5, 100.2};
  std::vector<double> y;
  for (double v : x) y.push_back(v * 1.05);
  auto r = hodges_lehmann_ratio(x, y);
  EXPECT_NEAR(r.estimate, 1.05, 1e-12);
  EXPECT_LT(r.low, 1.05);
  EXPECT_GT(r.high, 1.05);
  std::vector<double> bad = {1, 0};
  EXPECT_THROW(hodges_lehmann_ratio(x, bad), std::invalid_argument);
}

TEST(Holm, StepDownStopsAtFirstFailure) {
  std::vector<double> p = {0.01, 0.04, 0.03, 0.005};
  // Sorted 0.005 <= .05/4, 0.01 <= .05/3, 0.03 > .05/2: stop; 0.04 is not tested.
  EXPECT_EQ(holm_significant(p), (std::vector<bool>{true, false, false, true}));
  std::vector<double> all_small = {0.001, 0.002};
  EXPECT_EQ(holm_significant(all_small), (std::vector<bool>{true, true}));
  EXPECT_TRUE(holm_significant(std::vector<double>{}).empty());
}

}  // namespace
}  // namespace nw::stats
