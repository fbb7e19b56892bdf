// SPDX-License-Identifier: Apache-2.0
// pyperf JSON (python -m pyperf ... -o FILE): benchmarks[].runs[].values, in seconds per loop.
// The first runs are often calibration runs with warmups only: they carry no values and are skipped.
// Each run's metadata `duration` (the worker's whole run, pyperf_measures.h) is kept beside.
// pyperf records wall time only (no CPU time); its metadata describes the machine.
#include <cmath>
#include <optional>

#include <fmt/format.h>

#include "common/errors.h"
#include "compare/input.h"

namespace nw::compare {

using nlohmann::json;

namespace {

// Benchmark metadata overrides the file's common metadata, as in pyperf itself.
std::string metadata_string(const json& bench, const json& file, const char* key) {
  for (const json* scope : {&bench, &file}) {
    auto md = scope->find("metadata");
    if (md == scope->end() || !md->is_object()) continue;
    auto it = md->find(key);
    if (it != md->end() && it->is_string()) return it->get<std::string>();
  }
  return {};
}

// A run's number metadata as pyperf reads it: the run's own, else its benchmark's, else the file's
// (pyperf moves what every run shares up a level).
std::optional<double> metadata_number(const json& run, const json& bench, const json& file, const char* key) {
  for (const json* scope : {&run, &bench, &file}) {
    auto md = scope->find("metadata");
    if (md == scope->end() || !md->is_object()) continue;
    auto it = md->find(key);
    if (it != md->end() && it->is_number()) return it->get<double>();
  }
  return std::nullopt;
}

// The machine as pyperf describes it in the file's common metadata.
void read_host(const json& j, InputFile& in) {
  auto md = j.find("metadata");
  if (md == j.end() || !md->is_object()) return;
  for (const char* key : {"hostname", "cpu_model_name", "cpu_count", "cpu_config", "platform", "aslr"}) {
    auto it = md->find(key);
    if (it == md->end() || it->is_null()) continue;
    in.host.push_back({key, it->is_string() ? it->get<std::string>() : it->dump()});
  }
}

}  // namespace

std::vector<Benchmark> parse_pyperf(const json& j, InputFile& in) {
  const json& benches = j.at("benchmarks");
  read_host(j, in);
  std::vector<Benchmark> out;
  for (size_t i = 0; i < benches.size(); ++i) {
    const json& b = benches[i];
    std::string where = fmt::format("benchmarks[{}]", i);
    if (!b.is_object()) throw Error(where + " is not an object");
    std::string name = metadata_string(b, j, "name");
    if (name.empty()) throw Error(where + " has no metadata \"name\"");
    std::string unit = metadata_string(b, j, "unit");
    if (!unit.empty() && unit != "second")
      throw Error(fmt::format("benchmark \"{}\" measures {}, not time", name, unit));
    auto runs = b.find("runs");
    if (runs == b.end() || !runs->is_array()) throw Error(where + " has no \"runs\" array");
    Benchmark out_b;
    out_b.name = name;
    std::vector<std::optional<double>> durations;
    for (size_t r = 0; r < runs->size(); ++r) {
      const json& run = (*runs)[r];
      if (!run.is_object()) throw Error(fmt::format("{}.runs[{}] is not an object", where, r));
      auto values = run.find("values");
      if (values == run.end()) continue;
      if (!values->is_array()) throw Error(fmt::format("{}.runs[{}].values is not an array", where, r));
      if (values->empty()) continue;
      durations.push_back(metadata_number(run, b, j, "duration"));
      for (size_t k = 0; k < values->size(); ++k) {
        std::string at = fmt::format("{}.runs[{}].values[{}]", where, r, k);
        if (!(*values)[k].is_number()) throw Error(at + " is not a number");
        out_b.times_ns.push_back(checked_time_ns((*values)[k].get<double>(), 1e9, at));
      }
    }
    if (out_b.times_ns.empty())
      throw Error(fmt::format("benchmark \"{}\" has no run with values (only calibration/warmups)", name));
    // A run without a usable duration (an older pyperf, an edited file): then none at all.
    for (const auto& d : durations) {
      if (!d || !(*d > 0) || !std::isfinite(*d)) {
        out_b.run_durations_ns.clear();
        break;
      }
      out_b.run_durations_ns.push_back(*d * 1e9);
    }
    out.push_back(std::move(out_b));
  }
  return out;
}

}  // namespace nw::compare
