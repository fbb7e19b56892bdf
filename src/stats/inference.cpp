// SPDX-License-Identifier: Apache-2.0
#include "stats/inference.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include <boost/math/distributions/normal.hpp>

#include "stats/mann_whitney_exact.h"

namespace nw::stats {

namespace {

double normal_upper_tail(double z) {
  static const boost::math::normal standard;
  return boost::math::cdf(boost::math::complement(standard, z));
}

double normal_quantile_upper(double tail) {
  static const boost::math::normal standard;
  return boost::math::quantile(boost::math::complement(standard, tail));
}

// Variance of U under H0 with the tie correction (Lehmann): n m / 12 * ((N + 1) - sum(t^3 - t) / (N (N - 1))).
struct RankSums {
  double rank_sum_y = 0;
  double variance_u = 0;
};

RankSums rank_sums(std::span<const double> x, std::span<const double> y) {
  struct Tagged {
    double v;
    bool from_y;
  };
  std::vector<Tagged> all;
  all.reserve(x.size() + y.size());
  for (double v : x) all.push_back({v, false});
  for (double v : y) all.push_back({v, true});
  std::sort(all.begin(), all.end(), [](const Tagged& a, const Tagged& b) { return a.v < b.v; });
  const double n = double(x.size()), m = double(y.size()), N = n + m;
  RankSums out;
  double tie_term = 0;
  for (size_t i = 0; i < all.size();) {
    size_t j = i;
    while (j < all.size() && all[j].v == all[i].v) ++j;
    double t = double(j - i);
    double midrank = (double(i + 1) + double(j)) / 2;
    for (size_t k = i; k < j; ++k)
      if (all[k].from_y) out.rank_sum_y += midrank;
    tie_term += t * t * t - t;
    i = j;
  }
  if (N > 1) out.variance_u = n * m / 12.0 * ((N + 1) - tie_term / (N * (N - 1)));
  return out;
}

void require_sorted(std::span<const double> v) {
  if (!std::is_sorted(v.begin(), v.end())) throw std::invalid_argument("kth_pairwise_difference needs sorted inputs");
}

// Number of differences y[j] - x[i] that are <= t. As x[i] grows, y[j] - x[i] shrinks, so the
// first index with a difference above t only moves forward: one pass over both arrays.
size_t count_at_most(std::span<const double> x, std::span<const double> y, double t) {
  size_t j = 0, count = 0;
  for (double xi : x) {
    while (j < y.size() && y[j] - xi <= t) ++j;
    count += j;
  }
  return count;
}

// All differences in (lo, hi]: used once the bisection has narrowed the range to a few of them.
std::vector<double> differences_between(std::span<const double> x, std::span<const double> y, double lo, double hi) {
  std::vector<double> out;
  size_t a = 0, b = 0;
  for (double xi : x) {
    while (a < y.size() && y[a] - xi <= lo) ++a;
    while (b < y.size() && y[b] - xi <= hi) ++b;
    for (size_t j = a; j < b; ++j) out.push_back(y[j] - xi);
  }
  return out;
}

ShiftEstimate shift_from_sorted(const std::vector<double>& xs, const std::vector<double>& ys, double alpha) {
  ShiftEstimate s;
  const size_t total = xs.size() * ys.size();
  if (total == 0) throw std::invalid_argument("Hodges-Lehmann needs two non-empty samples");
  if (total % 2 == 1) {
    s.estimate = kth_pairwise_difference(xs, ys, (total + 1) / 2);
  } else {
    s.estimate = (kth_pairwise_difference(xs, ys, total / 2) + kth_pairwise_difference(xs, ys, total / 2 + 1)) / 2;
  }
  // Moses interval: invert the Mann-Whitney test, with the distribution the test itself uses.
  // The bounds are the C-th smallest and C-th largest differences: exactly (no ties, small
  // samples), the largest C with P(U <= C - 1) <= alpha/2; else, inverting the continuity-
  // corrected normal approximation, C = floor(nm/2 - z sigma + 1/2).
  double c;
  if (exact_applies(xs, ys)) {
    c = double(moses_exact_rank(xs.size(), ys.size(), alpha));
  } else {
    double sigma = std::sqrt(rank_sums(xs, ys).variance_u);
    double z = normal_quantile_upper(alpha / 2);
    c = std::floor(double(total) / 2 - z * sigma + 0.5);
  }
  if (c < 1) {
    s.bounded = false;
    s.low = ys.front() - xs.back();
    s.high = ys.back() - xs.front();
  } else {
    size_t k = size_t(c);
    s.low = kth_pairwise_difference(xs, ys, k);
    s.high = kth_pairwise_difference(xs, ys, total - k + 1);
  }
  return s;
}

std::vector<double> sorted_copy(std::span<const double> v) {
  std::vector<double> out(v.begin(), v.end());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

MannWhitney mann_whitney_u(std::span<const double> x, std::span<const double> y) {
  MannWhitney r;
  if (x.empty() || y.empty()) return r;
  const double m = double(y.size());
  auto sums = rank_sums(x, y);
  r.u = sums.rank_sum_y - m * (m + 1) / 2;
  if (sums.variance_u <= 0) return r;  // every value tied: no evidence either way
  double d = r.u - double(x.size()) * m / 2;
  double corrected = std::max(std::fabs(d) - 0.5, 0.0);
  r.z = std::copysign(corrected, d) / std::sqrt(sums.variance_u);
  r.p_value = std::min(1.0, 2 * normal_upper_tail(std::fabs(r.z)));
  return r;
}

double kth_pairwise_difference(std::span<const double> x, std::span<const double> y, size_t k) {
  const size_t total = x.size() * y.size();
  if (k < 1 || k > total) throw std::out_of_range("kth_pairwise_difference: k outside [1, n*m]");
  require_sorted(x);
  require_sorted(y);
  double lo = y.front() - x.back(), hi = y.back() - x.front();
  size_t below_lo = count_at_most(x, y, lo);
  if (below_lo >= k) return lo;
  // Invariant: count(<= lo) < k <= count(<= hi); the answer lies in (lo, hi].
  const size_t enumerate_limit = std::max<size_t>(x.size() + y.size(), 64);
  size_t upto_hi = total;
  while (upto_hi - below_lo > enumerate_limit) {
    double mid = lo + (hi - lo) / 2;
    if (!(mid > lo && mid < hi)) return hi;  // adjacent doubles: every difference left equals hi
    size_t c = count_at_most(x, y, mid);
    if (c >= k) {
      hi = mid;
      upto_hi = c;
    } else {
      lo = mid;
      below_lo = c;
    }
  }
  auto rest = differences_between(x, y, lo, hi);
  size_t want = k - below_lo - 1;
  if (rest.empty() || want >= rest.size()) return hi;
  std::nth_element(rest.begin(), rest.begin() + std::ptrdiff_t(want), rest.end());
  return rest[want];
}

ShiftEstimate hodges_lehmann_shift(std::span<const double> x, std::span<const double> y, double alpha) {
  return shift_from_sorted(sorted_copy(x), sorted_copy(y), alpha);
}

ShiftEstimate hodges_lehmann_ratio(std::span<const double> x, std::span<const double> y, double alpha) {
  auto to_log = [](std::span<const double> v) {
    std::vector<double> out;
    out.reserve(v.size());
    for (double t : v) {
      if (!(t > 0)) throw std::invalid_argument("a ratio needs values > 0");
      out.push_back(std::log(t));
    }
    std::sort(out.begin(), out.end());
    return out;
  };
  auto s = shift_from_sorted(to_log(x), to_log(y), alpha);
  return {std::exp(s.estimate), std::exp(s.low), std::exp(s.high), s.bounded};
}

std::vector<bool> holm_significant(std::span<const double> p, double alpha) {
  std::vector<size_t> order(p.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return p[a] < p[b]; });
  std::vector<bool> out(p.size(), false);
  for (size_t r = 0; r < order.size(); ++r) {
    if (p[order[r]] > alpha / double(order.size() - r)) break;
    out[order[r]] = true;
  }
  return out;
}

std::vector<double> holm_adjusted(std::span<const double> p) {
  std::vector<size_t> order(p.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return p[a] < p[b]; });
  std::vector<double> out(p.size(), 1.0);
  double running = 0;  // adjusted p-values never decrease along the sorted order
  for (size_t r = 0; r < order.size(); ++r) {
    running = std::max(running, std::min(1.0, double(order.size() - r) * p[order[r]]));
    out[order[r]] = running;
  }
  return out;
}

}  // namespace nw::stats
