// SPDX-License-Identifier: Apache-2.0
#include "knobs/render.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "system/cpulist.h"

namespace nw::knobs::render {

std::string priv(const Context& c, const std::string& cmd) { return c.sudo ? "sudo " + cmd : cmd; }

std::string write(const Context& c, const std::string& value, const std::string& path) {
  if (c.sudo) return fmt::format("echo {} | sudo tee {}", value, path);
  if (path.find('{') != std::string::npos) return fmt::format("echo {} | tee {}", value, path);
  return fmt::format("echo {} > {}", value, path);
}

std::string append(const Context& c, const std::string& line, const std::string& path) {
  return c.sudo ? fmt::format("echo {} | sudo tee -a {}", line, path) : fmt::format("echo {} >> {}", line, path);
}

std::string cpu_path(const std::vector<int>& cpus, const std::string& suffix) {
  std::string which;
  if (cpus.empty()) {
    which = "<cpu>";
  } else if (cpus.size() == 1) {
    which = std::to_string(cpus.front());
  } else if (cpus.back() - cpus.front() + 1 == int(cpus.size())) {
    which = fmt::format("{{{}..{}}}", cpus.front(), cpus.back());
  } else {
    which = fmt::format("{{{}}}", fmt::join(cpus, ","));
  }
  return fmt::format("/sys/devices/system/cpu/cpu{}/{}", which, suffix);
}

std::string cpus_or(const std::vector<int>& cpus, const char* placeholder) {
  return cpus.empty() ? std::string(placeholder) : sys::format_cpulist(cpus);
}

std::string targets(const Context& c) { return cpus_or(c.cpus, "<cpu>"); }

std::string housekeeping(const Context& c) {
  if (c.cpus.empty()) return "<housekeeping cpus>";
  return cpus_or(split_cpus(c.cpus, c.online).housekeeping, "<housekeeping cpus>");
}

std::string housekeeping_mask(const Context& c) {
  if (c.cpus.empty()) return "<housekeeping mask>";
  auto hk = split_cpus(c.cpus, c.online).housekeeping;
  return hk.empty() ? std::string("<housekeeping mask>") : sys::format_cpumask(hk);
}

}  // namespace nw::knobs::render
