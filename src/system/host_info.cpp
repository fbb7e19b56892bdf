// SPDX-License-Identifier: Apache-2.0
#include "system/host_info.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "common/files.h"
#include "system/cgroup.h"
#include "system/cgroup_limits.h"
#include "system/container.h"
#include "system/cpulist.h"

namespace nw::sys {

static std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

HostInfo read_host_info(const std::string& root) {
  HostInfo h;
  if (root.empty()) {
    struct utsname u {};
    if (uname(&u) == 0) {
      h.hostname = u.nodename;
      h.kernel = u.release;
    }
  } else {
    h.hostname = first_line(read_file(root + "/proc/sys/kernel/hostname"));
    h.kernel = first_line(read_file(root + "/proc/sys/kernel/osrelease"));
    if (h.kernel.empty()) {
      // /proc/version: "Linux version 6.8.0-... (...)"
      std::istringstream v(read_file(root + "/proc/version"));
      std::string a, b, rel;
      if (v >> a >> b >> rel) h.kernel = rel;
    }
  }
  std::istringstream cpuinfo(read_file(root + "/proc/cpuinfo"));
  std::string line;
  while (std::getline(cpuinfo, line)) {
    auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = line.substr(0, line.find_last_not_of(" \t", colon - 1) + 1);
    std::string val = colon + 2 <= line.size() ? line.substr(colon + 2) : "";
    if (key == "model name" && h.cpu_model.empty()) h.cpu_model = val;
    if (key == "flags" && (" " + val + " ").find(" hypervisor ") != std::string::npos) h.virtualized = true;
  }
  h.online_cpus = int(read_online_cpus(root).value_or(std::vector<int>{}).size());
  if (h.online_cpus == 0 && root.empty()) h.online_cpus = int(sysconf(_SC_NPROCESSORS_ONLN));
  Sysroot sysroot(root);
  if (auto cg = cpu_cgroup_of(sysroot)) {
    CgroupInfo info;
    info.version = cg->version;
    info.path = cg->path;
    if (auto q = quota_group(sysroot, *cg)) {
      info.quota_path = q->group.path;
      info.quota_us = q->quota.quota_us;
      info.period_us = q->quota.period_us;
    }
    info.weight = read_cpu_weight(sysroot, *cg);
    h.cgroup = info;
  }
  h.container = read_container_info(sysroot);
  return h;
}

std::optional<ContainerInfo> read_container_info(const Sysroot& root) {
  auto guess = detect_container(root);
  auto cpuset = read_cpuset(root);
  auto memory = read_memory_limit(root);
  if (!guess && !cpuset && !memory) return std::nullopt;
  ContainerInfo c;
  if (guess) {
    c.detected = guess->detected;
    c.runtime = guess->runtime;
    c.evidence = guess->evidence;
  }
  if (cpuset) {
    c.cpuset_path = cpuset->group.path;
    c.cpuset_cpus = cpuset->cpus;
  }
  if (memory) {
    c.memory_path = memory->group.path;
    c.memory_limit_bytes = memory->limit_bytes;
    c.memory_usage_bytes = memory->usage_bytes;
  }
  return c;
}

}  // namespace nw::sys
