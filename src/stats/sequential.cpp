// SPDX-License-Identifier: Apache-2.0
#include "stats/sequential.h"

#include <algorithm>
#include <cmath>

namespace nw::stats {

namespace {

double log_beta(double x, double y) { return std::lgamma(x) + std::lgamma(y) - std::lgamma(x + y); }

}  // namespace

CountBounds median_count_bounds(size_t n, double alpha, double a, size_t hint) {
  const double threshold = std::log(1.0 / alpha), prior = log_beta(a, a), dn = double(n);
  auto below = [&](size_t k) {
    return dn * std::log(2.0) + log_beta(a + double(k), a + dn - double(k)) - prior < threshold;
  };
  // log M_n(k) is convex and symmetric in k about n / 2: the first k from 0 up below the threshold
  // is the lower bound, and n minus it the upper. A hint (the previous n's bound) skips the scan
  // when the count just under it is still above the threshold.
  size_t k = 2 * hint <= n && hint > 0 && !below(hint - 1) ? hint : 0;
  for (; 2 * k <= n; ++k)
    if (below(k)) return {k, n - k};
  return {n / 2, n - n / 2};
}

void MedianSequence::add(double value) {
  sorted_.insert(std::upper_bound(sorted_.begin(), sorted_.end(), value), value);
  const size_t n = sorted_.size();
  const CountBounds b = median_count_bounds(n, alpha_, a_, lo_hint_);
  lo_hint_ = b.lo;
  // The median m is plausible while the count of values below it lies in [lo, hi]: m above the
  // lo-th smallest value (1-based) and at most the (hi + 1)-th.
  const double inf = std::numeric_limits<double>::infinity();
  const double low = b.lo >= 1 ? sorted_[b.lo - 1] : -inf;
  const double high = b.hi < n ? sorted_[b.hi] : inf;
  low_ = std::max(low_, low);
  high_ = std::min(high_, high);
  // The intersection can only be empty by a miscoverage (probability <= alpha): keep it a point
  // rather than an inverted interval.
  if (low_ > high_) low_ = high_ = (low_ + high_) / 2;
}

double MedianSequence::median() const {
  const size_t n = sorted_.size();
  if (n == 0) return std::nan("");
  return n % 2 ? sorted_[n / 2] : (sorted_[n / 2 - 1] + sorted_[n / 2]) / 2;
}

double median_relative_precision(const std::vector<double>& values, double alpha) {
  MedianSequence seq(alpha);
  for (double v : values) seq.add(v);
  const double m = seq.median();
  if (!(m > 0) || !std::isfinite(seq.low()) || !std::isfinite(seq.high()) || seq.low() <= 0)
    return std::numeric_limits<double>::infinity();
  return std::max(seq.high() / m - 1, 1 - seq.low() / m);
}

Outcome decide(double low, double high, double margin) {
  if (low > 0 || high < 0) return Outcome::different;
  if (low > -margin && high < margin) return Outcome::same;
  return Outcome::undecided;
}

Side side_of(double low, double high, double value) {
  if (low > value) return Side::above;
  if (high < value) return Side::below;
  return Side::across;
}

const char* outcome_name(Outcome o) {
  switch (o) {
    case Outcome::different:
      return "different";
    case Outcome::same:
      return "same";
    case Outcome::undecided:
      break;
  }
  return "undecided";
}

}  // namespace nw::stats
