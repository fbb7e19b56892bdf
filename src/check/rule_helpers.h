// Small helpers shared by the rule files: CPU list text, sysfs paths, boot-parameter fixes.
#pragma once
#include <string>
#include <vector>

#include "check/finding.h"

namespace nw::check {

std::string cpus_text(const std::vector<int>& cpus);  // "2-3,6", or "none"
std::string cpu_dir(int cpu);                        // "/sys/devices/system/cpu/cpu2"
// The commands that add kernel boot parameters on a GRUB system (Debian/Ubuntu), then reboot.
std::vector<std::string> boot_param_fix(const std::string& params);
// The fix that adds `before` + CPU list + `after` (isolcpus=, nohz_full=, rcu_nocbs=) for `cpus`.
// Such parameters never take every online CPU from housekeeping (IRQs, timers, kthreads and RCU
// callbacks need one): when `cpus` with the CPUs `already` covered would be all of `online`, the
// first online CPU of `cpus` is left out. Its first line says which CPUs stay housekeeping.
std::vector<std::string> housekeeping_safe_fix(const std::vector<int>& online, const std::vector<int>& cpus,
                                               const std::vector<int>& already, const std::string& before,
                                               const std::string& after = "");
// Target CPUs not in `covered`.
std::vector<int> uncovered(const std::vector<int>& targets, const std::vector<int>& covered);
// The online CPUs outside `targets`: where housekeeping (IRQs, kthreads) should go.
std::vector<int> others(const std::vector<int>& online, const std::vector<int>& targets);
Finding make_finding(std::string id, Status status, std::vector<int> cpus, std::string summary,
                     std::vector<std::string> fix = {});

}  // namespace nw::check
