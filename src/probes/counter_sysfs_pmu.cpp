// SPDX-License-Identifier: Apache-2.0
#include "probes/counter_sysfs_pmu.h"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include <fmt/format.h>

#include "common/errors.h"

namespace nw::probes {

namespace fs = std::filesystem;

namespace {

std::optional<std::string> read_line(const fs::path& p) {
  std::ifstream in(p);
  std::string s;
  if (!in || !std::getline(in, s)) return std::nullopt;
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string item; std::getline(ss, item, sep);)
    if (!item.empty()) out.push_back(item);
  return out;
}

uint64_t* config_field(perf_event_attr& attr, const std::string& field) {
  if (field == "config") return reinterpret_cast<uint64_t*>(&attr.config);
  if (field == "config1") return reinterpret_cast<uint64_t*>(&attr.config1);
  if (field == "config2") return reinterpret_cast<uint64_t*>(&attr.config2);
  return nullptr;
}

// Scatters `value` over the bit ranges of a format such as "config:0-7,32-35", low bits first,
// the way the kernel's perf tool does.
void apply_format(perf_event_attr& attr, const std::string& format, uint64_t value, const std::string& what) {
  auto colon = format.find(':');
  uint64_t* field = colon == std::string::npos ? nullptr : config_field(attr, format.substr(0, colon));
  if (!field) throw Error(fmt::format("{}: unsupported sysfs format '{}'", what, format));
  for (const auto& range : split(format.substr(colon + 1), ',')) {
    auto dash = range.find('-');
    unsigned lo = unsigned(std::stoul(range.substr(0, dash)));
    unsigned hi = dash == std::string::npos ? lo : unsigned(std::stoul(range.substr(dash + 1)));
    for (unsigned bit = lo; bit <= hi && bit < 64; ++bit, value >>= 1)
      if (value & 1) *field |= uint64_t(1) << bit;
  }
}

}  // namespace

std::optional<std::pair<std::string, std::string>> split_sysfs_name(const std::string& name) {
  static const std::regex re(R"(^([A-Za-z0-9_.-]+)/([A-Za-z0-9_.-]+)/?$)");
  std::smatch m;
  if (!std::regex_match(name, m, re)) return std::nullopt;
  return std::pair{m[1].str(), m[2].str()};
}

std::vector<std::string> sysfs_pmu_events(const std::string& pmu, const std::string& devices) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(fs::path(devices) / pmu / "events", ec)) {
    std::string n = e.path().filename().string();
    // ".scale" and ".unit" files describe an event; they are not events.
    if (n.find('.') == std::string::npos) out.push_back(n);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::optional<ResolvedEvent> sysfs_resolve(const std::string& key, const std::string& pmu, const std::string& event,
                                           const std::string& devices) {
  fs::path dir = fs::path(devices) / pmu;
  auto type = read_line(dir / "type");
  auto terms = read_line(dir / "events" / event);
  if (!type || !terms) return std::nullopt;
  std::string what = fmt::format("event '{}/{}/'", pmu, event);

  ResolvedEvent ev;
  ev.name = key;
  ev.pmu = pmu;
  ev.canonical = fmt::format("{}/{}/", pmu, *terms);
  ev.attr.size = sizeof ev.attr;
  try {
    ev.attr.type = uint32_t(std::stoul(*type));
  } catch (const std::exception&) {
    throw Error(fmt::format("{}: unreadable PMU type '{}' in {}", what, *type, (dir / "type").string()));
  }
  for (const auto& term : split(*terms, ',')) {
    auto eq = term.find('=');
    std::string name = term.substr(0, eq);
    std::string val = eq == std::string::npos ? "1" : term.substr(eq + 1);
    if (val.find('?') != std::string::npos)
      throw Error(fmt::format("{} needs a parameter ('{}'); it cannot be counted as is", what, term));
    auto format = read_line(dir / "format" / name);
    if (!format) throw Error(fmt::format("{}: the PMU describes no format for '{}'", what, name));
    uint64_t v = 0;
    try {
      v = std::stoull(val, nullptr, 0);
    } catch (const std::exception&) {
      throw Error(fmt::format("{}: cannot read value '{}' of '{}'", what, val, name));
    }
    apply_format(ev.attr, *format, v, what);
  }
  // Core PMUs are "cpu", "cpu_core", "cpu_atom" or ARM's "armv8_*". msr, power and the like
  // are MSRs the kernel reads at context switch: they need no PMU counter.
  ev.hardware = pmu.starts_with("cpu") || pmu.starts_with("armv");
  return ev;
}

}  // namespace nw::probes
