#include "compare/noise_diff.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "stats/descriptive.h"
#include "stats/inference.h"

namespace nw::compare {

namespace {

struct PerRun {
  std::vector<double> time_ns, count;
};

// Hypervisor steal is recorded both as a run field and, when the probe saw it, as a source:
// take the field only when there is no "steal" entry, so it is never counted twice.
uint64_t steal_fallback(const RunSample& r) { return r.find("steal") ? 0 : r.steal_ns; }


std::map<std::string, PerRun> per_source(const RunRecord& rec, const std::set<std::string>& sources) {
  std::map<std::string, PerRun> out;
  for (const auto* r : rec.measured()) {
    for (const auto& s : sources) {
      const NoiseEntry* e = r->find(s);
      double t = e ? double(e->time_ns) : 0, c = e ? double(e->count) : 0;
      if (s == "steal" && !e && r->steal_ns > 0) t = double(r->steal_ns);
      out[s].time_ns.push_back(t);
      out[s].count.push_back(c);
    }
  }
  return out;
}

void collect_sources(const RunRecord& rec, std::set<std::string>& out) {
  for (const auto* r : rec.measured()) {
    for (const auto& e : r->noise) out.insert(e.source);
    if (r->steal_ns > 0) out.insert("steal");
  }
}

}  // namespace

bool identified_stolen(const std::string& source) { return source != "blocking" && source != "unexplained"; }

bool is_material(const NoiseChange& c) {
  return c.significant && std::fabs(c.change_points) >= kMaterialPoints;
}

std::vector<NoiseChange> diff_noise(const RunRecord& base, const RunRecord& next, double base_median_ns,
                                    double alpha) {
  std::set<std::string> sources;
  collect_sources(base, sources);
  collect_sources(next, sources);
  auto b = per_source(base, sources), n = per_source(next, sources);
  std::vector<NoiseChange> out;
  std::vector<double> p;
  for (const auto& s : sources) {
    NoiseChange c;
    c.source = s;
    c.stolen = identified_stolen(s);
    c.base_mean_ns = stats::mean(b[s].time_ns);
    c.new_mean_ns = stats::mean(n[s].time_ns);
    c.change_ns = c.new_mean_ns - c.base_mean_ns;
    c.change_points = base_median_ns > 0 ? c.change_ns / base_median_ns * 100 : 0;
    c.base_mean_count = stats::mean(b[s].count);
    c.new_mean_count = stats::mean(n[s].count);
    // Count-only sources (migrations, faults) take no time of their own: test their counts.
    bool timed = c.base_mean_ns > 0 || c.new_mean_ns > 0;
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
  std::vector<double> out;
  for (const auto* r : rec.measured()) {
    double stolen = double(steal_fallback(*r));
    for (const auto& e : r->noise)
      if (identified_stolen(e.source)) stolen += double(e.time_ns);
    out.push_back(double(r->wall_ns) - stolen);
  }
  return out;
}

}  // namespace nw::compare
