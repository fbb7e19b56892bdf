#include <cmath>

#include <fmt/format.h>

#include "compare/input.h"
#include "common/durations.h"
#include "compare/render.h"

namespace nw::compare {

// Four significant digits: 13.43 ns against 12.92 ns shows a 3.8 % change, "13 ns" twice does not.
std::string format_duration(double ns) { return nw::format_duration(ns, 4); }

std::string format_p(double p) { return p < 0.001 ? "<0.001" : fmt::format("{:.3f}", p); }

std::string format_signed_points(double pts) { return fmt::format("{:+.2f}", pts); }

std::string summary_sentence(const Comparison& c) {
  const Summary& s = c.summary;
  return fmt::format("{} benchmark{}: {} slower, {} faster, {} no change, {} inconclusive; geometric mean of "
                     "NEW/BASE {:.4f} ({:+.2f} %)",
                     s.benchmarks, s.benchmarks == 1 ? "" : "s", s.slower, s.faster, s.no_change, s.inconclusive,
                     s.geomean_ratio, (s.geomean_ratio - 1) * 100);
}

std::string change_cell(const TimingResult& t) { return fmt::format("{:+.2f} %", t.change_percent()); }

std::string p_cell(const TimingResult& t) { return t.tested ? format_p(t.p_adjusted) : "—"; }

std::string test_method(const TimingResult& t) {
  return !t.tested ? "no test" : t.exact ? "exact" : "normal approx.";
}

std::string test_legend(const Comparison& c) {
  const Summary& s = c.summary;
  std::string method;
  if (s.exact == s.tested) method = "exact distribution";
  else if (s.exact == 0) method = "normal approximation, tie-corrected: ties or over 50 runs a side";
  else
    method = fmt::format("exact for {}, normal approximation for {} (ties or over 50 runs)", s.exact,
                         s.tested - s.exact);
  std::string family = s.tested > 1 ? fmt::format(", Holm-adjusted over {} benchmarks", s.tested) : "";
  if (s.tested == 0) return "change: NEW/BASE of the medians; no test: fewer than 2 runs on a side";
  return fmt::format("p: two-sided Mann-Whitney U ({}){}; change: NEW/BASE of the medians; verdicts need "
                     "p < {:g} and a change beyond ±{:g} %", method, family, c.options.alpha,
                     c.options.threshold_percent);
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
  return fmt::format("Inconclusive ({}): fewer than 2 runs on a side, so no test is possible and the ratios above "
                     "cannot be told from noise. Rerun with {} or more: {}", names.size(), hint,
                     join_names(names, 8));
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

}  // namespace nw::compare
