// SPDX-License-Identifier: Apache-2.0
#include "system/sysctl.h"

#include <algorithm>

#include "system/sysroot.h"

namespace nw::sys {

std::string sysctl_path(const std::string& name) {
  std::string p = name;
  std::replace(p.begin(), p.end(), '.', '/');
  return "/proc/sys/" + p;
}

std::optional<long long> read_sysctl_int(const Sysroot& root, const std::string& name) {
  return root.read_int(sysctl_path(name));
}

}  // namespace nw::sys
