// SPDX-License-Identifier: Apache-2.0
#include "system/kernel_cmdline.h"

#include <sstream>

#include "system/cpulist.h"
#include "system/sysroot.h"

namespace nw::sys {

namespace {

// The kernel accepts "N" for the last CPU in lists (e.g. "1-N"); replace it before parsing.
std::string resolve_last_cpu(std::string list, const std::vector<int>& online) {
  if (online.empty()) return list;
  std::string last = std::to_string(online.back());
  std::string out;
  for (size_t i = 0; i < list.size(); ++i) {
    bool token_start = i == 0 || list[i - 1] == ',' || list[i - 1] == '-';
    bool token_end = i + 1 == list.size() || list[i + 1] == ',' || list[i + 1] == '-';
    if (list[i] == 'N' && token_start && token_end) out += last;
    else out += list[i];
  }
  return out;
}

}  // namespace

std::optional<std::string> KernelCmdline::get(const std::string& key) const {
  auto it = params.find(key);
  if (it == params.end()) return std::nullopt;
  return it->second;
}

std::optional<std::vector<int>> KernelCmdline::cpus(const std::string& key, const std::vector<int>& online) const {
  auto v = get(key);
  if (!v) return std::nullopt;
  // A bare `rcu_nocbs` (no list) offloads every CPU on recent kernels.
  if (v->empty() || *v == "all") return online;
  try {
    return parse_cpulist(resolve_last_cpu(*v, online));
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::optional<std::vector<int>> KernelCmdline::isolcpus(std::vector<std::string>* flags) const {
  auto v = get("isolcpus");
  if (!v) return std::nullopt;
  // Leading tokens that are not numbers are flags: isolcpus=nohz,domain,managed_irq,2-7.
  std::string list;
  std::stringstream ss(*v);
  std::string tok;
  while (std::getline(ss, tok, ',')) {
    if (!tok.empty() && !std::isdigit(static_cast<unsigned char>(tok[0]))) {
      if (flags) flags->push_back(tok);
    } else {
      list += (list.empty() ? "" : ",") + tok;
    }
  }
  try {
    return parse_cpulist(list);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

KernelCmdline parse_kernel_cmdline(const std::string& text) {
  KernelCmdline c;
  std::istringstream in(text);
  std::string tok;
  while (in >> tok) {
    // Parameters after "--" belong to init, not to the kernel.
    if (tok == "--") break;
    auto eq = tok.find('=');
    if (eq == std::string::npos) c.params[tok] = "";
    else c.params[tok.substr(0, eq)] = tok.substr(eq + 1);
  }
  return c;
}

std::optional<KernelCmdline> read_kernel_cmdline(const Sysroot& root) {
  auto text = root.read("/proc/cmdline");
  if (!text) return std::nullopt;
  return parse_kernel_cmdline(*text);
}

}  // namespace nw::sys
