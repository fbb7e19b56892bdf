// SPDX-License-Identifier: Apache-2.0
// What the --windows gbench end-to-end tests read from Google Benchmark's own JSON output and
// from noisewatch's record.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace nw::e2e {

// GBench's time for a whole repetition: real_time is per iteration, in time_unit, and over all the
// threads' iterations of their mean timer (benchmark_runner.cc): real_time x iterations.
inline double gbench_total_ns(const nlohmann::json& b) {
  const std::string unit = b.value("time_unit", std::string("ns"));
  const double scale = unit == "ns" ? 1 : unit == "us" ? 1e3 : unit == "ms" ? 1e6 : 1e9;
  return b["real_time"].get<double>() * scale * b["iterations"].get<double>();
}

// The repetitions the library reported, in its order (no aggregates).
inline std::vector<nlohmann::json> gbench_repetitions(const nlohmann::json& out) {
  std::vector<nlohmann::json> reps;
  for (const auto& b : out["benchmarks"])
    if (b["run_type"] == "iteration") reps.push_back(b);
  return reps;
}

// The record's measured windows (not its warm-up ones), in order.
inline std::vector<nlohmann::json> measured(const nlohmann::json& rec) {
  std::vector<nlohmann::json> out;
  for (const auto& r : rec["runs"])
    if (!r["warmup"].get<bool>()) out.push_back(r);
  return out;
}

}  // namespace nw::e2e
