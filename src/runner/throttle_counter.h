// SPDX-License-Identifier: Apache-2.0
// The kernel's own count of the time the benchmark's CPU quota throttled it (the quota group's
// cpu.stat), read around each repetition: the cross-check of the probe's throttle: charge.
#pragma once
#include <cstdint>
#include <optional>

#include "system/cgroup.h"

namespace nw::runner {

class ThrottleCounter {
 public:
  // Finds noisewatch's own group (the benchmark inherits it) and the quota above it; inert when
  // there is none.
  ThrottleCounter();
  void start();
  // The throttled time since start(), nullopt without a quota or when cpu.stat is unreadable.
  std::optional<uint64_t> elapsed() const;

 private:
  std::optional<sys::CpuCgroup> group_;
  std::optional<sys::ThrottleStat> at_start_;
};

}  // namespace nw::runner
