// SPDX-License-Identifier: Apache-2.0
// irq-affinity, irqbalance: device interrupts that may land on the benchmark's CPUs.
#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "check/rule_helpers.h"
#include "check/rules.h"
#include "knobs/catalogue.h"
#include "system/cpulist.h"
#include "system/interrupts.h"
#include "system/processes.h"

namespace nw::check {

namespace {

std::optional<std::vector<int>> irq_affinity(const sys::Sysroot& root, int irq) {
  std::string dir = fmt::format("/proc/irq/{}", irq);
  try {
    if (auto list = root.read_line(dir + "/smp_affinity_list")) return sys::parse_cpulist(*list);
    if (auto mask = root.read_line(dir + "/smp_affinity")) return sys::parse_cpumask(*mask);
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

}  // namespace

Finding check_irq_affinity(const CheckContext& ctx) {
  auto text = ctx.root.read("/proc/interrupts");
  if (!text) return make_finding("irq-affinity", Status::unknown, ctx.targets, "/proc/interrupts is not readable");
  auto table = sys::parse_interrupts(*text);
  nlohmann::json landing = nlohmann::json::array();
  std::vector<int> hit_cpus;
  std::vector<std::string> items;
  int readable = 0;
  for (const auto& line : table.lines) {
    if (!line.device) continue;
    auto aff = irq_affinity(ctx.root, line.irq);
    if (!aff) continue;
    ++readable;
    std::vector<int> on_targets;
    for (int c : ctx.targets)
      if (std::binary_search(aff->begin(), aff->end(), c)) on_targets.push_back(c);
    if (on_targets.empty()) continue;
    uint64_t total = 0, on_target_count = 0;
    for (int c : table.cpus) total += table.count(line, c);
    for (int c : on_targets) on_target_count += table.count(line, c);
    hit_cpus.insert(hit_cpus.end(), on_targets.begin(), on_targets.end());
    std::string name = line.name.empty() ? "irq" + line.id : line.name;
    items.push_back(
        fmt::format("{} {} ({} on CPU {}, {} total)", line.irq, name, on_target_count, cpus_text(on_targets), total));
    landing.push_back({{"irq", line.irq},
                       {"name", name},
                       {"smp_affinity_list", sys::format_cpulist(*aff)},
                       {"count_on_targets", on_target_count},
                       {"count_total", total}});
  }
  if (readable == 0)
    return make_finding("irq-affinity", Status::unknown, ctx.targets,
                        "no /proc/irq/N/smp_affinity_list readable for the device IRQs of /proc/interrupts");
  std::sort(hit_cpus.begin(), hit_cpus.end());
  hit_cpus.erase(std::unique(hit_cpus.begin(), hit_cpus.end()), hit_cpus.end());
  if (items.empty())
    return make_finding("irq-affinity", Status::ok, ctx.targets,
                        fmt::format("none of {} device IRQs may land on CPU {}", readable, cpus_text(ctx.targets)));
  std::string summary =
      fmt::format("{} of {} device IRQs may land on CPU {}: ", items.size(), readable, cpus_text(hit_cpus));
  const size_t shown = 5;
  for (size_t i = 0; i < items.size() && i < shown; ++i) summary += (i ? ", " : "") + items[i];
  if (items.size() > shown) summary += fmt::format(", and {} more", items.size() - shown);
  auto hk = others(ctx.topo.online, ctx.targets);
  std::vector<std::string> fix;
  if (hk.empty()) {
    fix.push_back(fmt::format("# every online CPU is a target: leave one CPU out of --cpu for the IRQs"));
  } else {
    auto kc = fix_context(ctx, ctx.targets);
    for (const auto& l : landing) kc.irqs.push_back(l["irq"].get<int>());
    fix = knobs::fix_for_finding("irq-affinity", kc);
  }
  auto f = make_finding("irq-affinity", Status::warn, hit_cpus, summary, fix);
  f.detail = {{"irqs", landing}};
  return f;
}

Finding check_irqbalance(const CheckContext& ctx) {
  auto procs = sys::read_processes(ctx.root);
  if (procs.empty()) return make_finding("irqbalance", Status::unknown, ctx.targets, "no process readable under /proc");
  std::vector<int> pids;
  for (const auto& p : procs)
    if (p.comm == "irqbalance") pids.push_back(p.pid);
  if (pids.empty())
    return make_finding("irqbalance", Status::ok, ctx.targets,
                        fmt::format("irqbalance is not running ({} processes seen)", procs.size()));
  return make_finding("irqbalance", Status::warn, ctx.targets,
                      fmt::format("irqbalance runs (pid {}): it moves device IRQs onto any CPU, undoing IRQ affinity",
                                  fmt::join(pids, ", ")),
                      knobs::fix_for_finding("irqbalance", fix_context(ctx, ctx.targets)));
}

}  // namespace nw::check
