// SPDX-License-Identifier: Apache-2.0
// The evidence a noise entry carries about its source (NoiseEntry::detail in the record), typed:
// the one place that knows its JSON keys. The probe names the task or IRQ of each event, the
// runner merges a repetition's events, the report merges the runs and names pids and IRQs in its
// advice; all of them read and write the detail through this struct. The record keeps the JSON as
// read, so a newer version's keys survive a re-render (`other`).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace nw {

struct MigrationPath {
  int from = 0, to = 0;
  uint64_t count = 0;
  bool operator==(const MigrationPath&) const = default;
};

// How late the timers that ended a source's sleeps fired (hrtimers, where measured).
struct TimerLate {
  uint64_t count = 0, time_ns = 0, max_ns = 0;
  bool operator==(const TimerLate&) const = default;
};

struct SourceDetail {
  std::vector<int> cpus;                // the CPUs its time was charged on
  std::vector<uint64_t> per_cpu_ns;     // on several CPUs: each one's part (each bounded by the wall time)
  std::optional<int64_t> pid;           // its task (preemption, contention, a wait's waker), the first of several
  std::vector<int64_t> pids;            // every task, when there were several (over runs: always)
  std::optional<int> irq;               // its IRQ number (irq:, blocking:io:)
  std::optional<int64_t> cgroup_id;     // throttle: the group whose quota ran out
  std::optional<int> from, to;          // one migration event's CPUs (the probe's)
  std::vector<MigrationPath> paths;     // a repetition's migrations by path
  std::optional<TimerLate> timer_late;  // blocking:sleep
  bool timer_late_event = false;        // a probe event that is such lateness, not sleep time
  bool irq_thread_event = false;        // a probe event: the IRQ's handler thread ran, not its hard handler
  std::optional<uint64_t> threaded_count,
      threaded_ns;                       // irq: how much of it ran in its thread (PREEMPT_RT, threadirqs)
  std::optional<uint64_t> minor, major;  // fault: getrusage's counts
  std::string origin;                    // steal: where it was read ("/proc/stat", "steal_ns"); "from" in JSON
  std::optional<double> reference_khz;   // frequency: the clock the report compares each run's with
  nlohmann::json parts;                  // blocking: its parts, noise entries as the record writes them
  nlohmann::json other = nlohmann::json::object();  // keys this version does not know, as read

  // A record's detail (null, or an object); a key of the wrong type is kept in `other`, unread.
  static SourceDetail from_json(const nlohmann::json& j);
  // The object the record writes ({} when there is nothing to say).
  nlohmann::json to_json() const;

  // Folds another run's detail of the same source into this one (the report's view over runs):
  // every pid is collected in `pids`; one event's CPUs and a run's paths are no property of the
  // source and are dropped; any other value is the first run's.
  void merge_run(const SourceDetail& run);
};

}  // namespace nw
