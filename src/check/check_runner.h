// SPDX-License-Identifier: Apache-2.0
// `noisewatch check` without its command line: read the configuration, measure the CPUs, rank.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "check/cpu_noise.h"
#include "check/finding.h"
#include "system/sysroot.h"

namespace nw::check {

struct CheckOptions {
  std::optional<std::vector<int>> cpus;  // nullopt: the allowed isolated CPUs if any, else all allowed
  double duration_s = 5;                 // live noise measurement in total; 0 skips it
  uint64_t threshold_ns = 1000;
  int policy = 0, priority = 0;  // of the probe threads (NoiseOptions)
  bool attribute = true;         // attribute gaps with the eBPF probe when available
  size_t top_sources = 5;        // sources listed per CPU (their total is always given)
};

// Reads every input through `root`; the live measurement runs only when root.live().
CheckReport run_check(const sys::Sysroot& root, const CheckOptions& opts);

struct MeasuredChoice {
  CpuChoice choice;
  std::vector<CpuNoise> measured;
};

// For `run --cpu auto`: measures `candidates` (every CPU this process may use when empty) on the live machine,
// all at once for `seconds`, and picks one by recommend_cpu(). Throws nw::Error.
MeasuredChoice choose_quiet_cpu(const std::vector<int>& candidates, double seconds, const NoiseOptions& opts = {});

}  // namespace nw::check
