// SPDX-License-Identifier: Apache-2.0
// Shapes of the run-to-run distribution that have a name and a usual cause: outliers, two
// clusters, a trend across repetitions, a slow first run; and how stable the timings are.
#pragma once
#include <string>
#include <vector>

#include "reports/source_matrix.h"

namespace nw::report {

// Thresholds, named so that tests and ATTRIBUTION.md refer to the same numbers.
inline constexpr double kOutlierZ = 3.5;          // modified z-score (Iglewicz & Hoaglin)
inline constexpr double kCvModerate = 0.01;       // CV above this: small changes get hidden
inline constexpr double kCvUnstable = 0.05;       // CV above this: results are unstable
inline constexpr double kTargetPrecision = 0.01;  // wanted 95 % half-width of the mean
inline constexpr double kUnaccountedWarn = 0.10;  // one CPU: wall time no measured figure accounts for
inline constexpr double kBimodalAshmanD = 4.0;    // floor; also above what a normal sample of n gives
inline constexpr double kMinRelativeGap = 0.005;  // clusters/trends smaller than 0.5 % are ignored
inline constexpr double kDriftP = 0.01;           // Mann-Kendall two-sided p-value

struct Outlier {
  int run = 0;  // RunSample::index
  double z = 0;
  std::string source;  // the source most above its median in that run, if any
};

struct Bimodal {
  bool found = false;
  double fast_mean_ns = 0, slow_mean_ns = 0, ashman_d = 0;
  std::vector<int> slow_runs;
  std::string source;  // the source that accounts for most of the gap, if any
  double source_fraction = 0;
};

struct Drift {
  bool found = false;
  double slope_ns_per_run = 0;  // Theil-Sen
  double total_fraction = 0;    // slope * (n - 1) / median
  double p_value = 1;
  std::string source;  // a source trending the same way, if any
  bool frequency_falling = false;
};

struct SlowFirst {
  bool found = false;
  double excess = 0;  // first run / median of the others - 1
};

struct Patterns {
  size_t runs = 0;
  double cv = 0;
  std::string stability;     // "stable" | "moderate" | "unstable"
  double ci_half_width = 0;  // relative 95 % half-width of the mean (Student t)
  int runs_needed = 0;       // for kTargetPrecision
  std::vector<Outlier> outliers;
  Bimodal bimodal;
  Drift drift;
  SlowFirst slow_first;
};

Patterns detect_patterns(const RunMatrix& m);

// Mann-Kendall trend test: two-sided p-value and the sign of the trend (+1 rising, -1 falling).
std::pair<double, int> mann_kendall(const std::vector<double>& x);
double theil_sen_slope(const std::vector<double>& x);

}  // namespace nw::report
