// SPDX-License-Identifier: Apache-2.0
// Hypervisor steal time of chosen CPUs, from /proc/stat (USER_HZ ticks, so 10 ms granularity
// with the usual USER_HZ of 100: short runs show 0 unless the host took whole ticks).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace nw::runner {

// Sum of the steal column of the `cpuN` lines for the given CPUs, in ns. nullopt-free: 0 when
// the file or the column is missing.
uint64_t read_steal_ns(const std::vector<int>& cpus, const std::string& proc_stat_text);
uint64_t read_steal_ns(const std::vector<int>& cpus);

}  // namespace nw::runner
