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
  std::optional<std::vector<int>> cpus;  // nullopt: the isolated CPUs if any, else all online
  double duration_s = 5;                 // live noise measurement in total; 0 skips it
  uint64_t threshold_ns = 1000;
  int policy = 0, priority = 0;          // of the probe threads (NoiseOptions)
  bool attribute = true;                 // attribute gaps with the eBPF probe when available
};

// Reads every input through `root`; the live measurement runs only when root.live().
CheckReport run_check(const sys::Sysroot& root, const CheckOptions& opts);

// For `run --cpu auto`: measures `candidates` (all online CPUs when empty) on the live machine
// and returns the quietest non-housekeeping one with a one-line reason. Throws nw::Error.
CpuChoice choose_quiet_cpu(const std::vector<int>& candidates, double seconds_total, const NoiseOptions& opts = {});

}  // namespace nw::check
