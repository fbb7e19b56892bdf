// Google Benchmark JSON (--benchmark_format=json / --benchmark_out): one row per repetition,
// grouped by run_name; aggregate rows (_mean, _median, ...) are summaries of those and skipped.
#include <map>

#include <fmt/format.h>

#include "cli/errors.h"
#include "compare/input.h"

namespace nw::compare {

using nlohmann::json;

namespace {

double ns_per(const std::string& unit, const std::string& where) {
  if (unit == "ns") return 1;
  if (unit == "us") return 1e3;
  if (unit == "ms") return 1e6;
  if (unit == "s") return 1e9;
  throw Error(fmt::format("{} has time_unit \"{}\" (expected ns, us, ms or s)", where, unit));
}

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Files from before run_type existed (benchmark < 1.5) mark aggregates only by their name.
bool is_aggregate(const json& row, const std::string& name) {
  if (row.contains("run_type")) return row["run_type"] == "aggregate";
  if (row.contains("aggregate_name")) return true;
  for (auto suffix : {"_mean", "_median", "_stddev", "_cv"})
    if (ends_with(name, suffix)) return true;
  return false;
}

}  // namespace

std::vector<Benchmark> parse_google_benchmark(const json& j, std::vector<std::string>& notes) {
  const json& rows = j.at("benchmarks");
  if (!rows.is_array()) throw Error("\"benchmarks\" is not an array");
  std::vector<Benchmark> out;
  std::map<std::string, size_t> index;
  int failed = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    const json& row = rows[i];
    std::string where = fmt::format("benchmarks[{}]", i);
    if (!row.is_object()) throw Error(where + " is not an object");
    if (!row.contains("name") || !row["name"].is_string()) throw Error(where + " has no \"name\" string");
    std::string name = row["name"].get<std::string>();
    if (is_aggregate(row, name)) continue;
    if (row.value("error_occurred", false) || row.value("skipped", false)) {
      ++failed;
      continue;
    }
    if (auto it = row.find("run_name"); it != row.end() && it->is_string()) name = it->get<std::string>();
    auto rt = row.find("real_time");
    if (rt == row.end() || !rt->is_number()) throw Error(where + " has no numeric \"real_time\"");
    std::string unit = row.contains("time_unit") && row["time_unit"].is_string()
                           ? row["time_unit"].get<std::string>()
                           : "ns";
    double ns = checked_time_ns(rt->get<double>(), ns_per(unit, where), where + ".real_time");
    auto [it, inserted] = index.try_emplace(name, out.size());
    if (inserted) out.push_back({name, {}, std::nullopt});
    out[it->second].times_ns.push_back(ns);
  }
  if (failed > 0) notes.push_back(fmt::format("{} benchmark row(s) reported an error and were skipped", failed));
  return out;
}

}  // namespace nw::compare
