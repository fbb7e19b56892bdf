// SPDX-License-Identifier: Apache-2.0
// Rendering a knob's manual commands, and the one boot-loader edit every boot parameter goes
// through (the report and `check` used to write it twice, with and without sudo).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/shell_words.h"
#include "knobs/catalogue.h"
#include "knobs/render.h"
#include "system/cpulist.h"

namespace nw::knobs {

std::string boot_params(const std::vector<const Knob*>& boot, const std::string& isolated,
                        const std::string& housekeeping) {
  std::vector<std::string> params;
  for (const Knob* k : boot)
    if (k->boot) params.push_back(k->boot(isolated, housekeeping));
  return fmt::format("{}", fmt::join(params, " "));
}

std::vector<std::string> boot_edit(const std::vector<const Knob*>& boot, const Context& c) {
  bool known = !c.cpus.empty() && !c.online.empty();
  CpuSplit s = split_cpus(c.cpus, c.online);
  if (known && s.isolated.empty())
    return {"# only one online CPU: nothing can be isolated and still leave a CPU for housekeeping"};
  // Without the machine's CPUs the edit is a template with the lists to fill in.
  std::string params = known ? boot_params(boot, sys::format_cpulist(s.isolated), sys::format_cpulist(s.housekeeping))
                             : boot_params(boot, render::targets(c), "<housekeeping cpus>");
  // An older value of each parameter goes first, so that running the edit twice does no harm.
  std::vector<std::string_view> keys;
  for (const Knob* k : boot) {
    if (!k->boot) continue;
    keys.push_back(k->boot_key);
    if (k->boot_key == "rcu_nocbs") keys.push_back("rcu_nocb_poll");
  }
  std::string note = known ? s.note : "keep at least one CPU out of these lists for housekeeping (timers, RCU, IRQs)";
  return {"# " + note,
          render::priv(c, fmt::format("sed -i -E -e '/^GRUB_CMDLINE_LINUX=/s/\\<({})(=[^ \"]*)? ?//g' "
                                      "-e 's/^GRUB_CMDLINE_LINUX=\"/&{} /' /etc/default/grub",
                                      fmt::join(keys, "|"), params)),
          fmt::format("{} && {}   # Fedora/RHEL: {}", render::priv(c, "update-grub"), render::priv(c, "reboot"),
                      render::priv(c, fmt::format("grubby --update-kernel=ALL --args='{}'", params)))};
}

std::string rerun(const Knob& k, const Context& c) {
  std::string flags;
  if (k.run_flag == "--cpu") flags = "--cpu " + render::targets(c);
  else if (!k.run_flag.empty())
    flags = k.run_arg.empty() ? std::string(k.run_flag) : fmt::format("{} {}", k.run_flag, k.run_arg);
  else if (k.scope == Scope::runtime)
    // `tune` leaves a knob alone without the one it needs (irqbalance without irq-affinity).
    flags = fmt::format("--tune --tune-only {}{}{}", k.id, k.needs.empty() ? "" : ",", k.needs);
  else return "";
  return fmt::format("noisewatch {} -- {}", flags, c.command);
}

std::vector<std::string> commands(const Knob& k, const Context& c) {
  if (k.scope == Scope::boot) return boot_edit({&k}, c);
  return k.commands ? k.commands(c) : std::vector<std::string>{};
}

std::vector<std::string> fix_for_finding(std::string_view finding_id, const Context& c) {
  std::vector<std::string> out;
  std::vector<const Knob*> boot;
  for (const Knob* k : for_finding(finding_id)) {
    if (k->scope == Scope::boot) {
      boot.push_back(k);
      continue;
    }
    for (auto& line : commands(*k, c)) out.push_back(std::move(line));
  }
  if (!boot.empty())
    for (auto& line : boot_edit(boot, c)) out.push_back(std::move(line));
  return out;
}

}  // namespace nw::knobs
