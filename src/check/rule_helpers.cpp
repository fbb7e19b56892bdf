// SPDX-License-Identifier: Apache-2.0
#include "check/rule_helpers.h"

#include <algorithm>

#include <fmt/format.h>

#include "knobs/catalogue.h"
#include "system/cpulist.h"

namespace nw::check {

std::string cpus_text(const std::vector<int>& cpus) { return cpus.empty() ? "none" : sys::format_cpulist(cpus); }

std::string cpu_dir(int cpu) { return fmt::format("/sys/devices/system/cpu/cpu{}", cpu); }

knobs::Context fix_context(const CheckContext& ctx, std::vector<int> cpus) {
  knobs::Context c;
  c.cpus = std::move(cpus);
  c.online = ctx.topo.online;
  c.sudo = true;
  return c;
}

std::vector<std::string> boot_fix(const CheckContext& ctx, std::string_view finding, const std::vector<int>& already) {
  std::vector<int> cpus = ctx.targets;
  cpus.insert(cpus.end(), already.begin(), already.end());
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  return knobs::fix_for_finding(finding, fix_context(ctx, std::move(cpus)));
}

std::vector<int> uncovered(const std::vector<int>& targets, const std::vector<int>& covered) {
  std::vector<int> out;
  for (int c : targets)
    if (std::find(covered.begin(), covered.end(), c) == covered.end()) out.push_back(c);
  return out;
}

std::vector<int> others(const std::vector<int>& online, const std::vector<int>& targets) {
  return uncovered(online, targets);
}

Finding make_finding(std::string id, Status status, std::vector<int> cpus, std::string summary,
                     std::vector<std::string> fix) {
  Finding f;
  f.id = std::move(id);
  f.status = status;
  f.cpus = std::move(cpus);
  f.summary = std::move(summary);
  f.fix = std::move(fix);
  return f;
}

}  // namespace nw::check
