// SPDX-License-Identifier: Apache-2.0
#include "compare/render.h"

#include <cmath>

namespace nw::compare {

// Ordered so the contract fields (schema, verdict, ratio, ci, p_value) lead the document.
using json = nlohmann::ordered_json;

namespace {

// No interval (too few runs for the level) and no test (fewer than 2 runs a side) are null, never
// a number that looks like a result.
json interval(const TimingResult& t) { return t.ci_bounded ? json::array({t.ci_low, t.ci_high}) : json(nullptr); }
json tested_number(const TimingResult& t, double v) { return t.tested ? json(v) : json(nullptr); }
json method(const TimingResult& t) {
  return t.tested ? json(t.exact ? "exact" : "normal-approximation") : json(nullptr);
}

json timing_json(const TimingResult& t) {
  return {{"verdict", verdict_name(t.verdict)},
          {"ratio", t.ratio},
          {"ci", interval(t)},
          {"ci_bounded", t.ci_bounded},
          {"hl_ratio", t.hl_ratio},
          {"p_value", tested_number(t, t.p_value)},
          {"p_adjusted", tested_number(t, t.p_adjusted)},
          {"test_method", method(t)},
          {"significant", t.significant},
          {"equivalent", t.equivalent},
          {"change_percent", t.change_percent()}};
}

// An unbounded side of a confidence sequence is null (JSON has no infinity).
json bound(double v) { return std::isfinite(v) && v > 0 ? json(v) : json(nullptr); }

json decision_json(const SequentialDecision& d) {
  return {{"outcome", d.outcome},
          {"pairs", d.pairs},
          {"ratio", d.ratio},
          {"ci", json::array({bound(d.low), bound(d.high)})}};
}

json live_json(const LiveComparison& l) {
  json j = decision_json(l.decision);
  j["a_command"] = l.a_command;
  j["b_command"] = l.b_command;
  j["max_pairs"] = l.max_pairs;
  j["method"] = "median confidence sequence (beta-binomial mixture, Howard & Ramdas 2022)";
  json dist = json::array();
  for (const auto& d : l.disturbed)
    dist.push_back({{"pair", d.pair},
                    {"side", d.side},
                    {"source", d.source},
                    {"time_ns", d.time_ns},
                    {"typical_ns", d.typical_ns}});
  j["disturbed"] = std::move(dist);
  j["undisturbed"] = l.undisturbed ? decision_json(*l.undisturbed) : json(nullptr);
  json obs = json::array();
  for (const auto& o : l.obstacles)
    obs.push_back({{"source", o.source}, {"share", o.share}, {"sides", o.sides}, {"fix", o.fix}});
  j["obstacles"] = std::move(obs);
  j["failure"] = l.failure.empty() ? json(nullptr) : json(l.failure);
  return j;
}

json cpu_json(const std::optional<CpuComparison>& cpu) {
  if (!cpu) return nullptr;
  json j = timing_json(cpu->timing);
  j["basis"] = cpu->basis;
  j["means_only"] = cpu->means_only;
  j["disagrees_with_wall"] = cpu->disagrees;
  return j;
}

json sample_json(const SampleSummary& s) {
  return {{"runs", s.runs}, {"median_ns", s.median_ns}, {"mean_ns", s.mean_ns}, {"cv", s.cv}};
}

json noise_json(const NoiseChange& n) {
  return {{"source", n.source},
          {"base_mean_ns", n.base_mean_ns},
          {"new_mean_ns", n.new_mean_ns},
          {"change_ns", n.change_ns},
          {"change_points", n.change_points},
          {"base_mean_count", n.base_mean_count},
          {"new_mean_count", n.new_mean_count},
          {"p_value", n.p_value},
          {"significant", n.significant},
          {"stolen", n.stolen}};
}

json benchmark_json(const BenchmarkComparison& b) {
  json j = timing_json(b.timing);
  j["name"] = b.name;
  j["base"] = sample_json(b.base);
  j["new"] = sample_json(b.next);
  j["cpu"] = cpu_json(b.cpu);
  j["few_runs"] = b.few_runs;
  j["rerun_hint"] = b.rerun_hint;
  json noise = json::array();
  for (const auto& n : b.noise_diff) noise.push_back(noise_json(n));
  j["noise_diff"] = std::move(noise);
  j["noise_available"] = b.has_noise;
  j["noise_explained_points"] = b.noise_explained_points;
  j["undisturbed"] = b.adjusted ? timing_json(*b.adjusted) : json(nullptr);
  j["base_cpus"] = b.base_cpus;
  j["new_cpus"] = b.new_cpus;
  j["explanation"] = b.explanation;
  j["fail_above_exceeded"] = b.fail_above_exceeded;
  j["fail_above_untested"] = b.fail_above_untested;
  return j;
}

}  // namespace

json to_json(const Comparison& c) {
  // The headline benchmark's fields sit at the top level (the contract's verdict, ratio, ci,
  // p_value, noise_diff); every benchmark, the headline included, is also under "benchmarks".
  json j = {{"schema", "noisewatch.compare/1"}};
  json top = benchmark_json(c.top());
  for (const char* key : {"verdict", "ratio", "ci", "p_value", "noise_diff", "name"}) j[key] = top[key];
  const Summary& s = c.summary;
  j["summary"] = {{"benchmarks", s.benchmarks},
                  {"slower", s.slower},
                  {"faster", s.faster},
                  {"no_change", s.no_change},
                  {"inconclusive", s.inconclusive},
                  {"geomean_ratio", s.geomean_ratio},
                  {"tested", s.tested},
                  {"exact", s.exact}};
  for (auto& [key, value] : top.items())
    if (!j.contains(key)) j[key] = value;
  j["base_file"] = {{"path", c.base_label}, {"format", c.base_format}};
  j["new_file"] = {{"path", c.new_label}, {"format", c.new_format}};
  j["threshold_percent"] = c.options.threshold_percent;
  j["alpha"] = c.options.alpha;
  j["fail_above_percent"] = c.options.fail_above_percent ? json(*c.options.fail_above_percent) : json(nullptr);
  j["fail_above_exceeded"] = c.fail_above_exceeded();
  j["fail_above_untested"] = c.fail_above_untested();
  j["test"] = "mann-whitney-u";
  j["p_adjustment"] = "holm";
  j["ci_method"] = "hodges-lehmann";
  json all = json::array();
  for (const auto& b : c.benchmarks) all.push_back(benchmark_json(b));
  j["benchmarks"] = std::move(all);
  json hosts = json::array();
  for (const auto& h : c.host_diff) hosts.push_back({{"field", h.field}, {"base", h.base}, {"new", h.next}});
  j["host_diff"] = std::move(hosts);
  j["warnings"] = c.warnings;
  if (c.live) j["live"] = live_json(*c.live);
  return j;
}

std::string render_json(const Comparison& c) { return to_json(c).dump(2) + "\n"; }

}  // namespace nw::compare
