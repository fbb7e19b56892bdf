// SPDX-License-Identifier: Apache-2.0
// Kernel tunables under /proc/sys, by their sysctl name ("kernel.randomize_va_space").
#pragma once
#include <optional>
#include <string>

namespace nw::sys {

class Sysroot;

std::string sysctl_path(const std::string& name);  // "kernel.x" -> "/proc/sys/kernel/x"
std::optional<long long> read_sysctl_int(const Sysroot& root, const std::string& name);

}  // namespace nw::sys
