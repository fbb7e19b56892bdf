// SPDX-License-Identifier: Apache-2.0
#include "stats/descriptive.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace nw::stats {

double mean(std::span<const double> x) {
  if (x.empty()) return 0;
  return std::accumulate(x.begin(), x.end(), 0.0) / double(x.size());
}

double quantile(std::vector<double> x, double q) {
  if (x.empty()) return 0;
  double pos = q * double(x.size() - 1);
  size_t lo = size_t(std::floor(pos));
  size_t hi = std::min(lo + 1, x.size() - 1);
  double frac = pos - double(lo);
  // The two order statistics around pos by selection, not a sort (linear time: a 500-run
  // record's drift test takes the median of ~125,000 pairwise slopes).
  std::nth_element(x.begin(), x.begin() + std::ptrdiff_t(lo), x.end());
  double low = x[lo];
  double high = hi == lo ? low : *std::min_element(x.begin() + std::ptrdiff_t(lo) + 1, x.end());
  return low + (high - low) * frac;
}

double median(std::vector<double> x) { return quantile(std::move(x), 0.5); }

double covariance(std::span<const double> x, std::span<const double> y) {
  size_t n = std::min(x.size(), y.size());
  if (n < 2) return 0;
  double mx = mean(x.subspan(0, n)), my = mean(y.subspan(0, n));
  double s = 0;
  for (size_t i = 0; i < n; ++i) s += (x[i] - mx) * (y[i] - my);
  return s / double(n - 1);
}

double variance(std::span<const double> x) { return covariance(x, x); }
double stddev(std::span<const double> x) { return std::sqrt(variance(x)); }

double mad(std::vector<double> x) {
  if (x.empty()) return 0;
  double m = median(x);
  for (auto& v : x) v = std::fabs(v - m);
  return median(std::move(x));
}

std::vector<double> modified_z(std::span<const double> x) {
  std::vector<double> v(x.begin(), x.end());
  std::vector<double> z(x.size(), 0.0);
  double m = median(v), d = mad(v);
  if (d == 0) return z;
  for (size_t i = 0; i < x.size(); ++i) z[i] = 0.6745 * (x[i] - m) / d;
  return z;
}

}  // namespace nw::stats
