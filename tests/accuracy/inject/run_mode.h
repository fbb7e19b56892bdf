// SPDX-License-Identifier: Apache-2.0
// Run mode: starts the command (normally `noisewatch run ... -- BENCHMARK`), follows the
// benchmark's repetitions through the pidfile it writes, injects the scenario's noise in the
// chosen repetitions, and logs the ground truth of every repetition as JSON lines.
#pragma once
#include <string>
#include <vector>

#include "tests/accuracy/inject/scenarios.h"

namespace nw::inject {

struct RunOptions {
  const Scenario* scenario = nullptr;
  int cpu = -1, other_cpu = -1, warmup = 1, moves = 6, move_ms = 20, period_us = 20, io_threads = 6;
  std::string pidfile, truth, pattern = "alternate", irq = "virtio1-req.0", dir = "/var/tmp";
  std::vector<int> sleep_ms = {100, 200, 300, 400};
  std::vector<std::string> command;
};

// Returns the command's exit status as the shell reports it (128+N for signal N).
int run_mode(RunOptions o);

}  // namespace nw::inject
