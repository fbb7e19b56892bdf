// SPDX-License-Identifier: Apache-2.0
#include <cmath>

#include <algorithm>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/durations.h"
#include "compare/input.h"
#include "compare/render.h"

namespace nw::compare {

// Four significant digits: 13.43 ns against 12.92 ns shows a 3.8 % change, "13 ns" twice does not.
std::string format_duration(double ns) { return nw::format_duration(ns, 4); }

std::string format_p(double p) { return p < 0.001 ? "<0.001" : fmt::format("{:.3f}", p); }

std::string format_signed_points(double pts) { return fmt::format("{:+.2f}", pts); }

std::string summary_sentence(const Comparison& c) {
  const Summary& s = c.summary;
  return fmt::format(
      "{} benchmark{}: {} slower, {} faster, {} no change, {} inconclusive; geometric mean of "
      "NEW/BASE {:.4f} ({:+.2f} %)",
      s.benchmarks, s.benchmarks == 1 ? "" : "s", s.slower, s.faster, s.no_change, s.inconclusive, s.geomean_ratio,
      (s.geomean_ratio - 1) * 100);
}

std::string change_cell(const TimingResult& t) { return fmt::format("{:+.2f} %", t.change_percent()); }

std::string p_cell(const TimingResult& t) { return t.tested ? format_p(t.p_adjusted) : "—"; }

std::string test_method(const TimingResult& t) { return !t.tested ? "no test" : t.exact ? "exact" : "normal approx."; }

std::string untested_words(const Comparison& c) {
  return c.live ? "confidence sequence, no p-value" : "no test (fewer than 2 runs on a side)";
}

std::string test_legend(const Comparison& c) {
  if (c.live)
    return fmt::format(
        "change: B/A of the medians; decided by a {:g} % confidence sequence for the median of "
        "log(B/A) over the pairs, valid at every pair (no p-value)",
        (1 - c.options.alpha) * 100);
  const Summary& s = c.summary;
  std::string method;
  if (s.exact == s.tested) method = "exact distribution";
  else if (s.exact == 0) method = "normal approximation, tie-corrected: ties or over 50 runs a side";
  else
    method =
        fmt::format("exact for {}, normal approximation for {} (ties or over 50 runs)", s.exact, s.tested - s.exact);
  std::string family = s.tested > 1 ? fmt::format(", Holm-adjusted over {} benchmarks", s.tested) : "";
  if (s.tested == 0) return "change: NEW/BASE of the medians; no test: fewer than 2 runs on a side";
  return fmt::format(
      "p: two-sided Mann-Whitney U ({}){}; change: NEW/BASE of the medians; verdicts need "
      "p < {:g} and a change beyond ±{:g} %",
      method, family, c.options.alpha, c.options.threshold_percent);
}

std::string cpu_note(const BenchmarkComparison& b) {
  if (!b.cpu || !b.cpu->disagrees) return {};
  return fmt::format("CPU {:+.1f} %", b.cpu->timing.change_percent());
}

bool shows_details(const Comparison& c, const BenchmarkComparison& b) {
  if (c.benchmarks.size() == 1) return true;
  bool changed = b.timing.verdict == Verdict::slower || b.timing.verdict == Verdict::faster;
  return changed || b.has_noise || !cpu_note(b).empty();
}

std::vector<std::string> inconclusive_names(const Comparison& c) {
  std::vector<std::string> out;
  for (const auto& b : c.benchmarks)
    if (b.timing.verdict == Verdict::inconclusive && !shows_details(c, b)) out.push_back(b.name);
  return out;
}

std::string inconclusive_paragraph(const Comparison& c) {
  auto names = inconclusive_names(c);
  if (names.empty()) return {};
  std::string hint;
  for (const auto& b : c.benchmarks)
    if (b.timing.verdict == Verdict::inconclusive) hint = b.rerun_hint;
  return fmt::format(
      "Inconclusive ({}): fewer than 2 runs on a side, so no test is possible and the ratios above "
      "cannot be told from noise. Rerun with {} or more: {}",
      names.size(), hint, join_names(names, 8));
}

std::string fail_above_sentence(const Comparison& c) {
  if (!c.options.fail_above_percent) return {};
  std::string gate = fmt::format("--fail-above {:g} %: {}", *c.options.fail_above_percent,
                                 c.fail_above_exceeded() ? "exceeded (exit 1)" : "not exceeded");
  std::vector<std::string> untested;
  for (const auto& b : c.benchmarks)
    if (b.fail_above_untested) untested.push_back(b.name);
  if (!untested.empty())
    gate += fmt::format("; decided without a test, on the ratio alone (fewer than 2 runs on a side), for {}",
                        join_names(untested));
  return gate;
}

namespace {

std::string cpus_text(const std::vector<int>& cpus) {
  std::string out;
  for (int c : cpus) out += (out.empty() ? "" : ",") + std::to_string(c);
  return out;
}

std::string decision_words(const SequentialDecision& d) {
  const std::string pairs = fmt::format("{} pair{}", d.pairs, d.pairs == 1 ? "" : "s");
  if (d.outcome == "different")
    return fmt::format("different, B {:.2f} % {} (B/A {:.4f}) on {}", std::fabs(d.ratio - 1) * 100,
                       d.low > 1 ? "slower" : "faster", d.ratio, pairs);
  return fmt::format("{} (B/A {:.4f}) on {}", d.outcome, d.ratio, pairs);
}

}  // namespace

std::vector<std::string> live_lines(const Comparison& c) {
  if (!c.live) return {};
  const LiveComparison& l = *c.live;
  std::vector<std::string> out;
  out.push_back(c.top().explanation);
  const auto& cpus = c.top().base_cpus;
  out.push_back(fmt::format("A and B ran in pairs of random order on CPU {}: {} pair{} (at most {}).", cpus_text(cpus),
                            l.decision.pairs, l.decision.pairs == 1 ? "" : "s", l.max_pairs));
  if (!l.failure.empty()) out.push_back(fmt::format("{}: stopped there.", l.failure));
  if (!l.disturbed.empty()) {
    // Grouped by source, the most frequent first: a hog that struck 15 runs is one item.
    std::map<std::string, std::vector<const DisturbedRun*>> by_source;
    for (const auto& d : l.disturbed) by_source[d.source].push_back(&d);
    std::vector<std::pair<std::string, std::vector<const DisturbedRun*>>> groups(by_source.begin(), by_source.end());
    std::stable_sort(groups.begin(), groups.end(),
                     [](const auto& x, const auto& y) { return x.second.size() > y.second.size(); });
    std::vector<std::string> items;
    size_t rest = 0, rest_sources = 0;
    for (const auto& [source, runs] : groups) {
      if (items.size() == 3) {  // the three that struck most; the rest counted
        rest += runs.size(), ++rest_sources;
        continue;
      }
      std::string which;
      double worst = 0;
      for (size_t i = 0; i < runs.size(); ++i) {
        worst = std::max(worst, runs[i]->time_ns);
        if (i < 6) which += fmt::format("{}{} {}", i ? ", " : "", runs[i]->pair + 1, runs[i]->side);
      }
      if (runs.size() > 6) which += ", …";
      items.push_back(fmt::format("{} in {} run{} (pair {}; up to {}, typically {})", source, runs.size(),
                                  runs.size() == 1 ? "" : "s", which, format_duration(worst),
                                  format_duration(runs.front()->typical_ns)));
    }
    if (rest)
      items.push_back(fmt::format("{} more by {} other source{}", rest, rest_sources, rest_sources == 1 ? "" : "s"));
    out.push_back(fmt::format("{} run{} one source disturbed far beyond the others: {}.", l.disturbed.size(),
                              l.disturbed.size() == 1 ? "" : "s", fmt::join(items, "; ")));
    if (l.undisturbed)
      out.push_back(
          fmt::format("Without those pairs: {} (beside the decision above, not instead of it: leaving "
                      "runs out after seeing them is not part of the sequential guarantee).",
                      decision_words(*l.undisturbed)));
  }
  for (const auto& o : l.obstacles) {
    std::string where = o.source == "unexplained" ? "" : fmt::format(" on CPU {}", cpus_text(cpus));
    out.push_back(fmt::format("{:.0f} % of the variance came from {}{} ({}){}", o.share * 100, o.source, where, o.sides,
                              o.fix.empty() ? "." : fmt::format(": {} would remove it.", o.fix)));
  }
  return out;
}

}  // namespace nw::compare
