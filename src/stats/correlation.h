// SPDX-License-Identifier: Apache-2.0
// Does one per-run series follow another? Pearson's correlation with its significance.
#pragma once
#include <span>

namespace nw::stats {

struct Correlation {
  double r = 0;
  double p_value = 1;  // two-sided, Student t with n - 2 degrees of freedom; 1 when undefined
};

// Pearson's r of equally long series; r = 0 and p = 1 with fewer than 3 pairs or when either
// series is constant (nothing to follow).
Correlation pearson(std::span<const double> x, std::span<const double> y);

}  // namespace nw::stats
