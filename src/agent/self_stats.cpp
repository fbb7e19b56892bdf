// SPDX-License-Identifier: Apache-2.0
#include "agent/self_stats.h"

#include <sys/resource.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace nw::agent {

SelfStats read_self_stats(double start_time_unix) {
  SelfStats s;
  s.start_time_unix = start_time_unix;
  rusage ru{};
  if (getrusage(RUSAGE_SELF, &ru) == 0)
    s.cpu_seconds =
        double(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + double(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
  std::ifstream statm("/proc/self/statm");
  uint64_t size = 0, resident = 0;
  if (statm >> size >> resident) s.resident_bytes = resident * uint64_t(sysconf(_SC_PAGESIZE));
  std::error_code ec;
  for (auto it = std::filesystem::directory_iterator("/proc/self/fd", ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec))
    ++s.open_fds;
  if (s.open_fds) --s.open_fds;  // the descriptor of the listing itself
  return s;
}

}  // namespace nw::agent
