// SPDX-License-Identifier: Apache-2.0
// The format-neutral report: everything a renderer shows, already computed and ordered, and
// nothing that no renderer shows. Built from a record and its Analysis; each renderer is a pure
// function of this model.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "record/run_record.h"
#include "reports/analysis.h"
#include "reports/labels.h"

namespace nw::report {

struct SourceRow {
  std::string source;
  bool remainder = false;  // `unexplained`: no time, count or max of its own
  bool timed = true;       // has a time per run (not the remainder, not a refused count fit)
  bool estimated = false;  // time is events x fitted cost per event
  double share = 0;
  std::optional<double> share_low, share_high;
  bool uncertain = false;     // the interval is too wide to mean anything: say "uncertain"
  bool inconsistent = false;  // the record has it take longer than a whole run: time not shown
  double mean_time_ns = 0;    // per run (estimated for count-valued sources)
  double pct_of_run = 0;      // mean_time_ns / (mean wall time x the run's CPUs)
  double mean_count = 0, max_ns = 0;
};

struct RunBar {
  int run = 0;
  std::string label;  // the window's label, if it has one
  double wall_ns = 0;
  bool outlier = false;
  std::vector<double> stolen_ns;  // aligned with ReportModel::chart_series
};

// Recommendations of one tier under a heading that says how they are ordered.
struct AdviceGroup {
  std::string title, note;  // "Recommendations", "ranked by the share of the variance they address"
  bool up_to = false;       // the share is an upper bound (speculative knobs)
  std::vector<Recommendation> items;
};

struct ReportModel {
  std::string command;  // shell-like, for titles
  std::string headline;
  Summary summary;
  int warmups = 0;
  // "10 runs + 1 warm-up"; with --windows "12 windows of 1 process run + 12 warm-up windows"
  std::string repetitions;
  std::string cpus;  // "1" or "2-3", or "not pinned"
  HostInfo host;
  bool attributable = false;
  std::vector<SourceRow> sources;  // ranked by share, `unexplained` included
  // A share or interval bound shown is below zero (printed as "-1 %"): the renderers say why.
  bool negative_shares = false;
  std::vector<std::string> warnings;
  std::vector<AdviceGroup> advice;  // recommendations, grouped by tier, in the record's order
  // Set when the benchmark failed before any measured run: the report says so and no more.
  bool failed = false;
  std::string rerun;  // the command, shell-quoted, to run alone and see why
  std::vector<Unavailable> unavailable;

  // Charts: stolen time per run for the top sources, the rest summed as "other".
  std::vector<std::string> chart_series;
  std::vector<RunBar> runs;
  // The undisturbed run time: min over runs of (wall - stolen). Wall time above it is what the
  // noise cost each run, on the same scale as the stolen-time bars.
  double baseline_ns = 0;
  // Windows by label (reports/labels.h); empty when they have none.
  std::vector<LabelRow> labels;
  // What a labelled repetition is: "window", or "run" in a live compare's record (sides A and B).
  std::string label_unit = "window";
  // --timeline: the record's summary, for the timeline chart.
  std::optional<TimelineSummary> timeline;

  // Windows of several labels (Analysis::by_label): one block per label, the noisiest first, each
  // with its own headline, summary, sources, charts, warnings and advice; the whole report then
  // shows its header, the table by label, the runner's warnings and what was not measured.
  std::vector<ReportModel> blocks;
  std::string label;    // a block's label
  std::string html_id;  // what makes a block's chart ids unique in one HTML page ("" for the whole)
};

ReportModel build_model(const RunRecord& rec, const Analysis& a);

// What every format says after the headline of a failed benchmark, before the command.
inline constexpr const char* kFailedAdvice =
    "Nothing was measured, so there is nothing to attribute. Run the command alone to see why it fails";

// What every format says under the sources when a share shown is negative.
inline constexpr const char* kNegativeShareNote =
    "negative share: that source took less time in the slower runs than in the faster ones. The shares still sum "
    "to 100 %; a small negative one is within the estimate's own noise";

// Renderers: one per format, each in its own file.
std::string render_text(const ReportModel& m, bool color);
std::string render_markdown(const ReportModel& m);
std::string render_html(const ReportModel& m);

}  // namespace nw::report
