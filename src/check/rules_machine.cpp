// SPDX-License-Identifier: Apache-2.0
// virtualization, load: the machine around the benchmark — a hypervisor, other work.
#include <unistd.h>

#include <algorithm>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "check/rule_helpers.h"
#include "check/rules.h"
#include "knobs/catalogue.h"
#include "system/processes.h"

namespace nw::check {

namespace {

// Share of time stolen by the hypervisor since boot, from a /proc/stat "cpu..." line.
std::optional<double> steal_share(const std::string& stat, const std::string& label) {
  std::istringstream in(stat);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string name;
    ls >> name;
    if (name != label) continue;
    std::vector<double> v;
    double x;
    while (ls >> x) v.push_back(x);
    if (v.size() < 8) return std::nullopt;
    double total = 0;
    for (size_t i = 0; i < 8; ++i) total += v[i];  // guest time is already in user
    return total > 0 ? v[7] / total : 0.0;
  }
  return std::nullopt;
}

}  // namespace

Finding check_virtualization(const CheckContext& ctx) {
  auto cpuinfo = ctx.root.read("/proc/cpuinfo");
  if (!cpuinfo) return make_finding("virtualization", Status::unknown, ctx.targets, "/proc/cpuinfo is not readable");
  bool hypervisor = false;
  std::istringstream in(*cpuinfo);
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("flags", 0) == 0 && (" " + line + " ").find(" hypervisor ") != std::string::npos) hypervisor = true;
  if (!hypervisor)
    return make_finding("virtualization", Status::ok, ctx.targets, "bare metal (no hypervisor flag in /proc/cpuinfo)");
  std::string steal = "steal time unknown (/proc/stat not readable)";
  nlohmann::json detail = nlohmann::json::object();
  if (auto stat = ctx.root.read("/proc/stat")) {
    auto all = steal_share(*stat, "cpu");
    std::vector<std::string> per_cpu;
    for (int c : ctx.targets)
      if (auto s = steal_share(*stat, "cpu" + std::to_string(c))) {
        per_cpu.push_back(fmt::format("CPU {} {:.2f}%", c, *s * 100));
        detail["steal_share"][std::to_string(c)] = *s;
      }
    if (all)
      steal = fmt::format("steal time since boot {:.2f}% of all CPU time ({})", *all * 100, fmt::join(per_cpu, ", "));
  }
  auto f = make_finding("virtualization", Status::warn, ctx.targets,
                        fmt::format("running under a hypervisor: vCPUs can be descheduled by the host, and the "
                                    "host's other guests share caches and memory bandwidth; {}",
                                    steal),
                        {"# benchmark on bare metal, or on dedicated hosts with pinned vCPUs"});
  f.detail = detail;
  return f;
}

Finding check_load(const CheckContext& ctx) {
  auto line = ctx.root.read_line("/proc/loadavg");
  double l1 = 0, l5 = 0, l15 = 0;
  if (!line || std::sscanf(line->c_str(), "%lf %lf %lf", &l1, &l5, &l15) != 3)
    return make_finding("load", Status::unknown, ctx.targets, "/proc/loadavg is not readable");
  std::string loads = fmt::format("load average {:.2f} {:.2f} {:.2f}", l1, l5, l15);
  if (l1 < 1.0) return make_finding("load", Status::ok, ctx.targets, loads + " (1, 5, 15 min)");
  auto procs = sys::read_processes(ctx.root);
  // Busiest: what is running now first, then the highest average CPU share since start.
  std::stable_sort(procs.begin(), procs.end(), [](const sys::ProcessInfo& a, const sys::ProcessInfo& b) {
    bool ra = a.state == 'R', rb = b.state == 'R';
    if (ra != rb) return ra;
    return a.cpu_share() > b.cpu_share();
  });
  std::vector<std::string> busiest;
  nlohmann::json detail = nlohmann::json::array();
  auto kc = fix_context(ctx, ctx.targets);  // stop-process: which service each busy pid is
  for (const auto& p : procs) {
    if (busiest.size() == 5) break;
    if (p.state != 'R' && p.cpu_share() < 0.01) break;
    if (!ctx.root.live() || p.pid != getpid()) kc.pids.push_back(p.pid);  // not this check itself
    busiest.push_back(fmt::format("{} (pid {}, {}{:.0f}% CPU since start)", p.comm, p.pid,
                                  p.state == 'R' ? "running, " : "", p.cpu_share() * 100));
    detail.push_back(
        {{"pid", p.pid}, {"comm", p.comm}, {"state", std::string(1, p.state)}, {"cpu_share", p.cpu_share()}});
  }
  std::string who = busiest.empty() ? "no busy process visible" : fmt::format("busiest: {}", fmt::join(busiest, ", "));
  std::vector<std::string> fix = {"# stop or move the other work (top -o %CPU), then check again"};
  for (auto& line : knobs::fix_for_finding("load", kc)) fix.push_back(std::move(line));
  auto f = make_finding("load", Status::warn, ctx.targets,
                        fmt::format("{} (1 min >= 1.0: other work competes for CPUs and caches); {}", loads, who), fix);
  f.detail = {{"busiest", detail}};
  return f;
}

}  // namespace nw::check
