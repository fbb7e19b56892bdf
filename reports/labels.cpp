#include "reports/labels.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

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

std::optional<std::string> mixed_labels_warning(const std::vector<LabelRow>& rows) {
  std::vector<std::string> names;
  for (const auto& r : rows)
    if (r.windows > 1) names.push_back(r.label.empty() ? "(none)" : r.label);
  if (names.size() < 2) return std::nullopt;
  const size_t shown = std::min<size_t>(names.size(), 4);
  return fmt::format(
      "the measured windows carry {} labels ({}{}), analysed here as one set of repetitions: their variance is "
      "partly their own differences, not noise. `noisewatch report --label LABEL RUN.json` attributes one label's "
      "windows (or run one benchmark at a time)",
      names.size(), fmt::join(names.begin(), names.begin() + long(shown), ", "), names.size() > shown ? ", ..." : "");
}

}  // namespace nw::report
