// SPDX-License-Identifier: Apache-2.0
#include "tune/boot.h"

#include <algorithm>

namespace nw::tune {

namespace {

bool covers(const std::optional<std::vector<int>>& list, const std::vector<int>& cpus) {
  return list && std::all_of(cpus.begin(), cpus.end(),
                             [&](int c) { return std::find(list->begin(), list->end(), c) != list->end(); });
}

}  // namespace

bool boot_param_in_effect(const knobs::Knob& k, const sys::KernelCmdline& cmdline, const knobs::Targets& t) {
  std::string key(k.boot_key);
  if (key == "isolcpus") return covers(cmdline.isolcpus(), t.cpus);
  auto list = cmdline.cpus(key, t.online);
  // nohz_full CPUs have their RCU callbacks offloaded too.
  if (key == "rcu_nocbs") return covers(list, t.cpus) || covers(cmdline.cpus("nohz_full", t.online), t.cpus);
  if (k.boot_on_targets) return covers(list, t.cpus);
  // A housekeeping list is in effect when it leaves every benchmark CPU out.
  return list && !list->empty() && std::none_of(t.cpus.begin(), t.cpus.end(), [&](int c) {
           return std::find(list->begin(), list->end(), c) != list->end();
         });
}

}  // namespace nw::tune
