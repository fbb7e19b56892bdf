// SPDX-License-Identifier: Apache-2.0
#include "runner/steal.h"

#include <unistd.h>

#include <algorithm>
#include <sstream>

#include "common/files.h"

namespace nw::runner {

uint64_t read_steal_ns(const std::vector<int>& cpus, const std::string& text) {
  static const long hz = sysconf(_SC_CLK_TCK) > 0 ? sysconf(_SC_CLK_TCK) : 100;
  std::istringstream in(text);
  std::string line;
  uint64_t ticks = 0;
  while (std::getline(in, line)) {
    if (line.rfind("cpu", 0) != 0 || line.size() < 4 || !isdigit(static_cast<unsigned char>(line[3]))) continue;
    std::istringstream ls(line);
    std::string name;
    ls >> name;
    int cpu = std::stoi(name.substr(3));
    if (std::find(cpus.begin(), cpus.end(), cpu) == cpus.end()) continue;
    uint64_t v[8] = {};
    for (auto& x : v) ls >> x;  // user nice system idle iowait irq softirq steal
    ticks += v[7];
  }
  return ticks * (1'000'000'000ull / uint64_t(hz));
}

uint64_t read_steal_ns(const std::vector<int>& cpus) { return read_steal_ns(cpus, read_file("/proc/stat")); }

}  // namespace nw::runner
