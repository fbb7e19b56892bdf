// SPDX-License-Identifier: Apache-2.0
#include "compare/live_decision.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "record/window_labels.h"
#include "sources/vocabulary.h"
#include "stats/descriptive.h"
#include "stats/sequential.h"

namespace nw::compare {

std::vector<Pair> complete_pairs(const RunRecord& rec, PairTime time) {
  std::map<int, Pair> by_pair;
  std::map<int, int> sides;  // bit 1: A seen, bit 2: B seen
  const std::string bench_comm = time == PairTime::undisturbed ? sources::benchmark_comm(rec.command) : "";
  for (const RunSample* r : rec.measured()) {
    if (!r->pair || r->exit_status != 0) continue;
    const std::string side = label_text(r->label);
    Pair& p = by_pair[*r->pair];
    p.index = *r->pair;
    // (A run noise took everything from has no undisturbed time: its pair is left out below.)
    const double ns = double(r->wall_ns) - (time == PairTime::undisturbed ? double(r->stolen_ns(bench_comm)) : 0.0);
    if (side == kSideA) p.a_ns = ns, sides[*r->pair] |= 1;
    if (side == kSideB) p.b_ns = ns, sides[*r->pair] |= 2;
  }
  std::vector<Pair> out;
  for (const auto& [index, p] : by_pair)
    if (sides[index] == 3 && p.a_ns > 0 && p.b_ns > 0) out.push_back(p);
  return out;
}

SequentialDecision decide_pairs(const std::vector<Pair>& pairs, double threshold_percent, double alpha,
                                const std::set<int>& leave_out) {
  stats::MedianSequence seq(alpha);
  for (const auto& p : pairs)
    if (!leave_out.count(p.index)) seq.add(std::log(p.b_ns / p.a_ns));
  SequentialDecision d;
  d.pairs = seq.size();
  if (d.pairs == 0) {
    d.high = INFINITY;
    return d;
  }
  d.ratio = std::exp(seq.median());
  d.low = std::exp(seq.low());  // 0 when unbounded below
  d.high = std::exp(seq.high());
  d.outcome = stats::outcome_name(stats::decide(seq.low(), seq.high(), std::log1p(threshold_percent / 100)));
  return d;
}

stats::Side side_of(const SequentialDecision& d, double log_value) {
  return stats::side_of(std::log(d.low), std::log(d.high), log_value);
}

std::string interval_text(double low, double high) {
  auto side = [](double v) { return std::isfinite(v) && v > 0 ? fmt::format("{:.4f}", v) : std::string("…"); };
  return side(low) + "–" + side(high);
}

std::vector<DisturbedRun> find_disturbed(const RunRecord& rec, double threshold_percent) {
  const auto measured = rec.measured();
  std::map<std::string, std::vector<double>> walls;  // by side
  std::map<std::string, std::vector<double>> times;  // by source, one per measured run (0: absent)
  for (size_t i = 0; i < measured.size(); ++i) {
    const RunSample* r = measured[i];
    walls[label_text(r->label)].push_back(double(r->wall_ns));
    for (const auto& e : r->noise) {
      if (!sources::is_stolen(sources::parse(e.source), {})) continue;
      auto& v = times[e.source];
      v.resize(measured.size(), 0);
      v[i] = double(e.time_ns);
    }
  }
  struct Quiet {
    double q25 = 0, limit = 0;
  };
  std::map<std::string, Quiet> quiet;
  for (const auto& [source, v] : times) {  // each one value per measured run, sized when first seen
    const double q10 = stats::quantile(v, 0.10), q25 = stats::quantile(v, 0.25);
    quiet[source] = {q25, 10 * (q25 - q10)};
  }
  std::vector<DisturbedRun> out;
  for (size_t i = 0; i < measured.size(); ++i) {
    const RunSample* r = measured[i];
    if (!r->pair) continue;
    const std::string side = label_text(r->label);
    const double margin = threshold_percent / 100 * stats::quantile(walls[side], 0.5);
    DisturbedRun worst;
    double worst_excess = 0;
    for (const auto& [source, v] : times) {
      const Quiet& q = quiet[source];
      const double excess = v[i] - q.q25;
      if (excess > margin && excess > q.limit && excess > worst_excess) {
        worst_excess = excess;
        worst = {*r->pair, side, source, v[i], q.q25};
      }
    }
    if (worst_excess > 0) out.push_back(worst);
  }
  return out;
}

}  // namespace nw::compare
