// SPDX-License-Identifier: Apache-2.0
// Sequential inference that stays valid however early it stops: a confidence sequence for a median
// (Howard & Ramdas, "Sequential estimation of quantiles with applications to A/B-testing and
// best-arm identification", Bernoulli 2022). Live compare and `run --runs auto` look at the data
// after every pair or run and stop as soon as the answer is known; a fixed-sample test repeated
// that way would be wrong far more often than its level says.
//
// How: for the true median m, whether each new value falls below it is a fair coin, so the count
// k of values below m after n of them is Binomial(n, 1/2). The beta-binomial mixture
//   M_n(k) = 2^n B(a + k, a + n - k) / B(a, a)
// is a nonnegative martingale under that null, so by Ville's inequality it exceeds 1/alpha at any
// time with probability at most alpha. The values of m whose count keeps M_n below 1/alpha form an
// interval between two order statistics, at every n at once: it may be looked at after every value,
// intersected over time, and stopped on at will. Distribution-free (one noisy run moves one order
// statistic, not the estimate), and it needs only that the values are independent with a
// continuous distribution.
#pragma once
#include <cstddef>
#include <limits>
#include <vector>

namespace nw::stats {

// The mixture's Beta(a, a): the sample size it is tightest for grows with a. 3 was chosen by
// simulation (tests/unit/sequential_test.cpp): a paired 3 % effect under 1.4 % noise is found in
// about 12 pairs, equivalence within 1 % shown in about 50, at or below the nominal error rates.
inline constexpr double kMixtureA = 3.0;

// [lo, hi]: the counts of values below the median that M_n keeps below 1/alpha after n values
// (lo = 0, hi = n when every count is; the interval is symmetric about n / 2). `hint`: a lower
// bound found for a smaller n, where the scan may start (checked, never trusted).
struct CountBounds {
  size_t lo = 0, hi = 0;
};
CountBounds median_count_bounds(size_t n, double alpha, double a = kMixtureA, size_t hint = 0);

// A running confidence sequence for the median of the values added so far: after each add(),
// interval() holds the median with probability >= 1 - alpha simultaneously for every n (the
// intersection of the intervals so far). Unbounded (+-infinity) until enough values pin a side.
class MedianSequence {
 public:
  explicit MedianSequence(double alpha = 0.05, double a = kMixtureA) : alpha_(alpha), a_(a) {}
  void add(double value);
  size_t size() const { return sorted_.size(); }
  double low() const { return low_; }
  double high() const { return high_; }
  double median() const;  // the sample median (NaN before any value)
  double alpha() const { return alpha_; }

 private:
  double alpha_, a_;
  std::vector<double> sorted_;
  size_t lo_hint_ = 0;
  double low_ = -std::numeric_limits<double>::infinity(), high_ = std::numeric_limits<double>::infinity();
};

// How precisely the median of positive `values` is known after all of them (a MedianSequence fed
// in their order): the larger of high/median - 1 and 1 - low/median, infinity while unbounded.
// `run --runs auto` stops once it is within the asked precision.
double median_relative_precision(const std::vector<double>& values, double alpha = 0.05);

// What a confidence sequence for a difference says about it, against an equivalence margin:
// different when it excludes 0, same when it lies inside (-margin, margin), else undecided.
// Both errors (different when there is no difference, same when the difference is beyond the
// margin) are at most alpha, at any stopping time.
enum class Outcome { undecided, different, same };
// Where a confidence sequence lies against a value: wholly above it, wholly below it, or across it.
// (bisect: a commit's log(M/good) against half the endpoints' difference.)
enum class Side { below, above, across };
Side side_of(double low, double high, double value);
Outcome decide(double low, double high, double margin);
const char* outcome_name(Outcome o);  // "undecided" | "different" | "same"

}  // namespace nw::stats
