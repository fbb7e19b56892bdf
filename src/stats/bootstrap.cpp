// SPDX-License-Identifier: Apache-2.0
#include "stats/bootstrap.h"

#include <random>
#include <vector>

#include "stats/descriptive.h"

namespace nw::stats {

Interval bootstrap(size_t n, const std::function<double(std::span<const size_t>)>& stat, int resamples, double alpha,
                   uint64_t seed) {
  if (n == 0 || resamples <= 0) return {};
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<size_t> pick(0, n - 1);
  std::vector<size_t> idx(n);
  std::vector<double> values;
  values.reserve(size_t(resamples));
  for (int b = 0; b < resamples; ++b) {
    for (auto& i : idx) i = pick(rng);
    values.push_back(stat(idx));
  }
  return {quantile(values, alpha / 2), quantile(values, 1 - alpha / 2)};
}

}  // namespace nw::stats
