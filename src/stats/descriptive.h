// SPDX-License-Identifier: Apache-2.0
// Descriptive statistics on samples. Shared by run summaries, attribution and compare.
#pragma once
#include <span>
#include <vector>

namespace nw::stats {

double mean(std::span<const double> x);
double median(std::vector<double> x);              // by value: sorts a copy
double quantile(std::vector<double> x, double q);  // linear interpolation, q in [0,1]
double variance(std::span<const double> x);        // sample variance (n-1)
double stddev(std::span<const double> x);
double covariance(std::span<const double> x, std::span<const double> y);  // sample (n-1)
double mad(std::vector<double> x);                                        // median absolute deviation (unscaled)
// Modified z-scores (Iglewicz-Hoaglin): 0.6745 (x - median) / MAD.
std::vector<double> modified_z(std::span<const double> x);

}  // namespace nw::stats
