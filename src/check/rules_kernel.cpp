// SPDX-License-Identifier: Apache-2.0
// aslr, transparent-hugepages, nmi-watchdog, numa-balancing: kernel tunables that change
// memory layout or take CPU time behind the benchmark's back.
#include <fmt/format.h>

#include "check/rule_helpers.h"
#include "check/rules.h"
#include "knobs/catalogue.h"
#include "system/sysctl.h"

namespace nw::check {

Finding check_aslr(const CheckContext& ctx) {
  auto v = sys::read_sysctl_int(ctx.root, "kernel.randomize_va_space");
  if (!v)
    return make_finding("aslr", Status::unknown, ctx.targets, "/proc/sys/kernel/randomize_va_space is not readable");
  if (*v == 0)
    return make_finding("aslr", Status::ok, ctx.targets, "kernel.randomize_va_space=0: the same layout every run");
  return make_finding(
      "aslr", Status::warn, ctx.targets,
      fmt::format("kernel.randomize_va_space={}: stack, heap and mmap addresses change every run, so cache and "
                  "alignment effects vary; turning it off makes runs comparable but one layout may not be "
                  "representative, and it weakens security (prefer per benchmark: setarch -R)",
                  *v),
      knobs::fix_for_finding("aslr", fix_context(ctx, ctx.targets)));
}

Finding check_transparent_hugepages(const CheckContext& ctx) {
  auto line = ctx.root.read_line("/sys/kernel/mm/transparent_hugepage/enabled");
  if (!line)
    return make_finding("transparent-hugepages", Status::unknown, ctx.targets,
                        "/sys/kernel/mm/transparent_hugepage/enabled is not readable");
  auto open = line->find('['), close = line->find(']');
  if (open == std::string::npos || close == std::string::npos || close < open)
    return make_finding("transparent-hugepages", Status::unknown, ctx.targets,
                        fmt::format("unexpected transparent_hugepage/enabled: '{}'", *line));
  std::string mode = line->substr(open + 1, close - open - 1);
  if (mode == "always")
    return make_finding("transparent-hugepages", Status::warn, ctx.targets,
                        "THP enabled=[always]: whether memory gets huge pages (and khugepaged's scans and "
                        "compaction stalls) varies from run to run",
                        knobs::fix_for_finding("transparent-hugepages", fix_context(ctx, ctx.targets)));
  return make_finding("transparent-hugepages", Status::ok, ctx.targets,
                      fmt::format("THP enabled=[{}]: huge pages only where the program asks", mode));
}

Finding check_nmi_watchdog(const CheckContext& ctx) {
  auto v = sys::read_sysctl_int(ctx.root, "kernel.nmi_watchdog");
  if (!v) {
    if (ctx.cmdline && ctx.cmdline->get("nmi_watchdog") == "0")
      return make_finding("nmi-watchdog", Status::ok, ctx.targets, "nmi_watchdog=0 on the kernel command line");
    return make_finding("nmi-watchdog", Status::unknown, ctx.targets, "/proc/sys/kernel/nmi_watchdog is not readable");
  }
  if (*v == 0) return make_finding("nmi-watchdog", Status::ok, ctx.targets, "kernel.nmi_watchdog=0");
  return make_finding(
      "nmi-watchdog", Status::warn, ctx.targets,
      fmt::format("kernel.nmi_watchdog={}: a periodic NMI on every CPU, and it holds a PMU counter", *v),
      knobs::fix_for_finding("nmi-watchdog", fix_context(ctx, ctx.targets)));
}

Finding check_numa_balancing(const CheckContext& ctx) {
  auto v = sys::read_sysctl_int(ctx.root, "kernel.numa_balancing");
  int nodes = ctx.topo.numa_nodes;
  std::string value = v ? fmt::format("kernel.numa_balancing={}", *v) : "no kernel.numa_balancing";
  if (nodes == 1)
    return make_finding("numa-balancing", Status::ok, ctx.targets,
                        fmt::format("one NUMA node: nothing to migrate ({})", value));
  if (!v)
    return make_finding("numa-balancing", Status::unknown, ctx.targets,
                        fmt::format("/proc/sys/kernel/numa_balancing is not readable ({} NUMA nodes)",
                                    nodes ? std::to_string(nodes) : "unknown number of"));
  if (*v == 0)
    return make_finding("numa-balancing", Status::ok, ctx.targets, fmt::format("{} ({} NUMA nodes)", value, nodes));
  if (nodes == 0)
    return make_finding("numa-balancing", Status::unknown, ctx.targets,
                        fmt::format("{}, but the number of NUMA nodes is unknown", value));
  return make_finding("numa-balancing", Status::warn, ctx.targets,
                      fmt::format("{} on {} NUMA nodes: the kernel unmaps pages to sample accesses (page faults) "
                                  "and migrates memory during the run",
                                  value, nodes),
                      knobs::fix_for_finding("numa-balancing", fix_context(ctx, ctx.targets)));
}

}  // namespace nw::check
