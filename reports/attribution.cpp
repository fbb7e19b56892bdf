// SPDX-License-Identifier: Apache-2.0
// Variance attribution: the exact decomposition of reports/ATTRIBUTION.md for time-valued sources.
// Count-valued sources (migration, fault) carry no time, so their cost per event is estimated by
// regressing the remainder U on their counts (least squares, non-negative: an event cannot save
// time); beta_k * c_k then plays the role of S_k and leaves U, keeping the sum exactly 1. An
// overlap source (smt) is regressed on its overlap time the same way: beta is the slowdown.
// Frequency is a time-valued series modelled from mean_khz in source_matrix.cpp.
#include "reports/attribution.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "stats/bootstrap.h"
#include "stats/descriptive.h"

namespace nw::report {

namespace {

std::vector<double> pick(const std::vector<double>& v, std::span<const size_t> idx) {
  std::vector<double> out;
  out.reserve(idx.size());
  for (size_t i : idx) out.push_back(v[i]);
  return out;
}

// Solves the normal equations of U ~ 1 + c_1 + ... + c_k for the active columns by Gaussian
// elimination on the (small) covariance matrix; columns with a negative coefficient are dropped
// and the fit redone (an active-set non-negative least squares, adequate for k <= 3).
std::vector<double> nonnegative_fit(const std::vector<std::vector<double>>& c, const std::vector<double>& u) {
  const size_t k = c.size();
  std::vector<double> beta(k, 0.0);
  std::vector<bool> active(k);
  for (size_t j = 0; j < k; ++j) active[j] = stats::variance(c[j]) > 0;
  for (size_t round = 0; round <= k; ++round) {
    std::vector<size_t> cols;
    for (size_t j = 0; j < k; ++j)
      if (active[j]) cols.push_back(j);
    std::fill(beta.begin(), beta.end(), 0.0);
    if (cols.empty()) return beta;
    const size_t p = cols.size();
    std::vector<std::vector<double>> a(p, std::vector<double>(p + 1));
    for (size_t r = 0; r < p; ++r) {
      for (size_t q = 0; q < p; ++q) a[r][q] = stats::covariance(c[cols[r]], c[cols[q]]);
      a[r][p] = stats::covariance(c[cols[r]], u);
    }
    bool singular = false;
    for (size_t col = 0; col < p && !singular; ++col) {
      size_t piv = col;
      for (size_t r = col + 1; r < p; ++r)
        if (std::fabs(a[r][col]) > std::fabs(a[piv][col])) piv = r;
      if (std::fabs(a[piv][col]) < 1e-12 * std::max(1.0, std::fabs(a[col][col]))) {
        singular = true;
        break;
      }
      std::swap(a[col], a[piv]);
      for (size_t r = 0; r < p; ++r) {
        if (r == col) continue;
        double f = a[r][col] / a[col][col];
        for (size_t q = col; q <= p; ++q) a[r][q] -= f * a[col][q];
      }
    }
    if (singular) {  // collinear counts (e.g. always equal): keep only the first one
      for (size_t j = 1; j < p; ++j) active[cols[j]] = false;
      continue;
    }
    bool negative = false;
    for (size_t r = 0; r < p; ++r) {
      beta[cols[r]] = a[r][p] / a[r][r];
      if (beta[cols[r]] < 0) {
        active[cols[r]] = false;
        negative = true;
      }
    }
    if (!negative) return beta;
  }
  std::fill(beta.begin(), beta.end(), 0.0);
  return beta;
}

}  // namespace

double max_per_event_ns(const SourceSeries& s) {
  if (!s.overlap_ns.empty()) return kMaxOverlapSlowdown;
  if (s.name == sources::kMigration) return kMaxMigrationNs;
  return s.major_faults ? kMaxMajorFaultNs : kMaxMinorFaultNs;
}

bool interval_uncertain(double share, double low, double high) {
  double width = high - low;
  return width > kUncertainWidth && width > std::fabs(share);
}

Decomposition decompose(const RunMatrix& m, std::span<const size_t> idx, const std::vector<bool>& rejected) {
  Decomposition d;
  const size_t k = m.sources.size();
  d.shares.assign(k, 0.0);
  d.per_event_ns.assign(k, 0.0);
  if (idx.size() < 2) return d;
  auto t = pick(m.wall_ns, idx);
  d.var_t = stats::variance(t);
  if (!(d.var_t > 0)) return d;
  d.valid = true;

  std::vector<double> u = t;
  // Cov(T, S) in one pass over the resample, without copying S: sum (t_i - mean t) * s_i is the
  // same sum as with s centred. (The bootstrap evaluates this for every source of every resample:
  // it was a third of a 500-run report's time.)
  const double mean_t = stats::mean(t);
  std::vector<double> t_centred(t.size());
  for (size_t i = 0; i < t.size(); ++i) t_centred[i] = t[i] - mean_t;
  std::vector<size_t> count_cols;
  std::vector<std::vector<double>> counts;
  for (size_t s = 0; s < k; ++s) {
    const auto& src = m.sources[s];
    if (src.kind == Kind::time) {
      double sum = 0;
      for (size_t i = 0; i < idx.size(); ++i) {
        const double v = src.time_ns[idx[i]];
        sum += t_centred[i] * v;
        u[i] -= v;
      }
      d.shares[s] = sum / double(idx.size() - 1) / d.var_t;
    } else if (s >= rejected.size() || !rejected[s]) {
      count_cols.push_back(s);
      counts.push_back(pick(src.regressor(), idx));
    }
  }
  auto beta = nonnegative_fit(counts, u);
  for (size_t j = 0; j < count_cols.size(); ++j) {
    size_t s = count_cols[j];
    d.per_event_ns[s] = beta[j];
    d.shares[s] = beta[j] * stats::covariance(t, counts[j]) / d.var_t;
    for (size_t i = 0; i < u.size(); ++i) u[i] -= beta[j] * counts[j][i];
  }
  d.unexplained = stats::covariance(t, u) / d.var_t;
  d.residual = std::move(u);
  return d;
}

namespace {

// Percentile bootstrap over repetitions: one pass evaluates the whole decomposition per resample
// and keeps every source's share, so all intervals come from the same resamples.
std::vector<std::vector<double>> bootstrap_shares(const RunMatrix& m, const std::vector<bool>& rejected) {
  const size_t n = m.runs(), k = m.sources.size();
  std::vector<std::vector<double>> samples(k + 1);
  // Each resample costs O(n x sources): keep the total work bounded for long records, where
  // the intervals are narrow anyway (>= 400 resamples still puts 10 beyond each 2.5 % tail).
  const int resamples = n <= 100 ? 2000 : int(std::max<size_t>(400, 200000 / n));
  stats::bootstrap(
      n,
      [&](std::span<const size_t> idx) {
        auto d = decompose(m, idx, rejected);
        if (!d.valid) return 0.0;  // all-identical resample: no variance to split, skip it
        for (size_t s = 0; s < k; ++s) samples[s].push_back(d.shares[s]);
        samples[k].push_back(d.unexplained);
        return 0.0;
      },
      resamples);
  return samples;
}

// A cost per event above the physical bound, or one that would make a run's events alone take
// longer than that run, cannot be what the events cost.
bool plausible_cost(const RunMatrix& m, const SourceSeries& s, double beta) {
  if (beta > max_per_event_ns(s)) return false;
  for (size_t i = 0; i < m.runs(); ++i)
    if (beta * s.regressor()[i] >= m.wall_ns[i]) return false;
  return true;
}

}  // namespace

AttributionResult attribute(const RunMatrix& m, const std::string& bench_comm) {
  AttributionResult res;
  const size_t n = m.runs(), k = m.sources.size();
  std::vector<size_t> all(n);
  std::iota(all.begin(), all.end(), 0);
  auto point = decompose(m, all);

  if (n < 2) res.reason = "attribution needs at least 2 measured runs";
  else if (!point.valid) res.reason = "every run took the same time: there is no variance to attribute";
  else if (n < kMinRunsToAttribute)
    res.reason =
        "with fewer than " + std::to_string(kMinRunsToAttribute) + " measured runs the shares are not reliable";
  res.attributable = point.valid && n >= kMinRunsToAttribute;

  // A count source keeps its fitted cost only when it is physically plausible and the bootstrap
  // says the count really moves the run time (its interval excludes 0); otherwise it is taken out
  // of the fit and everything is recomputed without it. Each round rejects one more source or ends.
  std::vector<bool> rejected(k, false);
  std::vector<CostFit> fits(k);
  std::vector<std::vector<double>> samples(k + 1);
  auto low = [&](size_t s) { return samples[s].empty() ? 0.0 : stats::quantile(samples[s], 0.025); };
  for (size_t round = 0; round <= k; ++round) {
    if (round > 0) point = decompose(m, all, rejected);
    bool changed = false;
    for (size_t s = 0; s < k; ++s) {
      if (m.sources[s].kind != Kind::count || rejected[s]) continue;
      fits[s].per_event_ns = point.per_event_ns[s];
      fits[s].plausible = plausible_cost(m, m.sources[s], point.per_event_ns[s]);
      if (!fits[s].plausible) rejected[s] = changed = true;
    }
    if (changed) continue;
    samples.assign(k + 1, {});
    if (res.attributable) samples = bootstrap_shares(m, rejected);
    for (size_t s = 0; s < k; ++s) {
      if (m.sources[s].kind != Kind::count || rejected[s]) continue;
      fits[s].significant = res.attributable && low(s) > 0;
      if (!fits[s].significant) rejected[s] = changed = true;
    }
    if (!changed) break;
  }

  auto interval = [&](AttributedSource& a, size_t s) {
    if (samples[s].empty()) return;
    a.share_low = stats::quantile(samples[s], 0.025);
    a.share_high = stats::quantile(samples[s], 0.975);
    a.uncertain = interval_uncertain(a.share, *a.share_low, *a.share_high);
  };

  double mean_t = stats::mean(m.wall_ns);
  for (size_t s = 0; s < k; ++s) {
    const auto& src = m.sources[s];
    AttributedSource a;
    a.source = src.name;
    a.group = sources::group_of(sources::parse(src.name), bench_comm);
    a.share = point.valid ? point.shares[s] : 0.0;
    a.mean_count = stats::mean(src.count);
    a.max_ns = src.max_ns;
    a.detail = src.detail;
    if (src.kind == Kind::time) {
      a.kind = src.name == sources::kFrequency && m.frequency_modelled ? RowKind::model : RowKind::time;
      a.mean_time_ns = stats::mean(src.time_ns);
    } else {
      a.kind = RowKind::count;
      a.fit = fits[s];
      a.fit->max_per_event_ns = max_per_event_ns(src);
      if (!src.overlap_ns.empty()) a.mean_overlap_ns = stats::mean(src.overlap_ns);
      a.mean_time_ns = rejected[s] ? 0.0 : point.per_event_ns[s] * stats::mean(src.regressor());
    }
    for (size_t i = 0; i < n; ++i) {
      a.runs_seen += src.count[i] > 0 || src.time_ns[i] > 0 || (!src.overlap_ns.empty() && src.overlap_ns[i] > 0);
      // Time is conserved: no source can take more than the run's wall time on each of its CPUs.
      if (src.kind == Kind::time && src.time_ns[i] > m.wall_ns[i] * m.cpus)
        a.inconsistent_runs.push_back(m.run_index[i]);
    }
    // A refused fit has no share, so no interval either.
    if (src.kind == Kind::time || !rejected[s]) interval(a, s);
    a.pct_of_run = mean_t > 0 ? a.mean_time_ns / (mean_t * m.cpus) : 0.0;
    res.rows.push_back(std::move(a));
  }
  AttributedSource u;
  u.source = sources::kUnexplained;
  u.group = Group::unexplained;
  u.kind = RowKind::remainder;
  u.share = point.valid ? point.unexplained : 0.0;
  interval(u, k);
  res.rows.push_back(std::move(u));
  res.var_t = point.var_t;
  res.residual = point.residual;

  // Ranked by share; ties (e.g. no variance at all) by mean time, then name, for stable output.
  // Without a reliable attribution the shares mean nothing: rank by mean time instead.
  const bool by_share = res.attributable;
  std::stable_sort(res.rows.begin(), res.rows.end(), [by_share](const AttributedSource& a, const AttributedSource& b) {
    if (by_share && a.share != b.share) return a.share > b.share;
    if (a.mean_time_ns != b.mean_time_ns) return a.mean_time_ns > b.mean_time_ns;
    return a.source < b.source;
  });
  return res;
}

}  // namespace nw::report
