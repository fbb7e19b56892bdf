// SPDX-License-Identifier: Apache-2.0
#include "compare/compare.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/errors.h"
#include "compare/cpu_time.h"
#include "compare/explanation.h"
#include "compare/host_diff.h"
#include "compare/noise_diff.h"
#include "compare/pyperf_measures.h"
#include "compare/summary.h"
#include "compare/timing.h"

namespace nw::compare {

bool Comparison::fail_above_exceeded() const {
  for (const auto& b : benchmarks)
    if (b.fail_above_exceeded) return true;
  return false;
}

bool Comparison::fail_above_untested() const {
  for (const auto& b : benchmarks)
    if (b.fail_above_untested) return true;
  return false;
}

namespace {

// The repetitions to ask for when a side has too few: what the anchors' docs recommend.
constexpr size_t kSuggestedRuns = 20;

std::string quoted_names(const InputFile& in) {
  std::vector<std::string> names;
  for (size_t i = 0; i < in.benchmarks.size() && i < 3; ++i) names.push_back("\"" + in.benchmarks[i].name + "\"");
  if (in.benchmarks.size() > 3) names.push_back(fmt::format("... ({} in all)", in.benchmarks.size()));
  return fmt::format("{}", fmt::join(names, ", "));
}

std::vector<std::string> names_missing_from(const InputFile& in, const std::map<std::string, const Benchmark*>& other) {
  std::vector<std::string> out;
  for (const auto& b : in.benchmarks)
    if (!other.count(b.name)) out.push_back(b.name);
  return out;
}

std::optional<TimingResult> compare_undisturbed(const RunRecord& base, const RunRecord& next, const Options& o) {
  auto b = undisturbed_times(base), n = undisturbed_times(next);
  for (const auto* side : {&b, &n})
    for (double t : *side)
      if (!(t > 0)) return std::nullopt;  // probes claimed more than the wall time: no sound estimate
  return compare_timings(b, n, o);
}

// The advice names the option of the tool that wrote the short side (NEW's when both are short).
std::string hint_for(const BenchmarkComparison& c, const InputFile& base, const InputFile& next) {
  bool new_short = c.next.runs < kFewRuns || c.base.runs >= kFewRuns;
  return rerun_hint(new_short ? next.format : base.format, kSuggestedRuns);
}

BenchmarkComparison compare_one(const Benchmark& base, const Benchmark& next, const Options& o) {
  BenchmarkComparison c;
  c.name = base.name;
  c.base = summarize_times(base.times_ns);
  c.next = summarize_times(next.times_ns);
  c.timing = o.sequential ? *o.sequential : compare_timings(base.times_ns, next.times_ns, o);
  c.cpu = compare_cpu(base, next, o);
  c.few_runs = c.base.runs < kFewRuns || c.next.runs < kFewRuns;
  if (base.record && next.record) {
    c.has_noise = true;
    c.noise_diff = diff_noise(*base.record, *next.record, c.base.median_ns, o.alpha);
    c.adjusted = compare_undisturbed(*base.record, *next.record, o);
    c.base_cpus = base.record->cpus;
    c.new_cpus = next.record->cpus;
  }
  return c;
}

// After Holm has settled the verdicts: what depends on them.
void finish(BenchmarkComparison& c, const Options& o, size_t family) {
  if (c.cpu) c.cpu->disagrees = cpu_disagrees(c.timing, c.cpu->timing, o);
  c.noise_explained_points = explained_points(c);
  c.explanation = explain(c, o, family);
  if (o.fail_above_percent) {
    bool above = c.timing.change_percent() > *o.fail_above_percent;
    // Without a test the gate can only judge the ratio itself; it says so (fail_above_untested).
    c.fail_above_untested = !c.timing.tested && above;
    c.fail_above_exceeded = above && (c.timing.verdict == Verdict::slower || c.fail_above_untested);
  }
}

std::string runs_phrase(size_t base, size_t next) {
  return fmt::format("{} run{} in BASE and {} in NEW", base, base == 1 ? "" : "s", next);
}

// One line per distinct (BASE runs, NEW runs) pair, not one per benchmark: a file of 74
// benchmarks without repetitions is one warning.
void warn_few_runs(const Comparison& out, std::vector<std::string>& warnings) {
  std::map<std::pair<size_t, size_t>, std::vector<std::string>> groups;
  std::map<std::pair<size_t, size_t>, std::string> hints;
  for (const auto& c : out.benchmarks) {
    // Untested benchmarks say so in their verdict (inconclusive) and explanation already.
    if (!c.few_runs || !c.timing.tested) continue;
    auto key = std::make_pair(c.base.runs, c.next.runs);
    groups[key].push_back(c.name);
    hints[key] = c.rerun_hint;
  }
  for (const auto& [key, names] : groups) {
    auto [base, next] = key;
    warnings.push_back(fmt::format("{}: {}; below {} per side the test means little: rerun with {} or more",
                                   join_names(names), runs_phrase(base, next), kFewRuns, hints[key]));
  }
}

void warn_hosts(const Comparison& out, const InputFile& base, const InputFile& next,
                std::vector<std::string>& warnings) {
  if (!out.host_diff.empty()) {
    std::vector<std::string> fields;
    for (const auto& h : out.host_diff) fields.push_back(h.field);
    warnings.push_back(
        fmt::format("BASE and NEW ran on different machines or setups ({}): part of any change may "
                    "be the machine's, not the code's",
                    fmt::join(fields, ", ")));
  }
  if (base.debug_build || next.debug_build)
    warnings.push_back(
        fmt::format("{}: the benchmark library was built for debugging (library_build_type "
                    "\"debug\"): its timings say little about a release build",
                    base.debug_build && next.debug_build ? "BASE and NEW"
                    : base.debug_build                   ? "BASE"
                                                         : "NEW"));
}

}  // namespace

Comparison compare_inputs(InputFile base, InputFile next, const Options& options) {
  Comparison out;
  align_pyperf_measures(base, next, out.warnings);
  out.base_label = base.label;
  out.new_label = next.label;
  out.base_format = std::string(format_name(base.format));
  out.new_format = std::string(format_name(next.format));
  out.options = options;

  std::map<std::string, const Benchmark*> base_by_name, new_by_name;
  for (const auto& b : base.benchmarks) base_by_name[b.name] = &b;
  for (const auto& b : next.benchmarks) new_by_name[b.name] = &b;
  for (const auto& b : base.benchmarks)
    if (auto it = new_by_name.find(b.name); it != new_by_name.end())
      out.benchmarks.push_back(compare_one(b, *it->second, options));
  if (out.benchmarks.empty())
    throw Error(
        fmt::format("no benchmark name in common: BASE has {}, NEW has {}; compare matches benchmarks "
                    "by name, so measure the same command or benchmark on both sides",
                    quoted_names(base), quoted_names(next)));
  adjust_for_multiplicity(out.benchmarks, options);
  out.summary = summarize(out.benchmarks);
  for (auto& c : out.benchmarks) {
    c.rerun_hint = hint_for(c, base, next);
    finish(c, options, out.summary.tested);
  }
  out.headline = pick_headline(out.benchmarks);

  const auto& top = base.benchmarks.front();
  const auto* top_new = new_by_name.count(top.name) ? new_by_name[top.name] : nullptr;
  if (top.record && top_new && top_new->record) out.host_diff = diff_hosts(*top.record, *top_new->record);
  else out.host_diff = diff_host_fields(base.host, next.host);

  // A note both files share (the same skipped benchmark, say) is said once.
  auto in = [](const std::vector<std::string>& notes, const std::string& n) {
    return std::find(notes.begin(), notes.end(), n) != notes.end();
  };
  for (const auto& note : base.notes)
    out.warnings.push_back((in(next.notes, note) ? "BASE and NEW: " : "BASE: ") + note);
  for (const auto& note : next.notes)
    if (!in(base.notes, note)) out.warnings.push_back("NEW: " + note);
  if (auto only = names_missing_from(base, new_by_name); !only.empty())
    out.warnings.push_back(fmt::format("only in BASE, not compared: {}", join_names(only)));
  if (auto only = names_missing_from(next, base_by_name); !only.empty())
    out.warnings.push_back(fmt::format("only in NEW, not compared: {}", join_names(only)));
  warn_few_runs(out, out.warnings);
  warn_hosts(out, base, next, out.warnings);
  if (base.format != InputFormat::noisewatch || next.format != InputFormat::noisewatch)
    out.warnings.push_back("no noise comparison: that needs noisewatch run reports on both sides");
  return out;
}

}  // namespace nw::compare
