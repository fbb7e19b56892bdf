// SPDX-License-Identifier: Apache-2.0
// The kernel command line (/proc/cmdline): the boot parameters that isolate CPUs.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace nw::sys {

class Sysroot;

struct KernelCmdline {
  std::map<std::string, std::string> params;  // "isolcpus" -> "nohz,managed_irq,2-7"; flags -> ""

  bool has(const std::string& key) const { return params.count(key) > 0; }
  std::optional<std::string> get(const std::string& key) const;
  // The CPU list of a parameter such as nohz_full=2-7 or rcu_nocbs=1-3; nullopt when the
  // parameter is absent or its value is not a CPU list. `online` resolves "all" and the
  // kernel's "N" (last CPU) shorthand.
  std::optional<std::vector<int>> cpus(const std::string& key, const std::vector<int>& online) const;
  // isolcpus=[flag,...,]LIST: the CPUs and the flags (domain, nohz, managed_irq).
  std::optional<std::vector<int>> isolcpus(std::vector<std::string>* flags = nullptr) const;
};

KernelCmdline parse_kernel_cmdline(const std::string& text);
// nullopt when /proc/cmdline cannot be read.
std::optional<KernelCmdline> read_kernel_cmdline(const Sysroot& root);

}  // namespace nw::sys
