// SPDX-License-Identifier: Apache-2.0
#include "compare/summary.h"

#include <cmath>
#include <tuple>

#include "compare/timing.h"
#include "stats/inference.h"

namespace nw::compare {

namespace {

void holm(std::vector<TimingResult*> family, const Options& o) {
  std::vector<double> p;
  for (const auto* t : family) p.push_back(t->p_value);
  auto adjusted = stats::holm_adjusted(p);
  for (size_t i = 0; i < family.size(); ++i) {
    family[i]->p_adjusted = adjusted[i];
    decide_verdict(*family[i], o);
  }
}

}  // namespace

void adjust_for_multiplicity(std::vector<BenchmarkComparison>& all, const Options& o) {
  std::vector<TimingResult*> wall, cpu;
  for (auto& b : all) {
    if (b.timing.tested) wall.push_back(&b.timing);
    if (b.cpu && b.cpu->timing.tested) cpu.push_back(&b.cpu->timing);
  }
  holm(wall, o);
  holm(cpu, o);
}

Summary summarize(const std::vector<BenchmarkComparison>& all) {
  Summary s;
  double log_sum = 0;
  for (const auto& b : all) {
    ++s.benchmarks;
    switch (b.timing.verdict) {
      case Verdict::slower:
        ++s.slower;
        break;
      case Verdict::faster:
        ++s.faster;
        break;
      case Verdict::no_change:
        ++s.no_change;
        break;
      case Verdict::inconclusive:
        ++s.inconclusive;
        break;
    }
    s.tested += b.timing.tested;
    s.exact += b.timing.tested && b.timing.exact;
    log_sum += std::log(b.timing.ratio);
  }
  if (s.benchmarks) s.geomean_ratio = std::exp(log_sum / double(s.benchmarks));
  return s;
}

size_t pick_headline(const std::vector<BenchmarkComparison>& all) {
  auto rank = [](const BenchmarkComparison& c) {
    int group = 0;
    switch (c.timing.verdict) {
      case Verdict::slower:
        group = 3;
        break;
      case Verdict::faster:
        group = 2;
        break;
      case Verdict::inconclusive:
        group = 1;
        break;
      case Verdict::no_change:
        group = 0;
        break;
    }
    return std::make_tuple(group, std::fabs(c.timing.change_percent()));
  };
  size_t best = 0;
  for (size_t i = 1; i < all.size(); ++i)
    if (rank(all[i]) > rank(all[best])) best = i;
  return best;
}

}  // namespace nw::compare
