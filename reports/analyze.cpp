// SPDX-License-Identifier: Apache-2.0
// analyze(): record -> attribution, patterns, workload split, advice, headline and warnings.
#include <algorithm>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "reports/advice.h"
#include "reports/labels.h"
#include "reports/report.h"
#include "reports/units.h"

namespace nw::report {

namespace {

// The runner's own warnings: the record's, less those an earlier analysis added (listed in the
// saved report). A saved record is user input: anything but an array of strings there is ignored.
std::vector<std::string> runner_warnings(const RunRecord& rec) {
  std::vector<std::string> previous;
  if (rec.report.is_object() && rec.report.contains("engine_warnings") && rec.report["engine_warnings"].is_array())
    for (const auto& w : rec.report["engine_warnings"])
      if (w.is_string()) previous.push_back(w.get<std::string>());
  auto kept = rec.warnings;
  std::erase_if(kept,
                [&](const std::string& w) { return std::find(previous.begin(), previous.end(), w) != previous.end(); });
  return kept;
}

// One set of repetitions: attribution, patterns, workload split, leads, narrative and advice.
void analyze_set(const RunRecord& rec, Analysis& a) {
  a.matrix = collect_sources(rec);
  a.attribution = attribute(a.matrix, sources::benchmark_comm(rec.command));
  a.patterns = detect_patterns(a.matrix);
  a.split = split_workload(rec, a.matrix, a.attribution);
  a.leads = neighbour_leads(rec, a.attribution);
  NarrativeInput story{rec, a.attribution, a.patterns, a.split, a.leads};
  a.engine_warnings = warnings(story);
  a.headline = headline(story);
  a.recommendations = recommend({rec, a.attribution.rows, a.patterns, a.split, a.attribution.attributable, a.leads});
}

// Windows of several benchmarks: each analysed alone, the noisiest first (a block of one window
// has no CV and goes last); the whole record's own figures say where the blocks are.
void analyze_by_label(const RunRecord& rec, const std::vector<std::string>& labels, Analysis& a) {
  for (const auto& label : labels) {
    LabelAnalysis block{label, only_label(rec, label), {}};
    block.analysis.summary = block.record.summary;
    analyze_set(block.record, block.analysis);
    block.analysis.warnings = block.analysis.engine_warnings;
    a.by_label.push_back(std::move(block));
  }
  std::stable_sort(a.by_label.begin(), a.by_label.end(), [](const LabelAnalysis& x, const LabelAnalysis& y) {
    return x.analysis.summary.cv > y.analysis.summary.cv;
  });
  const auto& noisiest = a.by_label.front();
  a.headline = fmt::format("{} {}, each reported alone below (the noisiest: {}, CV {} over {} {}{})", a.by_label.size(),
                           label_noun(rec), shown_label(noisiest.label),
                           format_percent(noisiest.analysis.summary.cv, 2), noisiest.analysis.summary.runs,
                           rec.compare_sides ? "run" : "window", noisiest.analysis.summary.runs == 1 ? "" : "s");
  a.attribution.reason =
      fmt::format("windows of {} {}: each attributed alone (by_label)", a.by_label.size(), label_noun(rec));
}

// --runs auto that hit --max-runs: how far the median was from the asked precision, and the
// sources whose variance kept its interval wide (the attribution's largest shares).
std::optional<std::string> runs_auto_warning(const RunRecord& rec, const Analysis& a) {
  if (!rec.runs_auto || rec.runs_auto->reached) return std::nullopt;
  const auto& ra = *rec.runs_auto;
  std::string achieved =
      ra.achieved_percent ? fmt::format("±{:.2f} %", *ra.achieved_percent) : std::string("no bound at all");
  std::vector<std::string> sources;
  for (const auto& row : a.attribution.rows) {
    if (sources.size() == 3) break;
    if (row.share >= 0.05) sources.push_back(fmt::format("{} ({})", row.source, format_percent(row.share, 0)));
  }
  return fmt::format(
      "--runs auto stopped at --max-runs {}: the median is known within {}, not ±{:g} %{}", ra.max_runs, achieved,
      ra.precision_percent,
      sources.empty() ? std::string(".") : fmt::format("; the variance came from {}", fmt::join(sources, ", ")));
}

}  // namespace

Analysis analyze(const RunRecord& rec) {
  Analysis a;
  a.summary = summarize(rec);
  a.warnings = runner_warnings(rec);
  // Nothing to attribute or advise: the report says what failed and no more.
  if ((a.failed = failed_start(rec))) {
    a.headline = a.failed->headline;
    return a;
  }
  if (auto labels = split_labels(rec); !labels.empty()) analyze_by_label(rec, labels, a);
  else analyze_set(rec, a);
  if (auto w = runs_auto_warning(rec, a)) a.engine_warnings.push_back(*w);
  a.warnings.insert(a.warnings.end(), a.engine_warnings.begin(), a.engine_warnings.end());
  return a;
}

}  // namespace nw::report
