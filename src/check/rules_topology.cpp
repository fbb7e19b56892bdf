// SPDX-License-Identifier: Apache-2.0
// smt, hybrid-cpu: what shares the benchmark's core, and whether all cores are alike.
#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "check/rule_helpers.h"
#include "check/rules.h"
#include "knobs/catalogue.h"
#include "system/cpulist.h"

namespace nw::check {

namespace {

bool cpuinfo_has_flag(const sys::Sysroot& root, const std::string& flag, bool* readable) {
  auto text = root.read("/proc/cpuinfo");
  *readable = text.has_value();
  if (!text) return false;
  size_t pos = 0;
  while ((pos = text->find("\nflags", pos)) != std::string::npos) {
    auto end = text->find('\n', pos + 1);
    // Appended piecewise: GCC 12 warns (-Wrestrict, a false positive) on " " + s + " " here.
    std::string line(1, ' '), word(1, ' ');
    line.append(*text, pos + 1, end - pos - 1).push_back(' ');
    word.append(flag).push_back(' ');
    if (line.find(word) != std::string::npos) return true;
    pos = end;
  }
  return false;
}

// "P-core, capacity 1024, max 4600 MHz"
std::string describe_kind(const sys::CpuKind& k) {
  std::vector<std::string> attrs;
  attrs.push_back(k.name.empty() ? "core kind " + std::to_string(k.efficiency) : k.name);
  if (k.capacity) attrs.push_back(fmt::format("capacity {}", *k.capacity));
  if (k.max_mhz) attrs.push_back(fmt::format("max {} MHz", *k.max_mhz));
  return fmt::format("{}", fmt::join(attrs, ", "));
}

}  // namespace

Finding check_smt(const CheckContext& ctx) {
  const auto& topo = ctx.topo;
  if (topo.smt_active && !*topo.smt_active)
    return make_finding("smt", Status::ok, ctx.targets, "SMT is off (smt/active=0)");
  if (topo.siblings.empty())
    return make_finding("smt", Status::unknown, ctx.targets, "CPU topology not readable (no cpuN/topology)");
  std::vector<int> shared;
  std::vector<std::string> pairs;
  auto kc = fix_context(ctx, ctx.targets);
  for (int c : ctx.targets) {
    auto it = topo.siblings.find(c);
    if (it == topo.siblings.end() || it->second.empty()) continue;
    shared.push_back(c);
    pairs.push_back(fmt::format("CPU {} shares its core with CPU {}", c, cpus_text(it->second)));
    for (int s : it->second)
      if (std::find(ctx.targets.begin(), ctx.targets.end(), s) == ctx.targets.end()) kc.siblings.push_back(s);
  }
  std::string state = topo.smt_active ? "smt/active=1" : "SMT state unknown";
  if (shared.empty())
    return make_finding("smt", Status::ok, ctx.targets, fmt::format("no target CPU has an SMT sibling ({})", state));
  std::sort(kc.siblings.begin(), kc.siblings.end());
  kc.siblings.erase(std::unique(kc.siblings.begin(), kc.siblings.end()), kc.siblings.end());
  return make_finding("smt", Status::warn, shared,
                      fmt::format("{} ({}): the sibling's work slows the benchmark", fmt::join(pairs, "; "), state),
                      knobs::fix_for_finding("smt", kc));
}

Finding check_hybrid_cpu(const CheckContext& ctx) {
  const auto& kinds = ctx.topo.kinds;
  if (kinds.size() > 1) {
    const auto& fastest = kinds.back();
    std::vector<std::string> target_kinds;
    std::vector<int> slow_targets;
    for (const auto& k : kinds) {
      std::vector<int> mine;
      for (int c : ctx.targets)
        if (std::find(k.cpus.begin(), k.cpus.end(), c) != k.cpus.end()) mine.push_back(c);
      if (mine.empty()) continue;
      target_kinds.push_back(fmt::format("CPU {}: {}", cpus_text(mine), describe_kind(k)));
      if (&k != &fastest) slow_targets.insert(slow_targets.end(), mine.begin(), mine.end());
    }
    std::vector<std::string> all_kinds;
    for (auto it = kinds.rbegin(); it != kinds.rend(); ++it)
      all_kinds.push_back(fmt::format("{} {}", cpus_text(it->cpus), describe_kind(*it)));
    std::string summary =
        fmt::format("{} core kinds: {}; the fastest CPUs are {} (kinds: {})", kinds.size(),
                    fmt::join(target_kinds, "; "), cpus_text(fastest.cpus), fmt::join(all_kinds, "; "));
    if (target_kinds.size() > 1) summary += "; the targets span several kinds, so timings depend on where it runs";
    // Keep a target that is already on the fastest kind; otherwise the last of the fastest CPUs.
    int pick = fastest.cpus.back();
    for (int c : ctx.targets)
      if (std::find(fastest.cpus.begin(), fastest.cpus.end(), c) != fastest.cpus.end()) pick = c;
    std::vector<std::string> fix = {fmt::format("# pin to one kind, the fastest: CPU {}", pick)};
    for (auto& line : knobs::commands(knobs::get("pin-cpu"), fix_context(ctx, {pick}))) fix.push_back(std::move(line));
    auto f = make_finding("hybrid-cpu", Status::warn, ctx.targets, summary, fix);
    nlohmann::json detail = nlohmann::json::array();
    for (const auto& k : kinds)
      detail.push_back(
          {{"cpus", k.cpus}, {"kind", k.name}, {"capacity", k.capacity ? nlohmann::json(*k.capacity) : nullptr}});
    f.detail = {{"kinds", detail}};
    return f;
  }
  bool cpuinfo_readable = false;
  bool flag = cpuinfo_has_flag(ctx.root, "hybrid_cpu", &cpuinfo_readable);
  bool pmus = ctx.root.exists("/sys/devices/cpu_core") && ctx.root.exists("/sys/devices/cpu_atom");
  if (flag || pmus)
    return make_finding("hybrid-cpu", Status::warn, ctx.targets,
                        fmt::format("the kernel reports a hybrid CPU ({}) but not which CPU is which kind; "
                                    "pin to one CPU and keep it for comparisons",
                                    flag ? "hybrid_cpu flag" : "cpu_core and cpu_atom PMUs"));
  if (!cpuinfo_readable && kinds.empty())
    return make_finding("hybrid-cpu", Status::unknown, ctx.targets,
                        "neither /proc/cpuinfo nor the CPU topology is readable");
  return make_finding(
      "hybrid-cpu", Status::ok, ctx.targets,
      kinds.size() == 1 ? fmt::format("one core kind on CPU {} ({})", cpus_text(kinds[0].cpus), describe_kind(kinds[0]))
                        : "no sign of different core kinds (cpu_capacity, hybrid PMUs, hybrid_cpu flag)");
}

}  // namespace nw::check
