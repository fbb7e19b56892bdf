// SPDX-License-Identifier: Apache-2.0
// smt-off, c-states: nothing shares the benchmark's core, and its CPU wakes up fast.
#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "knobs/families.h"
#include "knobs/render.h"
#include "system/cpulist.h"
#include "system/sysroot.h"

namespace nw::knobs::family {

namespace {

std::string cpu_dir(int cpu) { return fmt::format("/sys/devices/system/cpu/cpu{}", cpu); }

bool contains(const std::vector<int>& v, int x) { return std::find(v.begin(), v.end(), x) != v.end(); }

}  // namespace

Plan plan_smt(const sys::Sysroot& root, const Targets& t) {
  Plan p;
  std::vector<int> siblings, stuck;
  bool topology = false;
  for (int c : t.cpus) {
    auto text = root.read_line(cpu_dir(c) + "/topology/thread_siblings_list");
    if (!text) continue;
    topology = true;
    std::vector<int> list;
    try {
      list = sys::parse_cpulist(*text);
    } catch (const std::invalid_argument&) {
      continue;
    }
    for (int s : list)
      if (s != c && !contains(t.cpus, s) && !contains(siblings, s)) siblings.push_back(s);
  }
  std::sort(siblings.begin(), siblings.end());
  if (!topology) {
    p.absent = fmt::format("CPU {} has no topology/thread_siblings_list", sys::format_cpulist(t.cpus));
    return p;
  }
  if (siblings.empty()) {
    p.absent = fmt::format("no SMT sibling: nothing shares a core with CPU {}", sys::format_cpulist(t.cpus));
    return p;
  }
  for (int s : siblings) {
    // CPU 0 usually cannot go offline (no `online` file).
    if (root.exists(cpu_dir(s) + "/online")) p.writes.push_back({cpu_dir(s) + "/online", "0\n", Format::text});
    else stuck.push_back(s);
  }
  if (!stuck.empty())
    p.note = fmt::format(
        "CPU {} cannot be taken offline (no online file): pick a benchmark CPU whose sibling can, "
        "or boot with nosmt",
        sys::format_cpulist(stuck));
  if (p.writes.empty()) p.absent = p.note;
  return p;
}

Plan plan_idle_states(const sys::Sysroot& root, const Targets& t) {
  Plan p;
  std::vector<int> without;
  for (int c : t.cpus) {
    std::string dir = cpu_dir(c) + "/cpuidle";
    auto states = root.list_dir(dir);
    bool any = false;
    for (const auto& s : states) {
      if (s.rfind("state", 0) != 0) continue;
      auto latency = root.read_int(dir + "/" + s + "/latency");
      if (!latency || !root.exists(dir + "/" + s + "/disable")) continue;
      any = true;
      if (*latency > kDeepIdleLatencyUs) p.writes.push_back({dir + "/" + s + "/disable", "1\n", Format::text});
    }
    if (!any) without.push_back(c);
  }
  if (without.size() == t.cpus.size()) {
    p.absent = fmt::format(
        "no cpuidle states for CPU {}: the idle driver exposes none (a VM's haltpoll, or "
        "cpuidle off)",
        sys::format_cpulist(t.cpus));
  } else if (p.writes.empty()) {
    p.note = fmt::format("no idle state with exit latency above {} us", kDeepIdleLatencyUs);
  }
  return p;
}

Commands cmd_smt(const Context& c) {
  std::string machine =
      render::write(c, "off", "/sys/devices/system/cpu/smt/control") + "   # or every sibling of the machine";
  if (!c.siblings.empty())
    return {render::write(c, "0", render::cpu_path(c.siblings, "online")) + "   # the benchmark CPUs' siblings",
            machine};
  return {fmt::format("cat {}   # the siblings; then for each sibling S that is not a benchmark CPU:",
                      render::cpu_path(c.cpus, "topology/thread_siblings_list")),
          render::write(c, "0", "/sys/devices/system/cpu/cpuS/online"), machine};
}

Commands cmd_idle_states(const Context& c) {
  return {
      fmt::format("for s in {}; do [ $(cat $s/latency) -gt {} ] && {}; done",
                  render::cpu_path(c.cpus, "cpuidle/state*"), kDeepIdleLatencyUs, render::write(c, "1", "$s/disable")),
      render::priv(c, fmt::format("cpupower idle-set -D {}", kDeepIdleLatencyUs + 1)) +
          "   # or for every CPU of the machine"};
}

}  // namespace nw::knobs::family
