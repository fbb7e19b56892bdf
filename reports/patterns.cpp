// SPDX-License-Identifier: Apache-2.0
#include "reports/patterns.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <span>

#include <boost/math/distributions/students_t.hpp>

#include "stats/descriptive.h"

namespace nw::report {

namespace {

// The source most above its own median in run i, and by how much (ns).
std::pair<std::string, double> top_excess_source(const RunMatrix& m, size_t i) {
  std::string best;
  double best_excess = 0;
  for (const auto& s : m.sources) {
    if (s.kind != Kind::time) continue;
    double excess = s.time_ns[i] - stats::median(s.time_ns);
    if (excess > best_excess) {
      best_excess = excess;
      best = s.name;
    }
  }
  return {best, best_excess};
}

std::vector<Outlier> find_outliers(const RunMatrix& m) {
  std::vector<Outlier> out;
  if (m.runs() < 3) return out;
  auto z = stats::modified_z(m.wall_ns);
  for (size_t i = 0; i < z.size(); ++i) {
    if (std::fabs(z[i]) <= kOutlierZ) continue;
    Outlier o{m.run_index[i], z[i], {}};
    // Only a slow outlier can be blamed on a source that took extra time.
    if (z[i] > 0) {
      auto [src, excess] = top_excess_source(m, i);
      if (excess > 0.3 * (m.wall_ns[i] - stats::median(m.wall_ns))) o.source = src;
    }
    out.push_back(std::move(o));
  }
  return out;
}

struct Split {
  size_t k = 0;  // the fast cluster is sorted[0, k)
  double d = 0;  // Ashman's D
};

// Optimal split of sorted values into two clusters (1-D 2-means: minimal within-cluster sum of
// squares, each cluster at least 15 % of the runs and 2 runs), with Ashman's D of the split.
Split best_split(const std::vector<double>& sorted) {
  const size_t n = sorted.size();
  const size_t min_size = std::max<size_t>(2, size_t(std::ceil(0.15 * double(n))));
  std::vector<double> sum(n + 1, 0), sq(n + 1, 0);
  for (size_t i = 0; i < n; ++i) {
    sum[i + 1] = sum[i] + sorted[i];
    sq[i + 1] = sq[i] + sorted[i] * sorted[i];
  }
  auto ss = [&](size_t a, size_t b) {  // sum of squared deviations of [a, b)
    double s = sum[b] - sum[a];
    return std::max(0.0, sq[b] - sq[a] - s * s / double(b - a));
  };
  Split best;
  double best_ss = INFINITY;
  for (size_t k = min_size; k + min_size <= n; ++k) {
    double w = ss(0, k) + ss(k, n);
    if (w < best_ss) {
      best_ss = w;
      best.k = k;
    }
  }
  if (best.k == 0) return best;
  size_t k = best.k;
  double gap = (sum[n] - sum[k]) / double(n - k) - sum[k] / double(k);
  double spread = std::sqrt((ss(0, k) / double(k - 1) + ss(k, n) / double(n - k - 1)) / 2);
  best.d = spread > 0 ? gap / spread : INFINITY;
  return best;
}

// A forced split of one normal sample already gives a large D when n is small (99th percentile
// ~6.5 at n = 10, ~4.7 at 20, ~3.7 at 40), so the threshold is the 99th percentile of D over
// normal samples of the same size (Monte Carlo, fixed seed: reports are reproducible).
double null_d_threshold(size_t n) {
  std::mt19937_64 rng(42);
  std::normal_distribution<double> normal;
  std::vector<double> ds, x(n);
  for (int t = 0; t < 1000; ++t) {
    for (auto& v : x) v = normal(rng);
    std::sort(x.begin(), x.end());
    ds.push_back(best_split(x).d);
  }
  return stats::quantile(std::move(ds), 0.99);
}

Bimodal find_bimodal(const RunMatrix& m) {
  Bimodal b;
  const size_t n = m.runs();
  if (n < 6) return b;
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t c) { return m.wall_ns[a] < m.wall_ns[c]; });
  std::vector<double> sorted;
  for (size_t i : order) sorted.push_back(m.wall_ns[i]);
  auto split = best_split(sorted);
  if (split.k == 0) return b;
  const size_t best_k = split.k;
  b.fast_mean_ns = stats::mean(std::span(sorted).subspan(0, best_k));
  b.slow_mean_ns = stats::mean(std::span(sorted).subspan(best_k));
  b.ashman_d = split.d;
  double gap = b.slow_mean_ns - b.fast_mean_ns;
  b.found = b.ashman_d > kBimodalAshmanD && gap > kMinRelativeGap * stats::median(m.wall_ns) &&
            b.ashman_d > null_d_threshold(n);
  if (!b.found) return b;
  for (size_t i = best_k; i < n; ++i) b.slow_runs.push_back(m.run_index[order[i]]);
  std::sort(b.slow_runs.begin(), b.slow_runs.end());
  for (const auto& s : m.sources) {
    if (s.kind != Kind::time) continue;
    double slow = 0, fast = 0;
    for (size_t i = 0; i < n; ++i) (i < best_k ? fast : slow) += s.time_ns[order[i]];
    double frac = (slow / double(n - best_k) - fast / double(best_k)) / gap;
    if (frac > b.source_fraction) {
      b.source_fraction = frac;
      b.source = s.name;
    }
  }
  if (b.source_fraction < 0.3) b.source.clear();
  return b;
}

Drift find_drift(const RunMatrix& m) {
  Drift d;
  const size_t n = m.runs();
  if (n < 6) return d;
  auto [p, sign] = mann_kendall(m.wall_ns);
  d.p_value = p;
  d.slope_ns_per_run = theil_sen_slope(m.wall_ns);
  double med = stats::median(m.wall_ns);
  d.total_fraction = med > 0 ? d.slope_ns_per_run * double(n - 1) / med : 0;
  d.found = p < kDriftP && std::fabs(d.total_fraction) > kMinRelativeGap;
  if (!d.found) return d;
  double best = 0;
  for (const auto& s : m.sources) {
    if (s.kind != Kind::time) continue;
    auto [ps, ss] = mann_kendall(s.time_ns);
    if (ps >= 0.05 || ss != sign) continue;
    double frac = theil_sen_slope(s.time_ns) / d.slope_ns_per_run;
    if (frac > best) {
      best = frac;
      d.source = s.name;
    }
  }
  if (best < 0.3) d.source.clear();
  return d;
}

SlowFirst find_slow_first(const RunMatrix& m) {
  SlowFirst s;
  if (m.runs() < 5) return s;
  std::vector<double> rest(m.wall_ns.begin() + 1, m.wall_ns.end());
  double med = stats::median(rest), spread = stats::mad(rest);
  double first = m.wall_ns.front();
  s.excess = med > 0 ? first / med - 1 : 0;
  bool far = spread > 0 ? 0.6745 * (first - med) / spread > kOutlierZ : s.excess > 2 * kMinRelativeGap;
  s.found = far && s.excess > kMinRelativeGap && first >= *std::max_element(rest.begin(), rest.end());
  return s;
}

}  // namespace

std::pair<double, int> mann_kendall(const std::vector<double>& x) {
  const size_t n = x.size();
  if (n < 3) return {1.0, 0};
  double s = 0;
  for (size_t i = 0; i < n; ++i)
    for (size_t j = i + 1; j < n; ++j) s += (x[j] > x[i]) - (x[j] < x[i]);
  double dn = double(n);
  double var = dn * (dn - 1) * (2 * dn + 5) / 18;
  if (s == 0) return {1.0, 0};
  double z = (s - (s > 0 ? 1 : -1)) / std::sqrt(var);  // continuity correction
  return {std::erfc(std::fabs(z) / std::sqrt(2.0)), s > 0 ? 1 : -1};
}

double theil_sen_slope(const std::vector<double>& x) {
  std::vector<double> slopes;
  slopes.reserve(x.size() * (x.size() - (x.empty() ? 0 : 1)) / 2);
  for (size_t i = 0; i < x.size(); ++i)
    for (size_t j = i + 1; j < x.size(); ++j) slopes.push_back((x[j] - x[i]) / double(j - i));
  return slopes.empty() ? 0.0 : stats::median(std::move(slopes));
}

namespace {

// The relative 95 % half-width of the mean of n runs with this CV (Student t, n - 1 degrees of
// freedom).
double half_width(double cv, int n) {
  boost::math::students_t t(double(n - 1));
  return boost::math::quantile(boost::math::complement(t, 0.025)) * cv / std::sqrt(double(n));
}

// The fewest runs (at least 5) whose half-width is within kTargetPrecision, by the same Student t
// as the half-width itself: a normal approximation here once told a user that 10 runs gave
// ±1.1 % and "about 9 runs would give ±1 %". The normal bound is a lower bound of the answer;
// past kMaxSearchRuns the normal bound is within a fraction of a percent of it and is returned.
int runs_for_precision(double cv) {
  constexpr int kMaxSearchRuns = 100000;
  double normal = std::pow(1.96 * cv / kTargetPrecision, 2);
  int n = std::max(5, int(std::ceil(normal)));
  if (normal > kMaxSearchRuns) return n;
  while (half_width(cv, n) > kTargetPrecision) ++n;
  return n;
}

}  // namespace

Patterns detect_patterns(const RunMatrix& m) {
  Patterns p;
  p.runs = m.runs();
  if (p.runs >= 2) {
    double mean = stats::mean(m.wall_ns);
    p.cv = mean > 0 ? stats::stddev(m.wall_ns) / mean : 0;
    p.ci_half_width = half_width(p.cv, p.runs);
    p.runs_needed = runs_for_precision(p.cv);
  }
  p.stability = p.cv >= kCvUnstable ? "unstable" : p.cv >= kCvModerate ? "moderate" : "stable";
  p.outliers = find_outliers(m);
  p.bimodal = find_bimodal(m);
  p.drift = find_drift(m);
  p.slow_first = find_slow_first(m);
  if (m.frequency_modelled) {
    for (const auto& s : m.sources)
      if (s.name == "frequency") {
        // The modelled frequency time rises as the frequency falls.
        auto [pf, sign] = mann_kendall(s.time_ns);
        p.drift.frequency_falling = p.drift.found && pf < 0.05 && sign > 0;
      }
  }
  return p;
}

}  // namespace nw::report
