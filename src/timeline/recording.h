// SPDX-License-Identifier: Apache-2.0
// What --timeline records: noise events above a threshold with their times, and the benchmark's
// process runs and windows, all on CLOCK_MONOTONIC. Written out as Chrome trace-event JSON
// (trace_writer.h) and summarised into the run record (summary.h).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace nw::timeline {

struct Event {
  uint64_t start_ns = 0, dur_ns = 0;
  int cpu = 0;
  std::string source;  // as in the record: "preemption:nw_hog", "irq:local_timer", ...
  int64_t pid = -1;    // the task that ran instead (preemption, contention), else -1
  int process_run = -1;
  uint32_t window = 0;  // 0 outside any window, k + 1 in window k (--windows)
};

// A process run, or a window within one.
struct Span {
  uint64_t start_ns = 0, end_ns = 0;
  int process_run = 0;
  std::optional<int> window;  // set for a window
  std::string label;          // a window's label, if it has one
  bool warmup = false;
  int entry = -1;  // its index in the record's runs[] (-1: none, e.g. a process run with windows)
};

struct Recording {
  uint64_t threshold_ns = 0;
  std::vector<Event> events;
  std::vector<Span> spans;
  uint64_t dropped_rate = 0;  // over the kernel's per-CPU rate bound
  uint64_t dropped_full = 0;  // the ring buffer was full
  uint64_t dropped_cap = 0;   // past what noisewatch keeps in memory for one run
};

}  // namespace nw::timeline
