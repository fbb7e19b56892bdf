// SPDX-License-Identifier: Apache-2.0
// Percentile bootstrap over repetitions: how uncertain is a statistic computed from few runs?
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>

namespace nw::stats {

struct Interval {
  double low = 0, high = 0;
};

// Resamples the indices 0..n-1 with replacement `resamples` times (deterministic for a seed),
// evaluates stat(indices) on each resample and returns its [alpha/2, 1 - alpha/2] quantiles.
Interval bootstrap(size_t n, const std::function<double(std::span<const size_t>)>& stat, int resamples = 2000,
                   double alpha = 0.05, uint64_t seed = 42);

}  // namespace nw::stats
