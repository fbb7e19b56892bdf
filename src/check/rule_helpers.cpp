#include "check/rule_helpers.h"

#include <algorithm>

#include <fmt/format.h>

#include "system/cpulist.h"

namespace nw::check {

std::string cpus_text(const std::vector<int>& cpus) {
  return cpus.empty() ? "none" : sys::format_cpulist(cpus);
}

std::string cpu_dir(int cpu) { return fmt::format("/sys/devices/system/cpu/cpu{}", cpu); }

std::vector<std::string> boot_param_fix(const std::string& params) {
  return {fmt::format("sudo sed -i 's/^GRUB_CMDLINE_LINUX=\"/&{} /' /etc/default/grub", params),
          "sudo update-grub && sudo reboot"};
}

std::vector<std::string> housekeeping_safe_fix(const std::vector<int>& online, const std::vector<int>& cpus,
                                               const std::vector<int>& already, const std::string& before,
                                               const std::string& after) {
  std::vector<int> named = cpus, covered = already;
  covered.insert(covered.end(), cpus.begin(), cpus.end());
  std::vector<int> housekeeping = uncovered(online, covered);
  if (housekeeping.empty()) {
    for (int c : online)
      if (std::find(named.begin(), named.end(), c) != named.end()) {
        named.erase(std::find(named.begin(), named.end(), c));
        housekeeping = {c};
        break;
      }
  }
  if (named.empty())
    return {fmt::format("# CPU {} must stay a housekeeping CPU (IRQs, timers, kthreads): bring another CPU online "
                        "to isolate one",
                        cpus_text(housekeeping))};
  std::vector<std::string> fix;
  if (!housekeeping.empty())
    fix.push_back(fmt::format("# CPU {} stay{} for housekeeping (IRQs, timers, kthreads): benchmark on CPU {}",
                              cpus_text(housekeeping), housekeeping.size() == 1 ? "s" : "", cpus_text(named)));
  for (auto& f : boot_param_fix(before + sys::format_cpulist(named) + after)) fix.push_back(std::move(f));
  return fix;
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
