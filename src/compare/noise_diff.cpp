// SPDX-License-Identifier: Apache-2.0
#include "compare/noise_diff.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "sources/vocabulary.h"
#include "stats/descriptive.h"
#include "stats/inference.h"

namespace nw::compare {

namespace {

struct PerRun {
  std::vector<double> time_ns, count;
};

// Every source in `names`: its time and count in each measured run, 0 where it did not occur.
// Several entries of one source in one run add up.
std::map<std::string, PerRun> per_source(const RunRecord& rec, const std::set<std::string>& names) {
  std::map<std::string, PerRun> out;
  for (const auto* r : rec.measured()) {
    std::map<std::string, std::pair<double, double>> run;  // time, count
    for (const auto& e : r->all_noise()) {
      run[e.source].first += double(e.time_ns);
      run[e.source].second += double(e.count);
    }
    for (const auto& s : names) {
      auto it = run.find(s);
      out[s].time_ns.push_back(it == run.end() ? 0 : it->second.first);
      out[s].count.push_back(it == run.end() ? 0 : it->second.second);
    }
  }
  return out;
}

void source_names(const RunRecord& rec, std::set<std::string>& out) {
  for (const auto* r : rec.measured())
    for (const auto& e : r->all_noise()) out.insert(e.source);
}

}  // namespace

bool is_material(const NoiseChange& c) { return c.significant && std::fabs(c.change_points) >= kMaterialPoints; }

std::vector<NoiseChange> diff_noise(const RunRecord& base, const RunRecord& next, double base_median_ns, double alpha) {
  std::set<std::string> names;
  source_names(base, names);
  source_names(next, names);
  auto b = per_source(base, names), n = per_source(next, names);
  const std::string base_comm = sources::benchmark_comm(base.command);
  const std::string new_comm = sources::benchmark_comm(next.command);
  std::vector<NoiseChange> out;
  std::vector<double> p;
  for (const auto& s : names) {
    NoiseChange c;
    c.source = s;
    auto id = sources::parse(s);
    // A change in the benchmark's own doing (blocking, contention, its faults) is no noise.
    c.stolen = sources::is_stolen(id, base_comm) && sources::is_stolen(id, new_comm);
    c.base_mean_ns = stats::mean(b[s].time_ns);
    c.new_mean_ns = stats::mean(n[s].time_ns);
    c.change_ns = c.new_mean_ns - c.base_mean_ns;
    c.change_points = base_median_ns > 0 ? c.change_ns / base_median_ns * 100 : 0;
    c.base_mean_count = stats::mean(b[s].count);
    c.new_mean_count = stats::mean(n[s].count);
    // Count-only sources (migrations, untimed faults) take no time of their own: test their counts.
    bool timed = sources::kind_of(id, c.base_mean_ns > 0 || c.new_mean_ns > 0) == sources::Kind::time;
    c.p_value = timed ? stats::mann_whitney_u(b[s].time_ns, n[s].time_ns).p_value
                      : stats::mann_whitney_u(b[s].count, n[s].count).p_value;
    p.push_back(c.p_value);
    out.push_back(std::move(c));
  }
  auto significant = stats::holm_significant(p, alpha);
  for (size_t i = 0; i < out.size(); ++i) out[i].significant = significant[i];
  std::stable_sort(out.begin(), out.end(), [](const NoiseChange& x, const NoiseChange& y) {
    return std::fabs(x.change_ns) > std::fabs(y.change_ns);
  });
  return out;
}

std::vector<double> undisturbed_times(const RunRecord& rec) {
  const std::string bench_comm = sources::benchmark_comm(rec.command);
  std::vector<double> out;
  for (const auto* r : rec.measured()) out.push_back(double(r->wall_ns) - double(r->stolen_ns(bench_comm)));
  return out;
}

}  // namespace nw::compare
