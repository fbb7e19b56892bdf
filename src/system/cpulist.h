// SPDX-License-Identifier: Apache-2.0
// The kernel's CPU list syntax ("0-3,5,7-8"), used by sysfs, /proc/irq and kernel parameters.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nw::sys {

// Throws std::invalid_argument on malformed input. The result is sorted and unique.
std::vector<int> parse_cpulist(std::string_view text);
// Compact form: {0,1,2,5} -> "0-2,5".
std::string format_cpulist(const std::vector<int>& cpus);
// A hex mask as in /proc/irq/N/smp_affinity ("ff,ffffffff") to a CPU list.
std::vector<int> parse_cpumask(std::string_view hex);
// The online CPUs (/sys/devices/system/cpu/online under `root`, "" = this machine); nullopt
// when the file is missing or malformed.
std::optional<std::vector<int>> read_online_cpus(const std::string& root = "");
// A CPU list as a hex mask in the kernel's format: {0,1} -> "3", 36 CPUs -> "f,ffffffff".
std::string format_cpumask(const std::vector<int>& cpus);

}  // namespace nw::sys
