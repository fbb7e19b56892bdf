// SPDX-License-Identifier: Apache-2.0
// The CPU controller's view of a process: which cgroup it is in, that group's CPU quota, and the
// kernel's own count of the time the quota kept it from running (cpu.stat). cgroup v1 (the `cpu`
// controller's own hierarchy) and v2 (the unified hierarchy, when it holds the cpu controller)
// read the same way through a Sysroot, so `check --sysroot` and the tests' fixture trees see what
// the live machine sees.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "system/sysroot.h"

namespace nw::sys {

// A cgroup of one controller's hierarchy (named for its first use, the CPU controller).
struct CpuCgroup {
  int version = 0;         // 1 or 2
  std::string path;        // in the hierarchy, as /proc/PID/cgroup says it ("/", "/docker/ab12")
  std::string dir;         // its directory on the live file system ("/sys/fs/cgroup/cpu/docker/ab12")
  std::string mount;       // the hierarchy's mount point (dir = mount + path below the mount's root)
  std::string mount_root;  // the part of the hierarchy the mount shows ("/" unless in a cgroup namespace)
};

// A group's CPU bandwidth limit. quota_us: nullopt when unlimited ("-1", "max").
struct CpuQuota {
  std::optional<int64_t> quota_us;
  int64_t period_us = 100000;
  double cpus() const { return quota_us ? double(*quota_us) / double(period_us) : 0.0; }
};

// The kernel's bandwidth statistics of a group (cpu.stat): periods, periods throttled, and the
// time its runqueues spent throttled (v1 throttled_time in ns, v2 throttled_usec).
struct ThrottleStat {
  uint64_t nr_periods = 0, nr_throttled = 0, throttled_ns = 0;
};

// The cpu-controller cgroup of process `pid` ("self" for this one), or nullopt when the
// controller is not mounted or the process's line is missing.
std::optional<CpuCgroup> cpu_cgroup_of(const Sysroot& root, const std::string& pid = "self");
// The same for any controller ("cpuset", "memory"): v1's hierarchy holding it, else the v2
// hierarchy when its root lists it in cgroup.controllers.
std::optional<CpuCgroup> controller_cgroup_of(const Sysroot& root, const std::string& controller,
                                              const std::string& pid = "self");

// The group's quota (v1 cpu.cfs_quota_us + cpu.cfs_period_us; v2 cpu.max), nullopt when the
// files are absent (the root group, or a controller without CFS bandwidth).
std::optional<CpuQuota> read_cpu_quota(const Sysroot& root, const CpuCgroup& cg);
std::optional<ThrottleStat> read_throttle_stat(const Sysroot& root, const CpuCgroup& cg);
// The same, read afresh from the live file system (a Sysroot keeps the first reading of a file;
// the runner reads cpu.stat before and after every repetition).
std::optional<ThrottleStat> read_throttle_stat_now(const CpuCgroup& cg);

// The group itself and its ancestors up to the hierarchy's visible root, innermost first.
std::vector<CpuCgroup> self_and_ancestors(const CpuCgroup& cg);
// The innermost of those with a CPU quota (the group whose quota throttles the process first),
// with that quota (always limited: quota_us set).
struct QuotaGroup {
  CpuCgroup group;
  CpuQuota quota;
};
std::optional<QuotaGroup> quota_group(const Sysroot& root, const CpuCgroup& cg);

// The path of the group whose kernfs id (its directory's inode number on the cgroup fs; the probe
// reports the low 32 bits) is `id`, searched in the hierarchy `like` belongs to; nullopt when
// none matches (the group was removed, or lies outside this mount's view).
std::optional<std::string> cgroup_path_of_id(const CpuCgroup& like, uint32_t id);

// Parses cpu.stat text (either version's keys).
ThrottleStat parse_throttle_stat(const std::string& text);
// Parses v2 cpu.max ("max 100000", "50000 100000").
std::optional<CpuQuota> parse_cpu_max(const std::string& text);

}  // namespace nw::sys
