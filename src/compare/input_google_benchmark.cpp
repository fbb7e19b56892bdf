// SPDX-License-Identifier: Apache-2.0
// Google Benchmark JSON (--benchmark_format=json / --benchmark_out): one row per repetition,
// grouped by run_name; aggregate rows (_mean, _median, ...) are summaries of those and skipped.
// The context block describes the machine, for host_diff.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/errors.h"
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

constexpr std::string_view kAggregateSuffixes[] = {"_mean", "_median", "_stddev", "_cv"};

// The benchmark an old-style aggregate name summarises ("BM_A_mean" -> "BM_A"), or "".
std::string aggregate_stem(const std::string& name) {
  for (auto suffix : kAggregateSuffixes)
    if (ends_with(name, suffix)) return name.substr(0, name.size() - suffix.size());
  return {};
}

std::string string_field(const json& row, const char* key) {
  auto it = row.find(key);
  return it != row.end() && it->is_string() ? it->get<std::string>() : std::string{};
}

// Complexity fits (BigO, RMS rows) summarise a family of arguments, not repetitions.
bool is_complexity(const json& row) { return row.contains("big_o") || row.contains("rms"); }

// Files from before run_type existed (benchmark < 1.5) mark aggregates only by their name, so a
// row named "X_mean" is an aggregate only when X has rows of its own; otherwise it is a benchmark
// that happens to be called that.
bool is_aggregate(const json& row, const std::string& name, const std::set<std::string>& names) {
  if (row.contains("run_type")) return row["run_type"] == "aggregate";
  if (row.contains("aggregate_name")) return true;
  std::string stem = aggregate_stem(name);
  return !stem.empty() && names.count(stem);
}

// The benchmark an aggregate row belongs to.
std::string aggregated_name(const json& row, const std::string& name) {
  if (auto run = string_field(row, "run_name"); !run.empty()) return run;
  std::string stem = aggregate_stem(name);
  return stem.empty() ? name : stem;
}

std::string cache_list(const json& caches) {
  std::vector<std::string> out;
  for (const auto& c : caches) {
    if (!c.is_object()) continue;
    std::string type = string_field(c, "type");
    std::string kind = type == "Data" ? "d" : type == "Instruction" ? "i" : "";
    double size = c.value("size", 0.0);
    std::string sz = size >= 1 << 20 && std::fmod(size, 1 << 20) == 0 ? fmt::format("{:g} MiB", size / (1 << 20))
                                                                      : fmt::format("{:g} KiB", size / 1024);
    out.push_back(fmt::format("L{}{} {}", c.value("level", 0), kind, sz));
  }
  return fmt::format("{}", fmt::join(out, ", "));
}

void read_context(const json& j, InputFile& in) {
  auto ctx = j.find("context");
  if (ctx == j.end() || !ctx->is_object()) return;
  auto text = [](const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); };
  for (const char* key :
       {"host_name", "num_cpus", "mhz_per_cpu", "cpu_scaling_enabled", "aslr_enabled", "library_build_type"}) {
    auto it = ctx->find(key);
    if (it == ctx->end() || it->is_null()) continue;
    // mhz_per_cpu is measured at start-up and wanders by a few MHz between runs of one machine.
    in.host.push_back({key, text(*it), std::string_view(key) == "mhz_per_cpu" ? 0.02 : 0.0});
  }
  if (auto caches = ctx->find("caches"); caches != ctx->end() && caches->is_array() && !caches->empty())
    in.host.push_back({"caches", cache_list(*caches)});
  in.debug_build = string_field(*ctx, "library_build_type") == "debug";
}

// Benchmarks whose rows were left out, with the tool's first message for each, in file order.
struct Dropped {
  std::vector<std::string> names;
  std::map<std::string, std::string> message;
  void add(const std::string& name, const json& row, const char* message_key) {
    if (message.count(name)) return;
    names.push_back(name);
    message[name] = string_field(row, message_key);
  }
  std::string note(const char* what) const {
    std::vector<std::string> parts;
    for (const auto& n : names)
      parts.push_back(message.at(n).empty() ? n : fmt::format("{} (\"{}\")", n, message.at(n)));
    return fmt::format("{} {}; not compared", join_names(parts, 3), what);
  }
};

}  // namespace

std::vector<Benchmark> parse_google_benchmark(const json& j, InputFile& in) {
  const json& rows = j.at("benchmarks");
  if (!rows.is_array()) throw Error("\"benchmarks\" is not an array");
  read_context(j, in);
  std::set<std::string> names;  // of rows that are not marked as aggregates by a field
  for (size_t i = 0; i < rows.size(); ++i) {
    const json& row = rows[i];
    if (!row.is_object()) throw Error(fmt::format("benchmarks[{}] is not an object", i));
    if (!row.contains("name") || !row["name"].is_string())
      throw Error(fmt::format("benchmarks[{}] has no \"name\" string", i));
    if (!row.contains("run_type") && !row.contains("aggregate_name")) names.insert(row["name"].get<std::string>());
  }

  std::vector<Benchmark> out;
  std::map<std::string, size_t> index;
  std::vector<std::string> aggregate_only;  // benchmarks with summary rows but no repetition
  Dropped errors, skipped;
  std::set<std::string> without_cpu;
  int complexity = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    const json& row = rows[i];
    std::string where = fmt::format("benchmarks[{}]", i);
    std::string name = row["name"].get<std::string>();
    if (is_complexity(row)) {
      ++complexity;
      continue;
    }
    if (is_aggregate(row, name, names)) {
      std::string of = aggregated_name(row, name);
      if (std::find(aggregate_only.begin(), aggregate_only.end(), of) == aggregate_only.end())
        aggregate_only.push_back(of);
      continue;
    }
    if (auto run = string_field(row, "run_name"); !run.empty()) name = run;
    if (row.value("error_occurred", false)) {
      errors.add(name, row, "error_message");
      continue;
    }
    if (row.value("skipped", false)) {  // State::SkipWithMessage (benchmark >= 1.8): not an error
      skipped.add(name, row, "skip_message");
      continue;
    }
    auto rt = row.find("real_time");
    if (rt == row.end() || !rt->is_number()) throw Error(where + " has no numeric \"real_time\"");
    std::string unit =
        row.contains("time_unit") && row["time_unit"].is_string() ? row["time_unit"].get<std::string>() : "ns";
    double per = ns_per(unit, where);
    double ns = checked_time_ns(rt->get<double>(), per, where + ".real_time");
    auto [it, inserted] = index.try_emplace(name, out.size());
    if (inserted) out.push_back({name, {}, std::nullopt, {}, std::nullopt, "cpu_time"});
    Benchmark& b = out[it->second];
    b.times_ns.push_back(ns);
    // CPU time is kept only while every repetition has a usable one (0 for a benchmark that
    // only waits would make a ratio meaningless).
    auto ct = row.find("cpu_time");
    double cpu = ct != row.end() && ct->is_number() ? ct->get<double>() * per : 0;
    if (std::isfinite(cpu) && cpu > 0) b.cpu_ns.push_back(cpu);
    else without_cpu.insert(name);
  }
  for (auto& b : out)
    if (without_cpu.count(b.name)) b.cpu_ns.clear();

  // A benchmark whose repetitions failed or skipped is named as such, not as aggregate-only.
  std::erase_if(aggregate_only, [&](const std::string& n) {
    return index.count(n) || errors.message.count(n) || skipped.message.count(n);
  });
  if (out.empty() && !aggregate_only.empty())
    throw Error(
        fmt::format("has only aggregate rows (mean, median, stddev) and no repetition: compare tests the "
                    "repetitions themselves, so rerun without --benchmark_report_aggregates_only, with "
                    "{} or more",
                    rerun_hint(InputFormat::google_benchmark, 10)));
  if (!aggregate_only.empty())
    in.notes.push_back(
        fmt::format("{} benchmark{} only aggregate rows, not compared ({}): rerun without "
                    "--benchmark_report_aggregates_only",
                    aggregate_only.size(), aggregate_only.size() == 1 ? " has" : "s have", join_names(aggregate_only)));
  if (!errors.names.empty()) in.notes.push_back(errors.note("reported an error (error_occurred)"));
  if (!skipped.names.empty()) in.notes.push_back(skipped.note("skipped itself (SkipWithMessage)"));
  if (complexity > 0)
    in.notes.push_back(
        fmt::format("{} complexity fit row{} (BigO, RMS) not compared: they summarise arguments, "
                    "not repetitions",
                    complexity, complexity == 1 ? "" : "s"));
  return out;
}

}  // namespace nw::compare
