// SPDX-License-Identifier: Apache-2.0
// The JSON serialiser: the run document of docs/contracts.md ("noisewatch.run/1") from a record and
// its analysis. The only place where the engine's results become JSON: the attribution rows'
// `extra` evidence and the free-form `report` object.
#include <cmath>

#include "reports/report.h"

namespace nw::report {

namespace {

const char* kind_name(RowKind k) {
  switch (k) {
    case RowKind::model:
      return "model";
    case RowKind::count:
      return "count";
    case RowKind::remainder:
      return "remainder";
    case RowKind::time:
      break;
  }
  return "time";
}

Attribution record_row(const AttributedSource& a) {
  Attribution r{a.source, a.share, a.mean_time_ns, a.share_low, a.share_high, a.mean_count, a.max_ns, nullptr};
  nlohmann::json x = a.kind == RowKind::remainder ? nlohmann::json::object() : a.detail;
  x["category"] = a.kind == RowKind::remainder ? std::string(sources::kUnexplained) : sources::parse(a.source).category;
  x["group"] = sources::group_name(a.group);
  x["kind"] = kind_name(a.kind);
  if (a.fit) {
    x["per_event_ns"] = a.fit->per_event_ns;
    x["per_event_max_ns"] = a.fit->max_per_event_ns;
    x["cost_plausible"] = a.fit->plausible;
    x["cost_significant"] = a.fit->significant;
    // An overlap (smt): its time beside the benchmark per run, and the slowdown fitted per ns of it.
    if (a.mean_overlap_ns) {
      x["overlap_ns"] = *a.mean_overlap_ns;
      x["slowdown"] = a.fit->per_event_ns;
    }
  }
  if (a.uncertain) x["uncertain"] = true;
  if (a.kind != RowKind::remainder) {
    x["runs_seen"] = a.runs_seen;
    // A broken record's impossible "% of run" is not written: the runs are named instead.
    if (!a.inconsistent_runs.empty()) x["inconsistent_runs"] = a.inconsistent_runs;
    else x["pct_of_run"] = a.pct_of_run;
  }
  r.extra = std::move(x);
  return r;
}

nlohmann::json to_json(const Patterns& p) {
  nlohmann::json outliers = nlohmann::json::array();
  for (const auto& o : p.outliers) {
    nlohmann::json j = {{"run", o.run}, {"z", o.z}};
    if (!o.source.empty()) j["source"] = o.source;
    outliers.push_back(std::move(j));
  }
  nlohmann::json j = {
      {"stability",
       {{"cv", p.cv},
        {"level", p.stability},
        {"ci_half_width", p.ci_half_width},
        {"runs_needed", p.runs_needed},
        {"target_precision", kTargetPrecision}}},
      {"outliers", std::move(outliers)},
      {"bimodal",
       {{"found", p.bimodal.found},
        {"ashman_d", std::isfinite(p.bimodal.ashman_d) ? nlohmann::json(p.bimodal.ashman_d) : nlohmann::json("inf")}}},
      {"drift",
       {{"found", p.drift.found},
        {"p_value", p.drift.p_value},
        {"slope_ns_per_run", p.drift.slope_ns_per_run},
        {"total_fraction", p.drift.total_fraction}}},
      {"slow_first_run", {{"found", p.slow_first.found}, {"excess", p.slow_first.excess}}}};
  if (p.bimodal.found) {
    j["bimodal"]["fast_mean_ns"] = p.bimodal.fast_mean_ns;
    j["bimodal"]["slow_mean_ns"] = p.bimodal.slow_mean_ns;
    j["bimodal"]["slow_runs"] = p.bimodal.slow_runs;
    if (!p.bimodal.source.empty()) {
      j["bimodal"]["source"] = p.bimodal.source;
      j["bimodal"]["source_fraction"] = p.bimodal.source_fraction;
    }
  }
  if (p.drift.found) {
    if (!p.drift.source.empty()) j["drift"]["source"] = p.drift.source;
    j["drift"]["frequency_falling"] = p.drift.frequency_falling;
  }
  return j;
}

nlohmann::json to_json(const WorkloadSplit& w) {
  nlohmann::json j = {{"machine", w.machine},
                      {"workload", w.workload},
                      {"unexplained", w.unexplained},
                      {"cpu_time_cv", nullptr},
                      {"verdict", w.verdict}};
  if (w.cpu_time_cv) j["cpu_time_cv"] = *w.cpu_time_cv;
  if (w.instructions_cv) j["instructions_cv"] = *w.instructions_cv;
  if (w.instructions_share) j["instructions_share"] = *w.instructions_share;
  return j;
}

// The engine's part of `report`; keys of the saved report that the engine does not own are kept
// ("extra fields are welcome").
nlohmann::json report_object(const RunRecord& rec, const Analysis& a) {
  nlohmann::json r = rec.report.is_object() ? rec.report : nlohmann::json::object();
  for (const char* own : {"headline", "attributable", "attribution_note", "model", "patterns", "workload",
                          "engine_warnings", "failed_before_measuring", "leads", "per_label"})
    r.erase(own);
  r["headline"] = a.headline;
  r["attributable"] = a.attribution.attributable;
  r["engine_warnings"] = a.engine_warnings;
  if (a.failed) {
    const auto& f = *a.failed;
    r["attribution_note"] = "the benchmark failed before any measured run";
    r["failed_before_measuring"] = {{"run", f.run},
                                    {"warmup", f.warmup},
                                    {"exit_status", f.exit_status},
                                    {"signal", f.signal ? nlohmann::json(*f.signal) : nlohmann::json()}};
    return r;
  }
  r["attribution_note"] = a.attribution.reason;
  if (!a.by_label.empty()) {
    r["per_label"] = "by_label";
    return r;
  }
  r["model"] =
      "share_s = Cov(T, S_s) / Var(T); count-valued sources by non-negative regression of the remainder "
      "on counts, kept only when the cost per event is physically plausible and significant; frequency as "
      "time scaling with 1/f (see reports/ATTRIBUTION.md)";
  r["patterns"] = to_json(a.patterns);
  r["workload"] = to_json(a.split);
  nlohmann::json leads = nlohmann::json::array();
  for (const auto& l : a.leads)
    leads.push_back({{"kind", "neighbour"},
                     {"pid", l.pid},
                     {"comm", l.comm},
                     {"cpu", l.cpu},
                     {"correlation", l.correlation},
                     {"p_value", l.p_value},
                     {"p_adjusted", l.p_adjusted},
                     {"tested", l.tested},
                     {"runs_seen", l.runs_seen},
                     {"runs", l.runs},
                     {"mean_cpu_ns", l.mean_cpu_ns}});
  r["leads"] = std::move(leads);
  return r;
}

// The fields an analysis sets in the run document: one label's entry of `by_label` has them too.
constexpr const char* kAnalysisFields[] = {"summary", "attribution", "recommendations", "warnings", "report"};

// What a mixed record's summary does not compute across labels (it keeps `runs`, the windows).
constexpr const char* kPerLabelFigures[] = {"mean_ns", "median_ns", "stddev_ns", "cv", "min_ns", "max_ns"};

}  // namespace

nlohmann::json run_document(const RunRecord& rec, const Analysis& a) {
  RunRecord doc = rec;
  doc.summary = a.summary;
  doc.warnings = a.warnings;
  doc.attribution.clear();
  for (const auto& row : a.attribution.rows) doc.attribution.push_back(record_row(row));
  doc.recommendations = a.recommendations;
  doc.report = report_object(rec, a);
  nlohmann::json j = to_json(doc);
  if (a.by_label.empty()) return j;
  // Windows of several labels: no figure across them; the summary says where the per-label ones are.
  for (const char* k : kPerLabelFigures) j["summary"][k] = nullptr;
  j["summary"]["per_label"] = "by_label";
  nlohmann::json blocks = nlohmann::json::array();
  for (const auto& b : a.by_label) {
    const nlohmann::json whole = run_document(b.record, b.analysis);
    nlohmann::json entry = {{"label", b.label}};
    for (const char* k : kAnalysisFields) entry[k] = whole[k];
    blocks.push_back(std::move(entry));
  }
  j["by_label"] = std::move(blocks);
  return j;
}

}  // namespace nw::report
