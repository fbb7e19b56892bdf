// SPDX-License-Identifier: Apache-2.0
#include "compare/host_diff.h"

#include <cmath>
#include <cstdlib>
#include <optional>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace nw::compare {

namespace {

void add_if_different(std::vector<HostDifference>& out, const char* field, const std::string& base,
                      const std::string& next) {
  if (base != next) out.push_back({field, base, next});
}

std::string unavailable_probes(const RunRecord& rec, const RunRecord& other) {
  std::set<std::string> theirs;
  for (const auto& u : other.unavailable) theirs.insert(u.probe);
  std::vector<std::string> only;
  for (const auto& u : rec.unavailable)
    if (!theirs.count(u.probe)) only.push_back(u.probe);
  return fmt::format("{}", fmt::join(only, ", "));
}

// Time-weighted frequency of the benchmark CPUs, averaged over measured runs; absent without cpufreq.
std::optional<double> mean_mhz(const RunRecord& rec) {
  double sum = 0;
  int n = 0;
  for (const auto* r : rec.measured())
    if (r->mean_khz) sum += *r->mean_khz / 1000, ++n;
  if (n == 0) return std::nullopt;
  return sum / n;
}

// What a container gives the benchmark (a container is a machine of its own): runtime, cpuset,
// memory limit; usage is not a setting and is left out. Compared only when both records have it
// (records before host.container have none).
void diff_containers(std::vector<HostDifference>& out, const HostInfo& base, const HostInfo& next) {
  if (!base.container || !next.container) return;
  auto runtime = [](const ContainerInfo& c) { return c.detected ? (c.runtime.empty() ? "yes" : c.runtime) : "no"; };
  auto limit = [](const ContainerInfo& c) {
    return c.memory_limit_bytes ? fmt::format("{}", *c.memory_limit_bytes) : std::string("none");
  };
  add_if_different(out, "container", runtime(*base.container), runtime(*next.container));
  add_if_different(out, "cpuset", fmt::format("{}", fmt::join(base.container->cpuset_cpus, ",")),
                   fmt::format("{}", fmt::join(next.container->cpuset_cpus, ",")));
  add_if_different(out, "memory_limit_bytes", limit(*base.container), limit(*next.container));
}

// Frequency is only worth a line when it moved more than this fraction (turbo, governor, thermal).
constexpr double kFrequencyTolerance = 0.02;

bool same_value(const HostField& a, const HostField& b) {
  if (a.value == b.value) return true;
  if (a.tolerance <= 0) return false;
  char* end_a = nullptr;
  char* end_b = nullptr;
  double x = std::strtod(a.value.c_str(), &end_a), y = std::strtod(b.value.c_str(), &end_b);
  if (*end_a || *end_b || end_a == a.value.c_str() || end_b == b.value.c_str()) return false;
  return std::fabs(y - x) <= a.tolerance * std::fabs(x);
}

}  // namespace

std::vector<HostDifference> diff_host_fields(const std::vector<HostField>& base, const std::vector<HostField>& next) {
  std::vector<HostDifference> out;
  for (const auto& b : base)
    for (const auto& n : next)
      if (b.field == n.field && !same_value(b, n)) out.push_back({b.field, b.value, n.value});
  return out;
}

std::vector<HostDifference> diff_hosts(const RunRecord& base, const RunRecord& next) {
  std::vector<HostDifference> out;
  add_if_different(out, "hostname", base.host.hostname, next.host.hostname);
  add_if_different(out, "kernel", base.host.kernel, next.host.kernel);
  add_if_different(out, "cpu_model", base.host.cpu_model, next.host.cpu_model);
  add_if_different(out, "virtualized", base.host.virtualized ? "yes" : "no", next.host.virtualized ? "yes" : "no");
  add_if_different(out, "online_cpus", fmt::format("{}", base.host.online_cpus),
                   fmt::format("{}", next.host.online_cpus));
  add_if_different(out, "cpus", fmt::format("{}", fmt::join(base.cpus, ",")),
                   fmt::format("{}", fmt::join(next.cpus, ",")));
  add_if_different(out, "pinned", base.pinned ? "yes" : "no", next.pinned ? "yes" : "no");
  diff_containers(out, base.host, next.host);
  auto base_mhz = mean_mhz(base), new_mhz = mean_mhz(next);
  if (base_mhz && new_mhz && std::fabs(*new_mhz - *base_mhz) > kFrequencyTolerance * *base_mhz)
    out.push_back({"mean_mhz", fmt::format("{:.0f}", *base_mhz), fmt::format("{:.0f}", *new_mhz)});
  std::string base_only = unavailable_probes(base, next), new_only = unavailable_probes(next, base);
  if (!base_only.empty() || !new_only.empty())
    out.push_back({"unavailable_probes", base_only.empty() ? "-" : base_only, new_only.empty() ? "-" : new_only});
  return out;
}

}  // namespace nw::compare
