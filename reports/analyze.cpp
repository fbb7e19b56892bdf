// analyze(): record -> attribution, patterns, workload split, advice, headline and warnings.
#include <algorithm>

#include "reports/advice.h"
#include "reports/labels.h"
#include "reports/report.h"

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
  std::erase_if(kept, [&](const std::string& w) { return std::find(previous.begin(), previous.end(), w) != previous.end(); });
  return kept;
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
  a.matrix = collect_sources(rec);
  a.attribution = attribute(a.matrix, sources::benchmark_comm(rec.command));
  a.patterns = detect_patterns(a.matrix);
  a.split = split_workload(rec, a.matrix, a.attribution);
  a.leads = neighbour_leads(rec, a.attribution);
  NarrativeInput story{rec, a.attribution, a.patterns, a.split, a.leads};
  a.engine_warnings = warnings(story);
  if (auto w = mixed_labels_warning(label_rows(rec))) a.engine_warnings.insert(a.engine_warnings.begin(), *w);
  a.headline = headline(story);
  a.warnings.insert(a.warnings.end(), a.engine_warnings.begin(), a.engine_warnings.end());
  a.recommendations = recommend({rec, a.attribution.rows, a.patterns, a.split, a.attribution.attributable, a.leads});
  return a;
}

}  // namespace nw::report
