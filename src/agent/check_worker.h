// SPDX-License-Identifier: Apache-2.0
// Re-runs the configuration checks of `noisewatch check` on a background thread, so a slow
// read of /sys never delays a scrape. The live noise measurement of `check` (a spinning thread
// per CPU) is never run here: the agent's eBPF counters replace it at a fraction of the cost.
#pragma once
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "agent/agent_metrics.h"

namespace nw::agent {

class CheckWorker {
 public:
  // cpus: the CPUs the checks are about (nullopt: what `check` picks by default). The thread
  // runs at `nice` (19: checks are housekeeping, anything else on the machine goes first).
  CheckWorker(std::optional<std::vector<int>> cpus, std::chrono::milliseconds interval, int nice = 19);
  ~CheckWorker();
  CheckWorker(const CheckWorker&) = delete;
  CheckWorker& operator=(const CheckWorker&) = delete;

  // One run on the calling thread; lets nw::Error through (e.g. a --cpu that is not online), so
  // that the agent refuses to start rather than serve checks about the wrong CPUs.
  void run_once();
  // Re-runs every interval until stop() or destruction; errors are counted, not thrown.
  void start();
  void stop();

  CheckState state() const;
  // The noisewatch.check/1 document of the last successful run; "" before it.
  std::string json() const;

 private:
  void run_and_record(bool rethrow);

  std::optional<std::vector<int>> cpus_;
  std::chrono::milliseconds interval_;
  int nice_;
  mutable std::mutex mu_;
  std::condition_variable_any wake_;
  CheckState state_;
  std::string json_;
  std::jthread thread_;
};

}  // namespace nw::agent
