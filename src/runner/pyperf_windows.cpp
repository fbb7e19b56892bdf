// SPDX-License-Identifier: Apache-2.0
#include "runner/pyperf_windows.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <map>

#include <fmt/format.h>

#include "common/errors.h"
#include "common/files.h"
#include "compare/input_text.h"

namespace nw::runner {

using nlohmann::json;

std::optional<PyperfOutput> pyperf_output_in_command(const std::vector<std::string>& command) {
  std::optional<PyperfOutput> out;
  // The last one given is the one argparse keeps.
  for (size_t i = 1; i < command.size(); ++i) {
    const std::string& a = command[i];
    if (a == "-o" || a == "--output" || a == "--append") {
      if (i + 1 < command.size()) out = PyperfOutput{command[i + 1], a, a == "--append"};
      ++i;
    } else if (a.starts_with("--output=") || a.starts_with("--append=")) {
      out = PyperfOutput{a.substr(9), a.substr(0, 8), a.starts_with("--append")};
    } else if (a.starts_with("-o") && a.size() > 2) {  // argparse's -oFILE
      out = PyperfOutput{a.substr(2), "-o", false};
    }
  }
  return out;
}

namespace {

const json& metadata_of(const json& scope) {
  static const json none = json::object();
  auto it = scope.find("metadata");
  return it != scope.end() && it->is_object() ? *it : none;
}

// A metadata key as pyperf reads it: the run's own, else its benchmark's, else the file's.
const json* lookup(const char* key, std::initializer_list<const json*> scopes) {
  for (const json* s : scopes) {
    const json& md = metadata_of(*s);
    if (auto it = md.find(key); it != md.end() && !it->is_null()) return &*it;
  }
  return nullptr;
}

}  // namespace

std::vector<PyperfRun> pyperf_runs(const json& suite) {
  if (!suite.is_object() || !suite.contains("benchmarks") || !suite["benchmarks"].is_array())
    throw Error("not pyperf's JSON (no \"benchmarks\" list)");
  std::vector<PyperfRun> out;
  const auto& benches = suite["benchmarks"];
  for (size_t b = 0; b < benches.size(); ++b) {
    const json& bench = benches[b];
    if (!bench.is_object() || !bench.contains("runs") || !bench["runs"].is_array())
      throw Error(fmt::format("not pyperf's JSON (benchmarks[{}] has no \"runs\" list)", b));
    for (const json& run : bench["runs"]) {
      if (!run.is_object()) throw Error(fmt::format("not pyperf's JSON (a run of benchmarks[{}] is not an object)", b));
      PyperfRun r;
      const json* name = lookup("name", {&run, &bench, &suite});
      if (!name || !name->is_string() || name->get<std::string>().empty())
        throw Error(fmt::format("not pyperf's JSON (benchmarks[{}] has no metadata \"name\")", b));
      r.benchmark = name->get<std::string>();
      auto values = run.find("values");
      r.calibration = values == run.end() || !values->is_array() || values->empty();
      if (const json* d = lookup("duration", {&run, &bench, &suite});
          d && d->is_number() && std::isfinite(d->get<double>()) && d->get<double>() >= 0)
        r.duration_ns = uint64_t(std::llround(d->get<double>() * 1e9));
      if (const json* d = lookup("date", {&run, &bench, &suite}); d && d->is_string()) r.date = d->get<std::string>();
      out.push_back(std::move(r));
    }
  }
  return out;
}

std::vector<PyperfRun> pyperf_new_runs(const std::vector<PyperfRun>& before, const std::vector<PyperfRun>& after) {
  std::map<std::string, size_t> had;
  for (const auto& r : before) ++had[r.benchmark];
  std::vector<PyperfRun> out;
  for (const auto& r : after) {
    auto it = had.find(r.benchmark);
    if (it != had.end() && it->second > 0) {
      --it->second;
      continue;
    }
    out.push_back(r);
  }
  const bool dated = std::all_of(out.begin(), out.end(), [](const PyperfRun& r) { return !r.date.empty(); });
  // pyperf's dates ("YYYY-MM-DD HH:MM:SS.ffffff", local time) order as text.
  if (dated)
    std::stable_sort(out.begin(), out.end(), [](const PyperfRun& a, const PyperfRun& b) { return a.date < b.date; });
  return out;
}

bool name_pyperf_windows(std::vector<probes::WindowMark>& windows, const std::vector<PyperfRun>& runs) {
  if (windows.size() != runs.size()) return false;
  for (size_t k = 0; k < runs.size(); ++k) {
    windows[k].text_label = runs[k].benchmark;
    windows[k].label.reset();
    windows[k].harness_warmup = runs[k].calibration;
    windows[k].harness_duration_ns = runs[k].duration_ns;
  }
  return true;
}

std::optional<std::vector<PyperfRun>> read_pyperf_runs(const std::string& path) {
  auto bytes = try_read_file(path);
  if (!bytes) {
    if (errno == ENOENT) return std::nullopt;
    throw Error(fmt::format("cannot read it: {}", std::strerror(errno)));
  }
  return pyperf_runs(compare::parse_json_allowing_nonfinite(compare::decode_input_bytes(*bytes, path), path));
}

void PyperfNaming::before() {
  before_.clear();
  before_error_.clear();
  if (!out_) return;
  try {
    before_ = read_pyperf_runs(out_->path).value_or(std::vector<PyperfRun>{});
  } catch (const std::exception& e) {
    before_error_ = e.what();
  }
}

void PyperfNaming::name(std::vector<probes::WindowMark>& windows, std::vector<std::string>& warnings,
                        int process_run) const {
  const int pr = process_run + 1;
  if (!out_) {
    warnings.push_back(fmt::format(
        "process run {}: --windows pyperf found no -o FILE or --append FILE in the command: its {} worker window(s) "
        "are labelled with the program's name, not the benchmark's, and have no harness_duration_ns (give pyperf "
        "-o FILE to have them named)",
        pr, windows.size()));
    return;
  }
  auto keep = [&](const std::string& why) {
    warnings.push_back(
        fmt::format("process run {}: --windows pyperf could not pair its {} worker window(s) with "
                    "pyperf's runs in {} ({}): they keep the program's name and have no "
                    "harness_duration_ns",
                    pr, windows.size(), out_->path, why));
  };
  if (!before_error_.empty()) return keep("before the run: " + before_error_);
  std::optional<std::vector<PyperfRun>> after;
  try {
    after = read_pyperf_runs(out_->path);
  } catch (const std::exception& e) {
    return keep(e.what());
  }
  if (!after) return keep("pyperf did not write it");
  const auto runs = pyperf_new_runs(before_, *after);
  if (!name_pyperf_windows(windows, runs))
    return keep(fmt::format("the process run added {} run(s) to it: pyperf adds one per worker", runs.size()));
  // pyperf's clock runs inside the worker, so within the window: a window shorter than its run
  // means the pairing is wrong (another program wrote the file meanwhile?).
  size_t shorter = 0;
  for (const auto& w : windows)
    if (w.harness_duration_ns && w.end_ns >= w.begin_ns && w.end_ns - w.begin_ns < *w.harness_duration_ns) ++shorter;
  if (shorter)
    warnings.push_back(
        fmt::format("process run {}: {} of the {} worker windows are shorter than the duration pyperf "
                    "measured inside them in {}: was it written by another process meanwhile?",
                    pr, shorter, windows.size(), out_->path));
}

}  // namespace nw::runner
