// SPDX-License-Identifier: Apache-2.0
// CLOCK_MONOTONIC in ns: the clock bpf_ktime_get_ns() reads, so user-space timestamps can be
// compared with the ones the probes store.
#pragma once
#include <time.h>

#include <cstdint>

namespace nw::sys {

inline uint64_t timespec_ns(const timespec& ts) {
  return uint64_t(ts.tv_sec) * 1'000'000'000ull + uint64_t(ts.tv_nsec);
}

inline uint64_t monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return timespec_ns(ts);
}

}  // namespace nw::sys
