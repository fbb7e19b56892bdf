// SPDX-License-Identifier: Apache-2.0
#include "reports/labels.h"

#include <algorithm>
#include <set>
#include <utility>

#include "sources/vocabulary.h"
#include "stats/descriptive.h"

namespace nw::report {

std::vector<LabelRow> label_rows(const RunRecord& rec) {
  const std::string bench_comm = sources::benchmark_comm(rec.command);
  std::vector<std::string> order;
  std::vector<std::vector<double>> walls, stolen;
  bool any = false;
  for (const RunSample* r : rec.measured()) {
    const std::string l = label_text(r->label);
    any = any || !l.empty();
    auto it = std::find(order.begin(), order.end(), l);
    if (it == order.end()) {
      order.push_back(l);
      walls.emplace_back();
      stolen.emplace_back();
      it = order.end() - 1;
    }
    const size_t k = size_t(it - order.begin());
    walls[k].push_back(double(r->wall_ns));
    stolen[k].push_back(double(r->stolen_ns(bench_comm)));
  }
  std::vector<LabelRow> rows;
  const bool repeated = std::any_of(walls.begin(), walls.end(), [](const auto& w) { return w.size() > 1; });
  if (!any || !repeated) return rows;
  for (size_t k = 0; k < order.size(); ++k) {
    LabelRow row;
    row.label = order[k];
    row.windows = int(walls[k].size());
    row.median_ns = stats::median(walls[k]);
    const double mean = stats::mean(walls[k]);
    row.cv = walls[k].size() > 1 && mean > 0 ? stats::stddev(walls[k]) / mean : 0;
    row.mean_stolen_ns = stats::mean(stolen[k]);
    rows.push_back(std::move(row));
  }
  return rows;
}

namespace {

// Google Benchmark's repetitions are labelled with the benchmark's name (runner/gbench_windows.h).
bool harness_names_benchmarks(const RunRecord& rec) {
  return rec.windows_harness && rec.windows_harness->name == "gbench";
}

}  // namespace

std::vector<std::string> split_labels(const RunRecord& rec) {
  auto labels = measured_labels(rec);
  if (labels.size() < 2) return {};
  if (harness_names_benchmarks(rec)) return labels;
  // Text labels name what a window runs: two windows of one name are repetitions of it.
  const auto measured = rec.measured();
  if (std::any_of(measured.begin(), measured.end(), [](const RunSample* r) { return r->label.is_string(); }))
    return label_rows(rec).empty() ? std::vector<std::string>{} : labels;
  // Numbers may count the windows of each process run (begin 0, begin 1, ...: repeated only
  // across process runs, one set) or name a parameter (a size): then one repeats within a run.
  std::set<std::pair<int, std::string>> seen;
  for (const RunSample* r : measured)
    if (!seen.insert({r->process_run.value_or(0), label_text(r->label)}).second) return labels;
  return {};
}

std::string label_noun(const RunRecord& rec) { return harness_names_benchmarks(rec) ? "benchmarks" : "labels"; }

}  // namespace nw::report
