// SPDX-License-Identifier: Apache-2.0
// Small helpers shared by the rule files: CPU list text, sysfs paths, the catalogue's fixes.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "check/check_context.h"
#include "check/finding.h"
#include "knobs/knob.h"

namespace nw::check {

std::string cpus_text(const std::vector<int>& cpus);  // "2-3,6", or "none"
std::string cpu_dir(int cpu);                         // "/sys/devices/system/cpu/cpu2"
// What the catalogue (src/knobs/) renders a fix for: `cpus` of this machine, with sudo.
knobs::Context fix_context(const CheckContext& ctx, std::vector<int> cpus);
// The fix of a boot-parameter finding (cpu-isolation, nohz-full, rcu-nocbs): the catalogue's
// boot-loader edit for the targets. The edit replaces the parameter's old value, so the CPUs it
// covers `already` stay in the new list; at least one online CPU always stays for housekeeping,
// and the first line says which.
std::vector<std::string> boot_fix(const CheckContext& ctx, std::string_view finding, const std::vector<int>& already);
// Target CPUs not in `covered`.
std::vector<int> uncovered(const std::vector<int>& targets, const std::vector<int>& covered);
// The online CPUs outside `targets`: where housekeeping (IRQs, kthreads) should go.
std::vector<int> others(const std::vector<int>& online, const std::vector<int>& targets);
Finding make_finding(std::string id, Status status, std::vector<int> cpus, std::string summary,
                     std::vector<std::string> fix = {});

}  // namespace nw::check
