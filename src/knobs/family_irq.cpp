// SPDX-License-Identifier: Apache-2.0
// irqbalance, irq-affinity, irq-default-affinity, workqueue-cpumask: device interrupts and
// deferred kernel work go to the housekeeping CPUs.
#include <algorithm>
#include <cctype>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "knobs/families.h"
#include "knobs/render.h"
#include "system/cpulist.h"
#include "system/processes.h"
#include "system/sysroot.h"

namespace nw::knobs::family {

namespace {

const char* kDefaultAffinity = "/proc/irq/default_smp_affinity";
const char* kWorkqueueMask = "/sys/devices/virtual/workqueue/cpumask";

std::string no_housekeeping(const Targets& t) {
  return fmt::format("every online CPU ({}) is a benchmark CPU: no CPU is left to take the work",
                     sys::format_cpulist(t.online));
}

bool numeric(const std::string& s) {
  return !s.empty() &&
         std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

// A single hex-mask file set to the housekeeping CPUs.
Plan plan_mask_file(const sys::Sysroot& root, const Targets& t, const char* path) {
  Plan p;
  if (!root.exists(path)) p.absent = fmt::format("no {} on this kernel", path);
  else if (t.housekeeping.empty()) p.absent = no_housekeeping(t);
  else p.writes.push_back({path, sys::format_cpumask(t.housekeeping) + "\n", Format::cpumask});
  return p;
}

}  // namespace

Plan plan_irqbalance(const sys::Sysroot& root, const Targets&) {
  Plan p;
  std::vector<int> pids;
  for (const auto& proc : sys::read_processes(root))
    if (proc.comm == "irqbalance") pids.push_back(proc.pid);
  if (pids.empty()) {
    p.note = "irqbalance is not running";
  } else {
    p.stop_services.push_back("irqbalance.service");
    p.note = fmt::format("irqbalance (pid {}) would move the IRQs back", fmt::join(pids, ", "));
  }
  return p;
}

Plan plan_irq_affinity(const sys::Sysroot& root, const Targets& t) {
  Plan p;
  if (t.housekeeping.empty()) {
    p.absent = no_housekeeping(t);
    return p;
  }
  std::string hk = sys::format_cpulist(t.housekeeping) + "\n";
  int irqs = 0;
  for (const auto& name : root.list_dir("/proc/irq")) {
    if (!numeric(name)) continue;
    std::string path = "/proc/irq/" + name + "/smp_affinity_list";
    auto list = root.read_line(path);
    if (!list) continue;
    ++irqs;
    std::vector<int> aff;
    try {
      aff = sys::parse_cpulist(*list);
    } catch (const std::invalid_argument&) {
      continue;
    }
    bool on_target = std::any_of(aff.begin(), aff.end(),
                                 [&](int c) { return std::find(t.cpus.begin(), t.cpus.end(), c) != t.cpus.end(); });
    if (!on_target) continue;
    std::string effective = "/proc/irq/" + name + "/effective_affinity_list";
    p.writes.push_back({path, hk, Format::cpulist, root.exists(effective) ? effective : ""});
  }
  if (irqs == 0) p.absent = "no /proc/irq/N/smp_affinity_list readable";
  else if (p.writes.empty())
    p.note = fmt::format("none of {} IRQs may land on CPU {}", irqs, sys::format_cpulist(t.cpus));
  return p;
}

Plan plan_irq_default_affinity(const sys::Sysroot& root, const Targets& t) {
  return plan_mask_file(root, t, kDefaultAffinity);
}

Plan plan_workqueue(const sys::Sysroot& root, const Targets& t) { return plan_mask_file(root, t, kWorkqueueMask); }

Commands cmd_irqbalance(const Context& c) {
  return {render::priv(c, "systemctl stop irqbalance") + "   # start it again afterwards",
          fmt::format("{} && {}   # or keep it, banned from the benchmark CPUs",
                      render::append(c, fmt::format("'IRQBALANCE_BANNED_CPULIST={}'", render::targets(c)),
                                     "/etc/default/irqbalance"),
                      render::priv(c, "systemctl restart irqbalance"))};
}

Commands cmd_irq_affinity(const Context& c) {
  std::string hk = render::housekeeping(c);
  if (!c.irqs.empty())
    return {fmt::format("for i in {}; do {}; done", fmt::join(c.irqs, " "),
                        render::write(c, hk, "/proc/irq/$i/smp_affinity_list"))};
  return {fmt::format("for i in /proc/irq/[0-9]*; do {}; done   # IRQs the kernel manages refuse (EIO)",
                      render::write(c, hk, "$i/smp_affinity_list"))};
}

Commands cmd_irq_default_affinity(const Context& c) {
  return {render::write(c, render::housekeeping_mask(c), kDefaultAffinity) + "   # IRQs set up from now on"};
}

Commands cmd_workqueue(const Context& c) { return {render::write(c, render::housekeeping_mask(c), kWorkqueueMask)}; }

}  // namespace nw::knobs::family
