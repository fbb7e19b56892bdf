// SPDX-License-Identifier: Apache-2.0
#include "stats/mann_whitney_exact.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <utility>
#include <vector>

#include "stats/inference.h"

namespace nw::stats {

namespace {

// Cumulative distribution of U for n x-values and m y-values, by the recurrence on the largest
// of the n + m values: it is a y (counting every x below it, so U grows by the number of x's) or
// an x. c(i, j, u) = c(i, j - 1, u - i) + c(i - 1, j, u): only additions of positive counts, so
// doubles keep full relative precision in the far tails, where p-values live (counts reach
// C(100, 50) ~ 1e29 at 50 x 50, well inside double range).
std::vector<double> build_cdf(size_t n, size_t m) {
  // prev[j] holds c(i - 1, j, .), cur[j] holds c(i, j, .); c(i, j, .) has i*j + 1 entries.
  std::vector<std::vector<double>> prev(m + 1), cur(m + 1);
  for (size_t j = 0; j <= m; ++j) prev[j] = {1.0};  // no x: one ordering, U = 0
  for (size_t i = 1; i <= n; ++i) {
    cur[0] = {1.0};  // no y: U = 0
    for (size_t j = 1; j <= m; ++j) {
      std::vector<double> c(i * j + 1, 0.0);
      const auto& last_is_y = cur[j - 1];  // size i (j - 1) + 1, shifted by i
      for (size_t u = 0; u < last_is_y.size(); ++u) c[u + i] += last_is_y[u];
      const auto& last_is_x = prev[j];  // size (i - 1) j + 1
      for (size_t u = 0; u < last_is_x.size(); ++u) c[u] += last_is_x[u];
      cur[j] = std::move(c);
    }
    std::swap(prev, cur);
  }
  std::vector<double> cdf = std::move(prev[m]);
  double total = 0;
  for (double& v : cdf) v = (total += v);
  for (double& v : cdf) v /= total;
  return cdf;
}

// The distribution of U is the same for (n, m) and (m, n); compare asks for the same sizes for
// every benchmark of a file, so each is built once.
const std::vector<double>& cdf_for(size_t n, size_t m) {
  static std::mutex lock;
  static std::map<std::pair<size_t, size_t>, std::vector<double>> cache;
  auto key = std::minmax(n, m);
  std::lock_guard guard(lock);
  auto it = cache.find(key);
  if (it == cache.end()) {
    if (cache.size() >= 64) cache.clear();  // bounded: sizes seen in one process are few
    it = cache.emplace(key, build_cdf(key.first, key.second)).first;
  }
  return it->second;
}

}  // namespace

double mann_whitney_exact_cdf(size_t n, size_t m, double u) {
  if (u < 0) return 0;
  if (n == 0 || m == 0) return 1;
  const auto& cdf = cdf_for(n, m);
  size_t k = size_t(std::floor(u));
  return k >= cdf.size() ? 1.0 : cdf[k];
}

bool has_ties(std::span<const double> x, std::span<const double> y) {
  std::vector<double> all(x.begin(), x.end());
  all.insert(all.end(), y.begin(), y.end());
  std::sort(all.begin(), all.end());
  return std::adjacent_find(all.begin(), all.end()) != all.end();
}

bool exact_applies(std::span<const double> x, std::span<const double> y) {
  return !x.empty() && !y.empty() && x.size() <= kExactMaxPerSide && y.size() <= kExactMaxPerSide && !has_ties(x, y);
}

MannWhitneyTest mann_whitney_test(std::span<const double> x, std::span<const double> y) {
  MannWhitneyTest r;
  auto normal = mann_whitney_u(x, y);
  r.u = normal.u;
  r.p_value = normal.p_value;
  if (!exact_applies(x, y)) return r;
  // Without ties U is an integer; the two-sided p doubles the smaller tail (scipy's definition).
  double nm = double(x.size()) * double(y.size());
  double lower = std::min(r.u, nm - r.u);
  r.p_value = std::min(1.0, 2 * mann_whitney_exact_cdf(x.size(), y.size(), std::round(lower)));
  r.exact = true;
  return r;
}

size_t moses_exact_rank(size_t n, size_t m, double alpha) {
  if (n == 0 || m == 0) return 0;
  const auto& cdf = cdf_for(n, m);
  size_t c = 0;
  while (c < cdf.size() && cdf[c] <= alpha / 2) ++c;
  return c;
}

}  // namespace nw::stats
