// SPDX-License-Identifier: Apache-2.0
#include "system/cgroup.h"

#include <sys/stat.h>

#include <filesystem>
#include <sstream>

#include "common/files.h"

namespace fs = std::filesystem;

namespace nw::sys {

namespace {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string part;
  std::istringstream in(s);
  while (std::getline(in, part, sep)) out.push_back(part);
  return out;
}

bool has_word(const std::string& list, const std::string& word, char sep) {
  for (const auto& w : split(list, sep))
    if (w == word) return true;
  return false;
}

struct Mount {
  std::string root, point;
};

// The controller's mount: v1's hierarchy that has it among its super options, else the cgroup2
// mount when its root lists the controller.
std::optional<Mount> find_mount(const Sysroot& root, const std::string& controller, int version) {
  auto text = root.read("/proc/self/mountinfo");
  if (!text) return std::nullopt;
  std::istringstream in(*text);
  std::string line;
  while (std::getline(in, line)) {
    auto dash = line.find(" - ");
    if (dash == std::string::npos) continue;
    std::istringstream head(line.substr(0, dash)), tail(line.substr(dash + 3));
    std::string id, parent, dev, mroot, point, fstype, source, super;
    if (!(head >> id >> parent >> dev >> mroot >> point) || !(tail >> fstype >> source >> super)) continue;
    if (version == 1 && fstype == "cgroup" && has_word(super, controller, ',')) return Mount{mroot, point};
    if (version == 2 && fstype == "cgroup2") {
      auto controllers = root.read_line(point + "/cgroup.controllers");
      if (controllers && has_word(*controllers, controller, ' ')) return Mount{mroot, point};
    }
  }
  return std::nullopt;
}

// The process's path in the v1 hierarchy holding `controller`, or in the v2 hierarchy.
std::optional<std::string> proc_path(const Sysroot& root, const std::string& controller, const std::string& pid,
                                     int version) {
  auto text = root.read("/proc/" + pid + "/cgroup");
  if (!text) return std::nullopt;
  std::istringstream in(*text);
  std::string line;
  while (std::getline(in, line)) {
    auto c1 = line.find(':'), c2 = line.find(':', c1 + 1);
    if (c1 == std::string::npos || c2 == std::string::npos) continue;
    std::string controllers = line.substr(c1 + 1, c2 - c1 - 1), path = line.substr(c2 + 1);
    if (version == 1 && has_word(controllers, controller, ',')) return path;
    if (version == 2 && line.substr(0, c1) == "0" && controllers.empty()) return path;
  }
  return std::nullopt;
}

std::string join(const std::string& mount, const std::string& mount_root, const std::string& path) {
  // Inside a cgroup namespace the mount shows a subtree and /proc says paths relative to it.
  std::string rel = path;
  if (mount_root != "/" && rel.rfind(mount_root, 0) == 0) rel = rel.substr(mount_root.size());
  if (rel.empty() || rel == "/") return mount;
  return mount + (rel.front() == '/' ? "" : "/") + rel;
}

std::string parent_path(const std::string& path) {
  auto slash = path.find_last_of('/');
  if (slash == std::string::npos || slash == 0) return "/";
  return path.substr(0, slash);
}

std::string stat_file(const CpuCgroup& cg) { return cg.dir + "/cpu.stat"; }

}  // namespace

std::optional<CpuCgroup> cpu_cgroup_of(const Sysroot& root, const std::string& pid) {
  return controller_cgroup_of(root, "cpu", pid);
}

std::optional<CpuCgroup> controller_cgroup_of(const Sysroot& root, const std::string& controller,
                                              const std::string& pid) {
  for (int version : {1, 2}) {
    auto mount = find_mount(root, controller, version);
    if (!mount) continue;
    auto path = proc_path(root, controller, pid, version);
    if (!path) continue;
    CpuCgroup cg;
    cg.version = version;
    cg.path = *path;
    cg.mount = mount->point;
    cg.mount_root = mount->root;
    cg.dir = join(mount->point, mount->root, *path);
    return cg;
  }
  return std::nullopt;
}

ThrottleStat parse_throttle_stat(const std::string& text) {
  ThrottleStat s;
  std::istringstream in(text);
  std::string key;
  uint64_t value = 0;
  while (in >> key >> value) {
    if (key == "nr_periods") s.nr_periods = value;
    else if (key == "nr_throttled") s.nr_throttled = value;
    else if (key == "throttled_time") s.throttled_ns = value;         // v1: ns
    else if (key == "throttled_usec") s.throttled_ns = value * 1000;  // v2: us
  }
  return s;
}

std::optional<CpuQuota> parse_cpu_max(const std::string& text) {
  std::istringstream in(text);
  std::string quota;
  int64_t period = 0;
  if (!(in >> quota >> period) || period <= 0) return std::nullopt;
  CpuQuota q;
  q.period_us = period;
  if (quota != "max") {
    try {
      q.quota_us = std::stoll(quota);
    } catch (const std::exception&) {
      return std::nullopt;
    }
  }
  return q;
}

std::optional<CpuQuota> read_cpu_quota(const Sysroot& root, const CpuCgroup& cg) {
  // The Sysroot reads machine paths; the group's directory is one already (under the root).
  if (cg.version == 2) {
    auto text = root.read(cg.dir + "/cpu.max");
    return text ? parse_cpu_max(*text) : std::nullopt;
  }
  auto quota = root.read_int(cg.dir + "/cpu.cfs_quota_us");
  auto period = root.read_int(cg.dir + "/cpu.cfs_period_us");
  if (!quota || !period || *period <= 0) return std::nullopt;
  CpuQuota q;
  q.period_us = *period;
  if (*quota >= 0) q.quota_us = *quota;
  return q;
}

std::optional<ThrottleStat> read_throttle_stat(const Sysroot& root, const CpuCgroup& cg) {
  auto text = root.read(stat_file(cg));
  if (!text) return std::nullopt;
  return parse_throttle_stat(*text);
}

std::optional<ThrottleStat> read_throttle_stat_now(const CpuCgroup& cg) {
  std::string text = read_file(stat_file(cg));
  if (text.empty()) return std::nullopt;
  return parse_throttle_stat(text);
}

std::vector<CpuCgroup> self_and_ancestors(const CpuCgroup& cg) {
  std::vector<CpuCgroup> out{cg};
  CpuCgroup at = cg;
  // Up to the mount's visible root: above it nothing is readable from here.
  while (at.path != "/" && at.path != at.mount_root && !at.path.empty()) {
    at.path = parent_path(at.path);
    at.dir = join(at.mount, at.mount_root, at.path);
    out.push_back(at);
    if (at.dir == at.mount) break;
  }
  return out;
}

std::optional<QuotaGroup> quota_group(const Sysroot& root, const CpuCgroup& cg) {
  for (const auto& g : self_and_ancestors(cg)) {
    auto q = read_cpu_quota(root, g);
    if (q && q->quota_us) return QuotaGroup{g, *q};
  }
  return std::nullopt;
}

std::optional<std::string> cgroup_path_of_id(const CpuCgroup& like, uint32_t id) {
  std::error_code ec;
  auto matches = [&](const fs::path& p) {
    struct stat st {};
    return ::stat(p.c_str(), &st) == 0 && uint32_t(st.st_ino) == id;
  };
  auto relative = [&](const fs::path& p) {
    std::string rel = p.string().substr(like.mount.size());
    std::string base = like.mount_root == "/" ? "" : like.mount_root;
    return base + (rel.empty() ? "/" : rel);
  };
  // The benchmark's own group and its ancestors first: almost always one of them.
  for (const auto& g : self_and_ancestors(like))
    if (matches(g.dir)) return relative(g.dir);
  if (matches(like.mount)) return relative(like.mount);
  for (fs::recursive_directory_iterator it(like.mount, fs::directory_options::skip_permission_denied, ec), end;
       !ec && it != end; it.increment(ec)) {
    if (it.depth() > 16) it.disable_recursion_pending();
    if (it->is_directory(ec) && matches(it->path())) return relative(it->path());
  }
  return std::nullopt;
}

}  // namespace nw::sys
