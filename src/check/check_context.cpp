// SPDX-License-Identifier: Apache-2.0
#include "check/check_context.h"

#include <algorithm>

#include <fmt/format.h>

#include "common/errors.h"
#include "system/cpu_selection.h"
#include "system/cpulist.h"

namespace nw::check {

namespace {

std::optional<std::vector<int>> read_isolated(const sys::Sysroot& root,
                                              const std::optional<sys::KernelCmdline>& cmdline) {
  std::optional<std::vector<int>> result;
  if (auto line = root.read_line("/sys/devices/system/cpu/isolated")) {
    try {
      result = sys::parse_cpulist(*line);
    } catch (const std::exception&) {
    }
  }
  if (cmdline) {
    if (auto iso = cmdline->isolcpus()) {
      std::vector<int> merged = result.value_or(std::vector<int>{});
      merged.insert(merged.end(), iso->begin(), iso->end());
      std::sort(merged.begin(), merged.end());
      merged.erase(std::unique(merged.begin(), merged.end()), merged.end());
      result = merged;
    } else if (!result) {
      result = std::vector<int>{};
    }
  }
  return result;
}

}  // namespace

std::vector<int> parse_cpu_option(const std::string& text) {
  try {
    auto cpus = sys::parse_cpulist(text);
    if (cpus.empty()) throw std::invalid_argument("empty");
    return cpus;
  } catch (const std::exception&) {
    throw Error(fmt::format("--cpu '{}' is not a CPU list; give CPUs like 2 or 2-3,6", text));
  }
}

CheckContext make_context(const sys::Sysroot& root, const std::optional<std::vector<int>>& cpus) {
  CheckContext ctx{root, {}, {}, sys::read_topology(root), sys::read_kernel_cmdline(root), std::nullopt, {}, {}};
  ctx.isolated = read_isolated(root, ctx.cmdline);
  ctx.available = sys::cpu_availability(ctx.topo.online, root.live() ? sys::read_may_take() : std::nullopt);
  ctx.targets = sys::select_cpus(ctx.available, cpus, ctx.isolated.value_or(std::vector<int>{})).cpus;
  if (ctx.targets.empty())
    throw Error(root.live() ? "cannot read the online CPUs from /sys/devices/system/cpu/online; is /sys mounted?"
                            : fmt::format("{} has no sys/devices/system/cpu/online; point --sysroot at a "
                                          "directory made by `noisewatch snapshot`",
                                          root.root()));
  return ctx;
}

}  // namespace nw::check
