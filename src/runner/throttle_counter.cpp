// SPDX-License-Identifier: Apache-2.0
#include "runner/throttle_counter.h"

namespace nw::runner {

ThrottleCounter::ThrottleCounter() {
  sys::Sysroot live;
  if (auto own = sys::cpu_cgroup_of(live))
    if (auto q = sys::quota_group(live, *own)) group_ = q->group;
}

void ThrottleCounter::start() {
  if (group_) at_start_ = sys::read_throttle_stat_now(*group_);
}

std::optional<uint64_t> ThrottleCounter::elapsed() const {
  if (!group_ || !at_start_) return std::nullopt;
  auto now = sys::read_throttle_stat_now(*group_);
  if (!now || now->throttled_ns < at_start_->throttled_ns) return std::nullopt;
  return now->throttled_ns - at_start_->throttled_ns;
}

}  // namespace nw::runner
