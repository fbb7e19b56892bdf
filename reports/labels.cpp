#include "reports/labels.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/errors.h"
#include "sources/vocabulary.h"
#include "stats/descriptive.h"

namespace nw::report {

std::string label_text(const nlohmann::json& label) {
  if (label.is_string()) return label.get<std::string>();
  if (label.is_null()) return "";
  return label.dump();
}

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

RunRecord only_label(const RunRecord& rec, const std::string& label) {
  RunRecord out = rec;
  out.runs.clear();
  std::vector<std::string> seen;
  for (const auto& r : rec.runs) {
    const std::string l = label_text(r.label);
    if (l == label) out.runs.push_back(r);
    if (!l.empty() && std::find(seen.begin(), seen.end(), l) == seen.end()) seen.push_back(l);
  }
  if (out.runs.empty())
    throw Error(seen.empty() ? fmt::format("--label {}: the record's windows have no labels", label)
                             : fmt::format("--label {}: no window has that label; its labels: {}", label,
                                           fmt::join(seen, ", ")));
  out.summary = summarize(out);
  return out;
}

}  // namespace nw::report
