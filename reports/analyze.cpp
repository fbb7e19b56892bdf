// analyze(): record -> attribution, patterns, workload split, advice, headline and warnings.
#include <algorithm>
#include <numeric>

#include "reports/advice.h"
#include "reports/attribution.h"
#include "reports/narrative.h"
#include "reports/patterns.h"
#include "reports/report.h"
#include "reports/sources.h"
#include "reports/workload.h"

namespace nw::report {

namespace {

// Replaces the warnings a previous analyze() added (listed in rec.report) by `engine_warnings`,
// keeping the runner's own. A saved record is user input: anything but an array of strings there
// is ignored.
void set_engine_warnings(RunRecord& rec, const std::vector<std::string>& engine_warnings) {
  std::vector<std::string> previous;
  if (rec.report.is_object() && rec.report.contains("engine_warnings") && rec.report["engine_warnings"].is_array())
    for (const auto& w : rec.report["engine_warnings"])
      if (w.is_string()) previous.push_back(w.get<std::string>());
  std::erase_if(rec.warnings, [&](const std::string& w) {
    return std::find(previous.begin(), previous.end(), w) != previous.end();
  });
  rec.warnings.insert(rec.warnings.end(), engine_warnings.begin(), engine_warnings.end());
}

// Nothing to attribute or advise: the report says what failed and no more.
void analyze_failed(RunRecord& rec, const FailedStart& f) {
  set_engine_warnings(rec, {});
  rec.attribution.clear();
  rec.recommendations.clear();
  rec.report = {{"headline", f.headline},
                {"attributable", false},
                {"attribution_note", "the benchmark failed before any measured run"},
                {"failed_before_measuring", {{"run", f.run}, {"warmup", f.warmup}, {"exit_status", f.exit_status},
                                             {"signal", f.signal ? nlohmann::json(*f.signal) : nlohmann::json()}}},
                {"engine_warnings", nlohmann::json::array()}};
}

}  // namespace

void analyze(RunRecord& rec) {
  rec.summary = summarize(rec);
  if (auto failed = failed_start(rec)) return analyze_failed(rec, *failed);
  auto matrix = collect_sources(rec);
  auto attribution = attribute(matrix, benchmark_comm(rec));
  std::vector<size_t> all(matrix.runs());
  std::iota(all.begin(), all.end(), 0);
  auto whole = decompose(matrix, all);
  auto patterns = detect_patterns(matrix);
  auto split = split_workload(rec, matrix, attribution, whole.residual, whole.var_t);
  NarrativeInput story{rec, attribution, patterns, split};
  auto engine_warnings = warnings(story);
  auto line = headline(story);

  set_engine_warnings(rec, engine_warnings);

  rec.recommendations = recommend({rec, attribution.rows, patterns, split, attribution.attributable});
  rec.attribution = std::move(attribution.rows);

  if (!rec.report.is_object()) rec.report = nlohmann::json::object();
  rec.report["headline"] = line;
  rec.report["attributable"] = attribution.attributable;
  rec.report["attribution_note"] = attribution.reason;
  rec.report["model"] = "share_s = Cov(T, S_s) / Var(T); count-valued sources by non-negative regression of "
                        "the remainder on counts, kept only when the cost per event is physically plausible and "
                        "significant; frequency as time scaling with 1/f (see reports/ATTRIBUTION.md)";
  rec.report.erase("failed_before_measuring");
  rec.report["patterns"] = to_json(patterns);
  rec.report["workload"] = to_json(split);
  rec.report["engine_warnings"] = engine_warnings;
}

}  // namespace nw::report
