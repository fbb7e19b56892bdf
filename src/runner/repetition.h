// SPDX-License-Identifier: Apache-2.0
// Runs one held child to completion on a Boost.Asio loop: child exit (pidfd), forwarded
// SIGINT/SIGTERM, and a wall-clock window from release to exit.
#pragma once
#include <sys/resource.h>

#include <utility>  // Boost 1.74 asio/awaitable.hpp uses std::exchange without it

#include <boost/asio.hpp>
#include <cstdint>
#include <functional>
#include <optional>

#include "runner/held_child.h"

namespace nw::runner {

struct ChildResult {
  uint64_t wall_ns = 0;
  uint64_t start_ns = 0;  // CLOCK_MONOTONIC at the release (the timeline places runs with it)
  rusage usage{};
  int exit_status = 0;  // shell convention: 128+N when killed by signal N
  std::optional<int> signal;
  int forwarded_signal = 0;  // SIGINT/SIGTERM noisewatch received and passed on, if any
};

// When a repetition ended: `exited`, the process's own end (its last thread's last switch, the
// probe's; 0: unknown), where it lies after the release (`start`); else `woke`, when noisewatch woke
// on the exit. noisewatch can wake late (throttled by the benchmark's CPU quota, kept off its CPU)
// or early (its pidfd reads as exited just before that last switch, which the CPU time counts).
uint64_t wall_end(uint64_t start, uint64_t woke, uint64_t exited);

class Repetition {
 public:
  // `signals` is the loop's signal_set for SIGINT/SIGTERM, shared across repetitions so a signal
  // between repetitions is not lost.
  Repetition(boost::asio::io_context& io, boost::asio::signal_set& signals);
  // `exit_clock`: when the child's process ended (see wall_end), asked once it has.
  ChildResult run(HeldChild& child, const std::function<uint64_t()>& exit_clock = {});

 private:
  boost::asio::io_context& io_;
  boost::asio::signal_set& signals_;
};

}  // namespace nw::runner
