#include "compare/compare.h"

#include <cmath>
#include <map>
#include <tuple>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/errors.h"
#include "compare/explanation.h"
#include "compare/host_diff.h"
#include "compare/noise_diff.h"
#include "compare/timing.h"

namespace nw::compare {

bool Comparison::fail_above_exceeded() const {
  for (const auto& b : benchmarks)
    if (b.fail_above_exceeded) return true;
  return false;
}

namespace {

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

BenchmarkComparison compare_one(const Benchmark& base, const Benchmark& next, const Options& o) {
  BenchmarkComparison c;
  c.name = base.name;
  c.base = summarize_times(base.times_ns);
  c.next = summarize_times(next.times_ns);
  c.timing = compare_timings(base.times_ns, next.times_ns, o);
  c.few_runs = c.base.runs < kFewRuns || c.next.runs < kFewRuns;
  if (base.record && next.record) {
    c.has_noise = true;
    c.noise_diff = diff_noise(*base.record, *next.record, c.base.median_ns, o.alpha);
    c.adjusted = compare_undisturbed(*base.record, *next.record, o);
    c.base_cpus = base.record->cpus;
    c.new_cpus = next.record->cpus;
  }
  c.noise_explained_points = explained_points(c);
  c.explanation = explain(c, o);
  c.fail_above_exceeded = o.fail_above_percent && c.timing.verdict == Verdict::slower &&
                          c.timing.change_percent() > *o.fail_above_percent;
  return c;
}

// The top-level verdict speaks for the most alarming benchmark: the largest significant slowdown,
// else the largest speed-up, else the largest (insignificant) change.
size_t pick_headline(const std::vector<BenchmarkComparison>& all) {
  auto rank = [](const BenchmarkComparison& c) {
    int group = c.timing.verdict == Verdict::slower ? 2 : c.timing.verdict == Verdict::faster ? 1 : 0;
    return std::make_tuple(group, std::fabs(c.timing.change_percent()));
  };
  size_t best = 0;
  for (size_t i = 1; i < all.size(); ++i)
    if (rank(all[i]) > rank(all[best])) best = i;
  return best;
}

}  // namespace

Comparison compare_inputs(const InputFile& base, const InputFile& next, const Options& options) {
  Comparison out;
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
    throw Error(fmt::format("no benchmark name in common: BASE has {}, NEW has {}; compare matches benchmarks "
                            "by name, so measure the same command or benchmark on both sides",
                            quoted_names(base), quoted_names(next)));
  out.headline = pick_headline(out.benchmarks);

  for (const auto& note : base.notes) out.warnings.push_back("BASE: " + note);
  for (const auto& note : next.notes) out.warnings.push_back("NEW: " + note);
  if (auto only = names_missing_from(base, new_by_name); !only.empty())
    out.warnings.push_back(fmt::format("only in BASE, not compared: {}", fmt::join(only, ", ")));
  if (auto only = names_missing_from(next, base_by_name); !only.empty())
    out.warnings.push_back(fmt::format("only in NEW, not compared: {}", fmt::join(only, ", ")));
  for (const auto& c : out.benchmarks)
    if (c.few_runs)
      out.warnings.push_back(fmt::format("{}: {} BASE and {} NEW runs; below {} per side the test means little",
                                         c.name, c.base.runs, c.next.runs, kFewRuns));
  if (base.format != InputFormat::noisewatch || next.format != InputFormat::noisewatch)
    out.warnings.push_back("no noise comparison: that needs noisewatch run reports on both sides");

  const auto& top = base.benchmarks.front();
  const auto* top_new = new_by_name.count(top.name) ? new_by_name[top.name] : nullptr;
  if (top.record && top_new && top_new->record) out.host_diff = diff_hosts(*top.record, *top_new->record);
  return out;
}

}  // namespace nw::compare
