// SPDX-License-Identifier: Apache-2.0
// aslr-off, nmi-watchdog, numa-balancing, timer-migration, transparent-hugepages: kernel
// tunables that change the memory layout or take CPU time behind the benchmark's back.
#include <fmt/format.h>

#include "knobs/catalogue.h"
#include "knobs/families.h"
#include "knobs/render.h"
#include "system/sysctl.h"
#include "system/sysroot.h"

namespace nw::knobs::family {

namespace {

const char* kThp = "/sys/kernel/mm/transparent_hugepage";

}  // namespace

Plan plan_sysctl(const sys::Sysroot& root, const std::string& name, const std::string& value) {
  Plan p;
  std::string path = sys::sysctl_path(name);
  if (!root.exists(path)) p.absent = fmt::format("no {} (sysctl {}): this kernel does not have it", path, name);
  else p.writes.push_back({path, value + "\n", Format::text});
  return p;
}

Plan plan_thp(const sys::Sysroot& root, const Targets&) {
  Plan p;
  // `never`: no huge pages at all, so no run gets them by luck and khugepaged has nothing to do.
  for (const char* f : {"enabled", "defrag"}) {
    std::string path = fmt::format("{}/{}", kThp, f);
    if (root.exists(path)) p.writes.push_back({path, "never\n", Format::choice});
  }
  if (p.writes.empty()) p.absent = fmt::format("no {}/enabled: the kernel has no transparent huge pages", kThp);
  return p;
}

Commands cmd_sysctl(const Context& c, const std::string& name, const std::string& value) {
  return {render::priv(c, fmt::format("sysctl -w {}={}", name, value))};
}

Commands cmd_aslr(const Context& c) {
  return {fmt::format("{}   # this benchmark only (like setarch -R {})", rerun(get("aslr-off"), c), c.command),
          render::priv(c, "sysctl -w kernel.randomize_va_space=0") + "   # the whole machine"};
}

Commands cmd_thp(const Context& c) {
  return {render::write(c, "never", fmt::format("{}/enabled", kThp)),
          render::write(c, "never", fmt::format("{}/defrag", kThp))};
}

}  // namespace nw::knobs::family
