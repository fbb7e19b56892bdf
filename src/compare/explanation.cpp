// SPDX-License-Identifier: Apache-2.0
#include "compare/explanation.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "compare/cpu_time.h"
#include "compare/noise_diff.h"
#include "sources/vocabulary.h"

namespace nw::compare {

namespace {

std::string join_phrases(const std::vector<std::string>& parts) {
  if (parts.empty()) return {};
  if (parts.size() == 1) return parts[0];
  std::string out;
  for (size_t i = 0; i + 1 < parts.size(); ++i) out += (i ? ", " : "") + parts[i];
  return out + " and " + parts.back();
}

// Sources of one category read better together: "preemption by A, B and C".
struct Phrase {
  bool more = true;
  std::string category, lead, tail;
  std::vector<std::string> names;  // empty: `lead` is the whole description
};

Phrase phrase_for(const NoiseChange& c, bool more) {
  auto id = sources::parse(c.source);
  auto d = sources::description(id);
  if (d.name.empty()) return {more, c.source, d.text(), "", {}};
  return {more, id.category, d.lead, d.tail, {d.name}};
}

// "more preemption by X and Y and more IRQ time from Z", at most three sources named, the rest
// counted. From BASE's side (as_base) a source that shrank in NEW is one BASE had "more" of.
std::string list_changes(const std::vector<const NoiseChange*>& changes, bool as_base = false) {
  std::vector<Phrase> phrases;
  for (size_t i = 0; i < changes.size() && i < 3; ++i) {
    Phrase p = phrase_for(*changes[i], (changes[i]->change_ns > 0) != as_base);
    auto same = std::find_if(phrases.begin(), phrases.end(), [&](const Phrase& q) {
      return !q.names.empty() && !p.names.empty() && q.more == p.more && q.category == p.category;
    });
    if (same != phrases.end()) same->names.push_back(p.names[0]);
    else phrases.push_back(std::move(p));
  }
  std::vector<std::string> parts;
  for (const auto& p : phrases)
    parts.push_back(fmt::format("{} {}{}{}", p.more ? "more" : "less", p.lead, join_phrases(p.names), p.tail));
  if (size_t rest = changes.size() > 3 ? changes.size() - 3 : 0)
    parts.push_back(fmt::format("{} other source{}", rest, rest > 1 ? "s" : ""));
  return join_phrases(parts);
}

std::string on_cpus(const std::vector<int>& cpus) {
  if (cpus.empty()) return {};
  return fmt::format(" on CPU{} {}", cpus.size() > 1 ? "s" : "", fmt::join(cpus, ","));
}

// The interval in the words of the sentence: as a slowdown or speed-up when the verdict has a
// direction, signed when it straddles no change.
std::string interval_percent(const TimingResult& t, double level) {
  if (!t.ci_bounded) return "no CI: too few runs";
  double lo = (t.ci_low - 1) * 100, hi = (t.ci_high - 1) * 100;
  if (t.verdict == Verdict::slower) return fmt::format("{:.0f} % CI {:.1f}–{:.1f} %", level, lo, hi);
  if (t.verdict == Verdict::faster) return fmt::format("{:.0f} % CI {:.1f}–{:.1f} %", level, -hi, -lo);
  return fmt::format("{:.0f} % CI {:+.1f} to {:+.1f} %", level, lo, hi);
}

std::string p_number(double p) { return p < 0.001 ? "< 0.001" : fmt::format("= {:.3f}", p); }

// The raw p, and Holm's adjusted one when several benchmarks were tested together.
std::string p_text(const TimingResult& t, size_t family) {
  std::string out = "p " + p_number(t.p_value);
  if (family > 1) out += fmt::format(", Holm-adjusted over {} benchmarks {}", family, p_number(t.p_adjusted));
  return out;
}

std::vector<const NoiseChange*> material(const BenchmarkComparison& c, int direction) {
  std::vector<const NoiseChange*> out;
  for (const auto& n : c.noise_diff)
    if (n.stolen && is_material(n) && (direction == 0 || (n.change_ns > 0) == (direction > 0))) out.push_back(&n);
  return out;
}

std::string changed_timing(const BenchmarkComparison& c, double level, size_t family) {
  const auto& t = c.timing;
  bool slower = t.verdict == Verdict::slower;
  std::string head = fmt::format("NEW is {:.1f} % {} ({}, {})", std::fabs(t.change_percent()),
                                 slower ? "slower" : "faster", interval_percent(t, level), p_text(t, family));
  if (!c.has_noise)
    return head + "; there is no noise data to compare (that needs noisewatch run reports on both sides).";
  const char* change = slower ? "slowdown" : "speed-up";
  auto with = material(c, slower ? 1 : -1);
  auto against = material(c, slower ? -1 : 1);
  if (with.empty() && against.empty())
    return fmt::format("{}; the noise profile is the same: the {} is in the benchmark.", head, change);
  if (with.empty())
    return fmt::format(
        "{}; the noise moved the other way ({}): the {} is in the benchmark, if anything "
        "larger than measured.",
        head, list_changes(against), change);
  double total = std::fabs(t.change_percent());
  double explained = c.noise_explained_points;
  std::string what = slower ? list_changes(with) + on_cpus(c.new_cpus)
                            : "BASE having " + list_changes(with, true) + on_cpus(c.base_cpus);
  bool adjusted_unchanged = c.adjusted && c.adjusted->verdict == Verdict::no_change;
  if (explained >= total)
    return fmt::format(
        "{}; all of that coincides with {} ({:.1f} points of noise): likely noise. Rerun on an "
        "isolated CPU before {} the code.",
        head, what, explained, slower ? "blaming" : "crediting");
  if (explained >= 0.5 * total || adjusted_unchanged)
    return fmt::format(
        "{}; {:.1f} points of that coincide with {}: likely noise. Rerun on an isolated CPU "
        "before {} the code.",
        head, explained, what, slower ? "blaming" : "crediting");
  return fmt::format(
      "{}; {:.1f} points of that coincide with {}, the other {:.1f} points are likely in the "
      "benchmark.",
      head, explained, what, total - explained);
}

std::string unchanged_timing(const BenchmarkComparison& c, const Options& o, double level, size_t family) {
  const auto& t = c.timing;
  std::string what = fmt::format("NEW is {:.1f} % {} ({}, {})", std::fabs(t.change_percent()),
                                 t.ratio >= 1 ? "slower" : "faster", interval_percent(t, level), p_text(t, family));
  std::string head;
  if (t.significant) head = fmt::format("No change beyond the {:g} % threshold: {}", o.threshold_percent, what);
  else if (t.p_value < o.alpha)  // significant alone, not once every benchmark's chance is counted
    head = "No significant change once all the benchmarks are taken together: " + what;
  else head = "No significant change: " + what;
  // Not finding a difference is not showing there is none: say which it is.
  head += t.equivalent
              ? fmt::format(". The same within ±{:g} %: the interval lies inside it", o.threshold_percent)
              : fmt::format(". Not shown to be the same: the interval reaches beyond ±{:g} %", o.threshold_percent);
  auto changed = material(c, 0);
  if (!c.has_noise || changed.empty()) return head + ".";
  double hidden = 0;
  for (const auto* n : changed) hidden += std::fabs(n->change_points);
  return fmt::format("{}; but the noise changed ({} in NEW), which may hide a change of up to {:.1f} points.", head,
                     list_changes(changed), hidden);
}

std::string inconclusive_timing(const BenchmarkComparison& c) {
  const auto& t = c.timing;
  return fmt::format(
      "Inconclusive: {} run{} in BASE and {} in NEW, so no test is possible; on those alone NEW is "
      "{:.1f} % {} (NEW/BASE {:.4g}), which cannot be told from noise. Rerun with {} or more.",
      c.base.runs, c.base.runs == 1 ? "" : "s", c.next.runs, std::fabs(t.change_percent()),
      t.ratio >= 1 ? "slower" : "faster", t.ratio, c.rerun_hint);
}

// Wall and CPU time pointing different ways say what kind of change it is.
std::string cpu_sentence(const BenchmarkComparison& c, const Options& o) {
  if (!c.cpu || !c.cpu->disagrees) return {};
  const auto& t = c.cpu->timing;
  std::string moved = direction(t, o) == 0
                          ? fmt::format("did not change ({:+.1f} %", t.change_percent())
                          : fmt::format("{} {:.1f} % (", t.ratio > 1 ? "rose" : "fell", std::fabs(t.change_percent()));
  std::string test = t.tested ? "p " + p_number(t.p_adjusted) : "no test";
  std::string sep = direction(t, o) == 0 ? ", " : "";
  const char* sign = direction(c.timing, o) > direction(t, o)
                         ? "wall time that CPU time does not account for is waiting (preemption, I/O, locks, "
                           "sleep), not computing"
                         : "more CPU time per wall time is more threads computing, or less waiting";
  return fmt::format(" CPU time ({}) {}{}{}): {}.", c.cpu->basis, moved, sep, test, sign);
}

}  // namespace

double explained_points(const BenchmarkComparison& c) {
  bool changed = c.timing.verdict == Verdict::slower || c.timing.verdict == Verdict::faster;
  if (!c.has_noise || !changed) return 0;
  double sum = 0;
  for (const auto* n : material(c, c.timing.verdict == Verdict::slower ? 1 : -1)) sum += std::fabs(n->change_points);
  return sum;
}

std::string explain(const BenchmarkComparison& c, const Options& options, size_t family) {
  double level = (1 - options.alpha) * 100;
  if (c.timing.verdict == Verdict::inconclusive) return inconclusive_timing(c) + cpu_sentence(c, options);
  std::string s = c.timing.verdict == Verdict::no_change ? unchanged_timing(c, options, level, family)
                                                         : changed_timing(c, level, family);
  s += cpu_sentence(c, options);
  if (c.few_runs) {
    std::string runs = c.base.runs == c.next.runs ? fmt::format("{} runs per side", c.base.runs)
                                                  : fmt::format("{} BASE and {} NEW runs", c.base.runs, c.next.runs);
    s += fmt::format(" With {} the test means little: rerun with {} or more.", runs, c.rerun_hint);
  }
  return s;
}

}  // namespace nw::compare
