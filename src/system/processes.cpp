// SPDX-License-Identifier: Apache-2.0
#include "system/processes.h"

#include <unistd.h>

#include <cctype>
#include <sstream>

#include "system/cpulist.h"
#include "system/sysroot.h"

namespace nw::sys {

std::optional<ProcessInfo> parse_proc_stat(const std::string& line, double uptime_s, long ticks_per_s) {
  auto open = line.find('(');
  auto close = line.rfind(')');
  if (open == std::string::npos || close == std::string::npos || close < open) return std::nullopt;
  ProcessInfo p;
  try {
    p.pid = std::stoi(line.substr(0, open));
  } catch (const std::exception&) {
    return std::nullopt;
  }
  p.comm = line.substr(open + 1, close - open - 1);
  std::istringstream rest(line.substr(close + 1));
  std::vector<std::string> f;  // f[0] is field 3 (state)
  std::string tok;
  while (rest >> tok) f.push_back(tok);
  if (f.size() < 20) return std::nullopt;
  p.state = f[0].empty() ? '?' : f[0][0];
  try {
    // Fields 14/15 are utime/stime and 22 starttime, all in clock ticks.
    double utime = std::stod(f[11]), stime = std::stod(f[12]), start = std::stod(f[19]);
    p.cpu_seconds = (utime + stime) / double(ticks_per_s);
    if (uptime_s > 0) p.age_seconds = uptime_s - start / double(ticks_per_s);
    if (p.age_seconds < 0) p.age_seconds = 0;
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (f.size() >= 39) {  // fields 40 rt_priority and 41 policy (Linux 2.5.19 on)
    try {
      p.rt_priority = std::stoi(f[37]);
      p.policy = std::stoi(f[38]);
    } catch (const std::exception&) {
      p.rt_priority = 0, p.policy = -1;
    }
  }
  return p;
}

std::vector<ProcessInfo> read_processes(const Sysroot& root) {
  std::vector<ProcessInfo> out;
  double uptime = 0;
  if (auto up = root.read_line("/proc/uptime")) {
    try {
      uptime = std::stod(*up);
    } catch (const std::exception&) {
    }
  }
  long ticks = sysconf(_SC_CLK_TCK);
  if (ticks <= 0) ticks = 100;
  // Our own process would always look busy (it is reading /proc right now).
  std::string self = root.live() ? std::to_string(getpid()) : "";
  for (const auto& name : root.list_dir("/proc")) {
    if (name.empty() || !std::isdigit(static_cast<unsigned char>(name[0])) || name == self) continue;
    auto stat = root.read_line("/proc/" + name + "/stat");
    if (!stat) continue;  // the process exited meanwhile
    if (auto p = parse_proc_stat(*stat, uptime, ticks)) out.push_back(*p);
  }
  return out;
}

std::optional<std::vector<int>> allowed_cpus_of(const Sysroot& root, int pid) {
  auto status = root.read("/proc/" + std::to_string(pid) + "/status");
  if (!status) return std::nullopt;
  std::istringstream in(*status);
  for (std::string line; std::getline(in, line);) {
    if (!line.starts_with("Cpus_allowed_list:")) continue;
    try {
      return parse_cpulist(line.substr(line.find(':') + 1));
    } catch (const std::exception&) {
      return std::nullopt;
    }
  }
  return std::nullopt;
}

}  // namespace nw::sys
