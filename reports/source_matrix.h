// SPDX-License-Identifier: Apache-2.0
// Per-repetition series of every noise source, aligned on the measured runs: the input of
// attribution, pattern detection and the charts.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "record/run_record.h"
#include "sources/vocabulary.h"

namespace nw::report {

// What the source names mean is the vocabulary's (src/sources/): the report engine reads it.
using sources::Group;
using sources::Kind;

struct SourceSeries {
  std::string name;
  Kind kind = Kind::time;
  std::vector<double> time_ns;  // per measured run; 0 where the source did not occur
  std::vector<double> count;    // per measured run
  // An overlap source (smt, sources::is_overlap): its time per run is when the benchmark ran beside
  // it, not time taken from it. It is the regressor of the fitted slowdown (kind count, time_ns 0).
  std::vector<double> overlap_ns;
  // What the fit regresses the remainder on: the overlap time, else the count.
  const std::vector<double>& regressor() const { return overlap_ns.empty() ? count : overlap_ns; }
  double max_ns = 0;                                 // longest single event over the measured runs
  bool major_faults = false;                         // `fault` only: some measured run had a major fault
  nlohmann::json detail = nlohmann::json::object();  // e.g. {"pid": 42}, {"irq": 24}
};

struct RunMatrix {
  std::vector<int> run_index;         // RunSample::index of each measured run
  std::vector<double> wall_ns;        // T_i
  std::vector<SourceSeries> sources;  // time-valued sources first, then count-valued
  bool frequency_modelled = false;    // "frequency" was derived from mean_khz (see sources.cpp)
  // CPUs the benchmark ran on. A source's time is thread time: on several CPUs it adds up over
  // them (two copies of a process holding two of its CPUs for 10 ms is 20 ms), so the most a
  // source can take in a run is wall x cpus.
  double cpus = 1;
  size_t runs() const { return wall_ns.size(); }
};

RunMatrix collect_sources(const RunRecord& rec);

}  // namespace nw::report
