// SPDX-License-Identifier: Apache-2.0
#include "stats/correlation.h"

#include <algorithm>
#include <cmath>

#include <boost/math/distributions/students_t.hpp>

#include "stats/descriptive.h"

namespace nw::stats {

Correlation pearson(std::span<const double> x, std::span<const double> y) {
  Correlation c;
  const size_t n = std::min(x.size(), y.size());
  if (n < 3) return c;
  x = x.first(n);
  y = y.first(n);
  const double vx = variance(x), vy = variance(y);
  if (!(vx > 0) || !(vy > 0)) return c;
  c.r = std::clamp(covariance(x, y) / std::sqrt(vx * vy), -1.0, 1.0);
  if (std::fabs(c.r) >= 1.0) {
    c.p_value = 0;
    return c;
  }
  const double df = double(n - 2);
  const double t = c.r * std::sqrt(df / (1 - c.r * c.r));
  boost::math::students_t dist(df);
  c.p_value = 2 * boost::math::cdf(boost::math::complement(dist, std::fabs(t)));
  return c;
}

}  // namespace nw::stats
