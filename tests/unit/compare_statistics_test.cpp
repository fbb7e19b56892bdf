// SPDX-License-Identifier: Apache-2.0
// Statistical properties of compare's timing verdict, by simulation with fixed seeds:
// false positives on identical distributions, power on a real 3 % shift, interval coverage.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "compare/timing.h"

namespace nw::compare {
namespace {

using Sampler = std::function<double(std::mt19937_64&)>;

std::vector<double> draw(std::mt19937_64& rng, size_t n, const Sampler& s, double scale = 1.0) {
  std::vector<double> v(n);
  for (auto& x : v) x = s(rng) * scale;
  return v;
}

Sampler normal_cv(double cv) {
  return [cv](std::mt19937_64& rng) { return std::normal_distribution<double>(1e6, 1e6 * cv)(rng); };
}

// Timing-like: a floor plus an exponential tail of interruptions (right-skewed).
Sampler skewed(double tail) {
  return [tail](std::mt19937_64& rng) { return 1e6 * (1 + std::exponential_distribution<double>(1 / tail)(rng)); };
}

// Timings rounded to whole microseconds around 50 us: many ties.
Sampler tied() {
  return [](std::mt19937_64& rng) { return 1e3 * std::round(std::normal_distribution<double>(50, 1)(rng)); };
}

struct Rates {
  double slower = 0, faster = 0, covered = 0;
};

Rates simulate(int trials, size_t n, const Sampler& s, double true_ratio, const Options& o, uint64_t seed) {
  std::mt19937_64 rng(seed);
  Rates r;
  for (int t = 0; t < trials; ++t) {
    auto base = draw(rng, n, s);
    auto next = draw(rng, n, s, true_ratio);
    auto res = compare_timings(base, next, o);
    r.slower += res.verdict == Verdict::slower;
    r.faster += res.verdict == Verdict::faster;
    r.covered += res.ci_low <= true_ratio && true_ratio <= res.ci_high;
  }
  r.slower /= trials;
  r.faster /= trials;
  r.covered /= trials;
  return r;
}

Options no_threshold() {
  Options o;
  o.threshold_percent = 0;  // test the Mann-Whitney calibration alone, not the threshold's help
  return o;
}

TEST(CompareStatistics, FalsePositivesAtMostFivePercentOnIdenticalDistributions) {
  // The verdict as users get it (default 1 % threshold), on several shapes and sizes.
  for (size_t n : {size_t(9), size_t(20), size_t(40)}) {
    auto r = simulate(2000, n, normal_cv(0.01), 1.0, Options{}, 100 + n);
    EXPECT_LE(r.slower + r.faster, 0.05) << "n=" << n;
  }
  auto skew = simulate(2000, 20, skewed(0.05), 1.0, Options{}, 5);
  EXPECT_LE(skew.slower + skew.faster, 0.05);
  auto ties = simulate(2000, 15, tied(), 1.0, Options{}, 6);
  EXPECT_LE(ties.slower + ties.faster, 0.05);
}

TEST(CompareStatistics, TestAloneHoldsItsNominalLevel) {
  // Without the threshold's help the Mann-Whitney test must reject at about alpha: not more
  // (false alarms), and not far less (a test that never fires). 4000 trials: MC error ~0.0035.
  for (size_t n : {size_t(10), size_t(20), size_t(40)}) {
    auto r = simulate(4000, n, normal_cv(0.01), 1.0, no_threshold(), 200 + n);
    EXPECT_NEAR(r.slower + r.faster, 0.05, 0.012) << "n=" << n;
    EXPECT_NEAR(r.slower, r.faster, 0.015) << "n=" << n;
  }
  // Heavy ties (about 7 distinct values) make the continuity-corrected test conservative.
  auto ties = simulate(4000, 15, tied(), 1.0, no_threshold(), 7);
  EXPECT_LE(ties.slower + ties.faster, 0.05);
  EXPECT_GE(ties.slower + ties.faster, 0.02);
}

TEST(CompareStatistics, ThreePercentShiftWithTwentyRunsIsDetected) {
  auto slower = simulate(1000, 20, normal_cv(0.01), 1.03, Options{}, 11);
  EXPECT_GE(slower.slower, 0.95);
  EXPECT_EQ(slower.faster, 0.0);
  auto faster = simulate(1000, 20, normal_cv(0.01), 1 / 1.03, Options{}, 12);
  EXPECT_GE(faster.faster, 0.95);
  // Skewed timings with the same spread: rank tests keep their power.
  auto skew = simulate(1000, 20, skewed(0.01), 1.03, Options{}, 13);
  EXPECT_GE(skew.slower, 0.95);
}

TEST(CompareStatistics, ShiftInsideThresholdIsNoChange) {
  // 0.5 % with 0.1 % CV is very significant, but below the default 1 % threshold.
  auto r = simulate(300, 20, normal_cv(0.001), 1.005, Options{}, 21);
  EXPECT_EQ(r.slower, 0.0);
  auto strict = simulate(300, 20, normal_cv(0.001), 1.005, no_threshold(), 21);
  EXPECT_GE(strict.slower, 0.95);
}

TEST(CompareStatistics, IntervalCoversTrueRatioAtNominalRate) {
  for (auto [name, sampler] : {std::pair{"normal", normal_cv(0.02)}, std::pair{"skewed", skewed(0.03)}}) {
    auto r = simulate(2000, 20, sampler, 1.03, Options{}, 31);
    EXPECT_NEAR(r.covered, 0.95, 0.02) << name;
  }
  Options ninety;
  ninety.alpha = 0.10;
  auto r = simulate(2000, 12, normal_cv(0.02), 0.97, ninety, 32);
  EXPECT_NEAR(r.covered, 0.90, 0.025);
}

TEST(CompareStatistics, RatioIsOfMedians) {
  std::vector<double> base = {100, 101, 102, 1000};  // median 101.5 despite the outlier
  std::vector<double> next = {203, 205, 200, 190};   // median 201.5
  auto r = compare_timings(base, next, Options{});
  EXPECT_DOUBLE_EQ(r.ratio, 201.5 / 101.5);
  EXPECT_TRUE(r.ci_bounded);  // 4 per side: the full range of ratios covers 1 - 2/70 > 95 %
  std::vector<double> three = {100, 101, 102};
  EXPECT_FALSE(compare_timings(three, three, Options{}).ci_bounded);  // 3 per side: at most 90 %
}

}  // namespace
}  // namespace nw::compare
