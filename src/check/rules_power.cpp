// SPDX-License-Identifier: Apache-2.0
// cpu-idle-states, power-supply, thermal-throttling: sleep depth, battery and heat. Being on
// battery, or throttling during the check, fails: timings taken then are not comparable.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "check/rule_helpers.h"
#include "check/rules.h"
#include "knobs/catalogue.h"
#include "system/cpuidle.h"

namespace nw::check {

namespace {
constexpr long long kMaxExitLatencyUs = 10;
}

Finding check_cpu_idle_states(const CheckContext& ctx) {
  std::vector<int> deep_cpus, readable;
  std::vector<std::string> parts;
  for (int c : ctx.targets) {
    auto states = sys::read_idle_states(ctx.root, c);
    if (!states) continue;
    readable.push_back(c);
    std::vector<std::string> deep;
    for (const auto& s : *states)
      if (!s.disabled && s.latency_us > kMaxExitLatencyUs)
        deep.push_back(fmt::format("{} ({} us)", s.name, s.latency_us));
    if (deep.empty()) continue;
    deep_cpus.push_back(c);
    parts.push_back(fmt::format("CPU {}: {}", c, fmt::join(deep, ", ")));
  }
  if (readable.empty())
    return make_finding("cpu-idle-states", Status::unknown, ctx.targets,
                        fmt::format("no cpuidle directory for CPU {}", cpus_text(ctx.targets)));
  if (deep_cpus.empty())
    return make_finding("cpu-idle-states", Status::ok, ctx.targets,
                        fmt::format("no enabled idle state with exit latency > {} us on CPU {}", kMaxExitLatencyUs,
                                    cpus_text(readable)));
  return make_finding("cpu-idle-states", Status::warn, deep_cpus,
                      fmt::format("enabled idle states with exit latency > {} us: {} (waking up adds latency)",
                                  kMaxExitLatencyUs, fmt::join(parts, "; ")),
                      knobs::fix_for_finding("cpu-idle-states", fix_context(ctx, deep_cpus)));
}

Finding check_power_supply(const CheckContext& ctx) {
  const std::string dir = "/sys/class/power_supply";
  if (!ctx.root.is_dir(dir)) return make_finding("power-supply", Status::unknown, {}, "no /sys/class/power_supply");
  std::vector<std::string> mains_on, mains_off, batteries;
  bool discharging = false;
  for (const auto& name : ctx.root.list_dir(dir)) {
    std::string base = dir + "/" + name;
    auto type = ctx.root.read_line(base + "/type");
    if (!type) continue;
    if (*type == "Mains") {
      auto online = ctx.root.read_int(base + "/online");
      if (!online) continue;
      (*online ? mains_on : mains_off).push_back(name);
    } else if (*type == "Battery") {
      auto status = ctx.root.read_line(base + "/status").value_or("unknown");
      auto capacity = ctx.root.read_int(base + "/capacity");
      batteries.push_back(capacity ? fmt::format("{} {} {}%", name, status, *capacity)
                                   : fmt::format("{} {}", name, status));
      if (status == "Discharging") discharging = true;
    }
  }
  std::string bats = batteries.empty() ? "" : fmt::format("; {}", fmt::join(batteries, ", "));
  // On battery the firmware and the OS save power: the clock is lowered and varies with the
  // charge level, so timings do not compare with those taken on mains, or with each other.
  if (!mains_off.empty() && mains_on.empty())
    return make_finding("power-supply", Status::fail, {},
                        fmt::format("on battery: {} offline{} (power saving lowers and varies the clock: timings "
                                    "are not comparable)",
                                    fmt::join(mains_off, ", "), bats),
                        {"# plug in the charger"});
  if (!mains_on.empty())
    return make_finding("power-supply", Status::ok, {},
                        fmt::format("on mains: {} online{}", fmt::join(mains_on, ", "), bats));
  if (discharging)
    return make_finding("power-supply", Status::fail, {},
                        fmt::format("battery discharging{} (on battery: timings are not comparable)", bats),
                        {"# plug in the charger"});
  return make_finding("power-supply", Status::info, {},
                      batteries.empty() ? "no power supply reported (a desktop, server or VM)"
                                        : fmt::format("no Mains supply reported{}", bats));
}

namespace {

struct ThrottleCount {
  long long core = 0, package = 0;
};

std::optional<ThrottleCount> throttle_count(const sys::Sysroot& root, int cpu) {
  std::string base = cpu_dir(cpu) + "/thermal_throttle/";
  auto core = root.read_int(base + "core_throttle_count");
  auto pkg = root.read_int(base + "package_throttle_count");
  if (!core && !pkg) return std::nullopt;
  return ThrottleCount{core.value_or(0), pkg.value_or(0)};
}

}  // namespace

std::map<int, uint64_t> read_throttle_counts(const sys::Sysroot& root, const std::vector<int>& cpus) {
  std::map<int, uint64_t> counts;
  for (int c : cpus)
    if (auto n = throttle_count(root, c)) counts[c] = uint64_t(n->core + n->package);
  return counts;
}

namespace {

std::string throttled_during(const CheckContext& ctx, const std::vector<int>& cpus) {
  std::string out;
  for (int c : cpus)
    out +=
        fmt::format("{}CPU {}: {}", out.empty() ? "" : ", ", c, ctx.throttle_after.at(c) - ctx.throttle_before.at(c));
  return out;
}

}  // namespace

Finding check_thermal_throttling(const CheckContext& ctx) {
  std::vector<int> throttled, readable, during;
  std::vector<std::string> parts;
  for (int c : ctx.targets) {
    auto n = throttle_count(ctx.root, c);
    if (!n) continue;
    readable.push_back(c);
    if (n->core > 0 || n->package > 0) {
      throttled.push_back(c);
      parts.push_back(fmt::format("CPU {}: core {}, package {}", c, n->core, n->package));
    }
    auto before = ctx.throttle_before.find(c), after = ctx.throttle_after.find(c);
    if (before != ctx.throttle_before.end() && after != ctx.throttle_after.end() && after->second > before->second)
      during.push_back(c);
  }
  if (readable.empty())
    return make_finding("thermal-throttling", Status::unknown, ctx.targets,
                        fmt::format("no thermal_throttle counters for CPU {}", cpus_text(ctx.targets)));
  const std::vector<std::string> fix = {"# improve cooling, lower the load of the other cores, or turn turbo off"};
  // Throttled while noisewatch measured: the clock changed under load, so nothing measured on
  // this machine now compares with anything.
  if (!during.empty())
    return make_finding("thermal-throttling", Status::fail, during,
                        fmt::format("CPU {} throttled during this check's measurement ({} more times): the clock "
                                    "slows down under load, so timings taken now are not comparable",
                                    cpus_text(during), throttled_during(ctx, during)),
                        fix);
  if (throttled.empty())
    return make_finding("thermal-throttling", Status::ok, ctx.targets,
                        fmt::format("no thermal throttling since boot on CPU {}", cpus_text(readable)));
  return make_finding("thermal-throttling", Status::warn, throttled,
                      fmt::format("throttled since boot ({}): the CPU slowed down when hot", fmt::join(parts, "; ")),
                      fix);
}

}  // namespace nw::check
