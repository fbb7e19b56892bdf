// SPDX-License-Identifier: Apache-2.0
// The median confidence sequence (src/stats/sequential.h) and the decisions live compare takes
// with it, checked by simulation: thousands of sequences looked at after every pair and stopped at
// the first decision, as `noisewatch compare -- A ::: B` does. The error rates must stay at or
// below the nominal 5 % under that early stopping; the printed figures compare the pairs it needed
// with a fixed-sample sign test of the same power.
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <random>

#include "stats/sequential.h"

namespace nw::stats {
namespace {

double log_mixture(size_t n, size_t k, double a) {
  auto lb = [](double x, double y) { return std::lgamma(x) + std::lgamma(y) - std::lgamma(x + y); };
  return double(n) * std::log(2.0) + lb(a + double(k), a + double(n - k)) - lb(a, a);
}

TEST(Sequential, CountBoundsAreTheMixturesLevelSet) {
  EXPECT_EQ(median_count_bounds(0, 0.05).lo, 0u);
  size_t previous = 0;
  for (size_t n = 1; n <= 400; ++n) {
    auto b = median_count_bounds(n, 0.05);
    EXPECT_EQ(b.lo + b.hi, n) << n;
    // Every count outside [lo, hi] makes the martingale reach 1/alpha; lo itself does not.
    EXPECT_LT(log_mixture(n, b.lo, kMixtureA), std::log(20.0)) << n;
    if (b.lo > 0) EXPECT_GE(log_mixture(n, b.lo - 1, kMixtureA), std::log(20.0)) << n;
    // The hint gives the same answer as the full scan, whatever it is.
    EXPECT_EQ(median_count_bounds(n, 0.05, kMixtureA, previous).lo, b.lo) << n;
    EXPECT_EQ(median_count_bounds(n, 0.05, kMixtureA, n / 2).lo, b.lo) << n;
    previous = b.lo;
  }
  // A few values say nothing yet: 9 pairs all one way do not make 1/alpha, 10 do.
  EXPECT_EQ(median_count_bounds(9, 0.05).lo, 0u);
  EXPECT_EQ(median_count_bounds(10, 0.05).lo, 1u);
}

TEST(Sequential, IntervalNarrowsAroundTheMedianAndNeverWidens) {
  MedianSequence s;
  std::mt19937_64 rng(7);
  std::normal_distribution<double> noise(0.02, 0.01);
  double low = -INFINITY, high = INFINITY;
  for (int i = 0; i < 300; ++i) {
    s.add(noise(rng));
    EXPECT_GE(s.low(), low);
    EXPECT_LE(s.high(), high);
    low = s.low(), high = s.high();
  }
  EXPECT_LT(s.low(), 0.02);
  EXPECT_GT(s.high(), 0.02);
  EXPECT_LT(s.high() - s.low(), 0.01);
  EXPECT_EQ(decide(s.low(), s.high(), 0.01), Outcome::different);
  EXPECT_EQ(decide(-0.004, 0.005, 0.01), Outcome::same);
  EXPECT_EQ(decide(-0.004, 0.012, 0.01), Outcome::undecided);
}

// One sequential comparison: paired log-ratios with a true shift `effect`, Gaussian noise of `sd`
// and, in one pair in ten, a burst of noise on one side (a preemption: exponential, 5 sd on
// average), looked at after every pair until a decision or `max_pairs`.
struct Trial {
  Outcome outcome = Outcome::undecided;
  size_t pairs = 0;
  double low = 0, high = 0;
};
Trial trial(std::mt19937_64& rng, double effect, double sd, double margin, size_t max_pairs) {
  std::normal_distribution<double> noise(0, sd);
  std::exponential_distribution<double> burst(1 / (5 * sd));
  std::bernoulli_distribution disturbed(0.1), side(0.5);
  MedianSequence s(0.05);
  Trial t;
  for (size_t n = 1; n <= max_pairs; ++n) {
    double d = effect + noise(rng);
    if (disturbed(rng)) d += side(rng) ? burst(rng) : -burst(rng);
    s.add(d);
    t = {decide(s.low(), s.high(), margin), n, s.low(), s.high()};
    if (t.outcome != Outcome::undecided) break;
  }
  return t;
}

// The smallest fixed number of pairs whose two-sided sign test at 5 % has at least `power` when a
// pair's value falls below 0 with probability p.
size_t fixed_sign_test_pairs(double p, double power) {
  for (size_t n = 2; n < 5000; ++n) {
    // Critical count c: P(K <= c) <= 0.025 under p = 1/2.
    std::vector<double> pmf0(n + 1), pmf1(n + 1);
    for (size_t k = 0; k <= n; ++k) {
      double lc = std::lgamma(double(n) + 1) - std::lgamma(double(k) + 1) - std::lgamma(double(n - k) + 1);
      pmf0[k] = std::exp(lc + double(n) * std::log(0.5));
      pmf1[k] = std::exp(lc + double(k) * std::log(p) + double(n - k) * std::log1p(-p));
    }
    double tail = 0, reject = 0;
    for (size_t c = 0; c <= n; ++c) {
      if (tail + pmf0[c] > 0.025) break;
      tail += pmf0[c];
      reject += pmf1[c] + pmf1[n - c];
    }
    if (reject >= power) return n;
  }
  return 5000;
}

double share_below_zero(double effect, double sd) {
  std::mt19937_64 rng(11);
  std::normal_distribution<double> noise(0, sd);
  std::exponential_distribution<double> burst(1 / (5 * sd));
  std::bernoulli_distribution disturbed(0.1), side(0.5);
  int below = 0, n = 200000;
  for (int i = 0; i < n; ++i) {
    double d = effect + noise(rng);
    if (disturbed(rng)) d += side(rng) ? burst(rng) : -burst(rng);
    below += d < 0;
  }
  return double(below) / n;
}

TEST(Sequential, ErrorRatesHoldUnderEarlyStopping) {
  const double sd = 0.014, margin = std::log(1.01);  // --threshold 1 %
  const int trials = 2000;
  const size_t max_pairs = 200;
  std::mt19937_64 rng(20261205);
  struct Scenario {
    const char* name;
    double effect;
  };
  for (const Scenario sc : {Scenario{"identical", 0.0}, Scenario{"B 3 % slower", std::log(1.03)},
                            Scenario{"B 1.5 % slower", std::log(1.015)}}) {
    int different = 0, same = 0, undecided = 0, right = 0, covered = 0;
    double pairs = 0;
    for (int i = 0; i < trials; ++i) {
      Trial t = trial(rng, sc.effect, sd, margin, max_pairs);
      different += t.outcome == Outcome::different;
      same += t.outcome == Outcome::same;
      undecided += t.outcome == Outcome::undecided;
      right += t.outcome == Outcome::different && t.low > 0 && t.low <= sc.effect && sc.effect <= t.high;
      covered += t.low <= sc.effect && sc.effect <= t.high;
      pairs += double(t.pairs);
    }
    const double n = trials;
    if (sc.effect == 0) {
      EXPECT_LE(different / n, 0.05) << sc.name << ": 'different' when A and B are the same";
    } else {
      // Beyond the 1 % margin: never shown 'same' more often than alpha.
      EXPECT_LE(same / n, 0.05) << sc.name;
    }
    if (sc.effect > std::log(1.02)) EXPECT_GE(right / n, 0.95) << sc.name << ": different, B slower, truth inside";
    EXPECT_GE(covered / n, 0.95) << sc.name << ": the interval holds the true shift when it stops";
    const double power = (sc.effect == 0 ? same : different) / n;
    std::cout << "[ figures  ] " << sc.name << ": different " << different / n << ", same " << same / n
              << ", undecided " << undecided / n << ", mean pairs " << pairs / n;
    if (sc.effect > 0)
      std::cout << "; a fixed-sample sign test of the same power (" << power << ") needs "
                << fixed_sign_test_pairs(share_below_zero(sc.effect, sd), std::min(power, 0.99)) << " pairs";
    std::cout << "\n";
  }
}

TEST(Sequential, MedianPrecisionIsUnboundedAtFirstThenShrinks) {
  std::mt19937_64 rng(5);
  std::normal_distribution<double> t(100, 1);  // 1 % noise
  std::vector<double> v;
  for (int i = 0; i < 9; ++i) v.push_back(t(rng));
  EXPECT_TRUE(std::isinf(median_relative_precision(v))) << "9 values bound nothing";
  for (int i = 0; i < 191; ++i) v.push_back(t(rng));
  const double p = median_relative_precision(v);
  EXPECT_GT(p, 0.0005);
  EXPECT_LT(p, 0.005) << "200 values of 1 % noise pin the median within half a percent";
}

}  // namespace
}  // namespace nw::stats
