// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>

#include "check/check_render.h"
#include "common/exposition.h"

namespace nw::check {

namespace {

int status_value(Status s) {
  switch (s) {
    case Status::ok:
    case Status::info:
      return 0;
    case Status::warn:
      return 1;
    case Status::fail:
      return 2;
    case Status::unknown:
      return -1;
  }
  return -1;
}

}  // namespace

// Through the one exposition writer (common/exposition.h), which the agent's /metrics appends
// this to: label values made valid UTF-8 and escaped, values spelled as Prometheus reads them.
std::string render_prometheus(const CheckReport& report) {
  Exposition x;
  x.family("noisewatch_check_status", "gauge",
           "Result of a noisewatch check: 0 ok or info, 1 warn, 2 fail, -1 unknown.");
  for (const auto& f : report.findings) x.sample("noisewatch_check_status", {{"check", f.id}}, status_value(f.status));
  x.family("noisewatch_check_state", "gauge", "1 for the status (ok, info, warn, fail, unknown) of each check.");
  for (const auto& f : report.findings)
    for (Status s : {Status::ok, Status::info, Status::warn, Status::fail, Status::unknown})
      x.sample_int("noisewatch_check_state", {{"check", f.id}, {"state", std::string(to_string(s))}}, f.status == s);
  x.family("noisewatch_check_exit_status", "gauge",
           "Exit status of noisewatch check: 0 no warnings, 1 warnings, 2 failures.");
  x.sample("noisewatch_check_exit_status", {}, report.exit_status());
  auto per_cpu = [&](std::string_view name, std::string_view help, auto value) {
    x.family(name, "gauge", help);
    for (const auto& c : report.cpus) x.sample(name, {{"cpu", std::to_string(c.cpu)}}, value(c));
  };
  per_cpu("noisewatch_cpu_noise_ratio",
          "Fraction of the measurement a spinning thread lost to gaps above the threshold.",
          [](const auto& c) { return c.noise_ppm / 1e6; });
  per_cpu("noisewatch_cpu_max_gap_seconds", "Longest gap seen by the spinning thread.",
          [](const auto& c) { return double(c.max_gap_ns) / 1e9; });
  per_cpu("noisewatch_cpu_noise_gaps", "Gaps above the threshold during the measurement.",
          [](const auto& c) { return double(c.gaps); });
  per_cpu("noisewatch_cpu_noise_measured_seconds", "Length of the measurement on the CPU.",
          [](const auto& c) { return double(c.measured_ns) / 1e9; });
  if (report.recommended_cpu) {
    x.family("noisewatch_recommended_cpu", "gauge", "The quietest non-housekeeping CPU measured.");
    x.sample("noisewatch_recommended_cpu", {}, *report.recommended_cpu);
  }
  return x.str();
}

}  // namespace nw::check
