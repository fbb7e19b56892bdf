// SPDX-License-Identifier: Apache-2.0
// The run record's compact summary of a --timeline recording: enough for the HTML report to draw
// the process runs and windows with the noise on them, without the trace file. Times are
// offsets from the start of the span's process run.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace nw {

struct TimelineCount {
  uint64_t count = 0, time_ns = 0;
};

// A process run (window empty) or one of its windows, with the timeline's events in it per source.
struct TimelineSpan {
  int process_run = 0;
  std::optional<int> window;
  std::optional<int> run;  // its entry in runs[], if it has one
  uint64_t start_ns = 0, end_ns = 0;
  bool warmup = false;
  std::map<std::string, TimelineCount> events;
};

// One of the longest events, where it happened.
struct TimelineMarkSummary {
  int process_run = 0;
  uint64_t at_ns = 0, dur_ns = 0;
  std::string source;
  int cpu = 0;
};

struct TimelineSummary {
  std::string file;
  uint64_t threshold_ns = 0;
  uint64_t events = 0;
  uint64_t dropped_rate = 0, dropped_full = 0, dropped_memory = 0;
  std::vector<TimelineSpan> spans;
  std::vector<TimelineMarkSummary> marks;

  uint64_t dropped() const { return dropped_rate + dropped_full + dropped_memory; }
};

nlohmann::json timeline_to_json(const TimelineSummary& t);
// Throws std::runtime_error naming the field when the JSON is malformed.
TimelineSummary timeline_from_json(const nlohmann::json& j);

}  // namespace nw
