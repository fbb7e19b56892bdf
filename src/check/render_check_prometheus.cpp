#include <fmt/format.h>

#include "check/check_render.h"

namespace nw::check {

namespace {

int status_value(Status s) {
  switch (s) {
    case Status::ok:
    case Status::info: return 0;
    case Status::warn: return 1;
    case Status::fail: return 2;
    case Status::unknown: return -1;
  }
  return -1;
}

// Label values are quoted strings: escape backslash, quote and newline.
std::string label(const std::string& v) {
  std::string out;
  for (char c : v) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

}  // namespace

std::string render_prometheus(const CheckReport& report) {
  std::string out;
  out += "# HELP noisewatch_check_status Result of a noisewatch check: 0 ok or info, 1 warn, 2 fail, -1 unknown.\n";
  out += "# TYPE noisewatch_check_status gauge\n";
  for (const auto& f : report.findings)
    out += fmt::format("noisewatch_check_status{{check=\"{}\"}} {}\n", label(f.id), status_value(f.status));
  out += "# HELP noisewatch_check_state 1 for the status (ok, info, warn, fail, unknown) of each check.\n";
  out += "# TYPE noisewatch_check_state gauge\n";
  for (const auto& f : report.findings)
    for (Status s : {Status::ok, Status::info, Status::warn, Status::fail, Status::unknown})
      out += fmt::format("noisewatch_check_state{{check=\"{}\",state=\"{}\"}} {}\n", label(f.id), to_string(s),
                         f.status == s ? 1 : 0);
  out += "# HELP noisewatch_check_exit_status Exit status of noisewatch check: 0 no warnings, 1 warnings, 2 failures.\n";
  out += "# TYPE noisewatch_check_exit_status gauge\n";
  out += fmt::format("noisewatch_check_exit_status {}\n", report.exit_status());
  if (!report.cpus.empty()) {
    out += "# HELP noisewatch_cpu_noise_ratio Fraction of the measurement a spinning thread lost to gaps above the threshold.\n";
    out += "# TYPE noisewatch_cpu_noise_ratio gauge\n";
    for (const auto& c : report.cpus)
      out += fmt::format("noisewatch_cpu_noise_ratio{{cpu=\"{}\"}} {:.9g}\n", c.cpu, c.noise_ppm / 1e6);
    out += "# HELP noisewatch_cpu_max_gap_seconds Longest gap seen by the spinning thread.\n";
    out += "# TYPE noisewatch_cpu_max_gap_seconds gauge\n";
    for (const auto& c : report.cpus)
      out += fmt::format("noisewatch_cpu_max_gap_seconds{{cpu=\"{}\"}} {:.9g}\n", c.cpu, double(c.max_gap_ns) / 1e9);
    out += "# HELP noisewatch_cpu_noise_gaps Gaps above the threshold during the measurement.\n";
    out += "# TYPE noisewatch_cpu_noise_gaps gauge\n";
    for (const auto& c : report.cpus) out += fmt::format("noisewatch_cpu_noise_gaps{{cpu=\"{}\"}} {}\n", c.cpu, c.gaps);
    out += "# HELP noisewatch_cpu_noise_measured_seconds Length of the measurement on the CPU.\n";
    out += "# TYPE noisewatch_cpu_noise_measured_seconds gauge\n";
    for (const auto& c : report.cpus)
      out += fmt::format("noisewatch_cpu_noise_measured_seconds{{cpu=\"{}\"}} {:.9g}\n", c.cpu,
                         double(c.measured_ns) / 1e9);
  }
  if (report.recommended_cpu) {
    out += "# HELP noisewatch_recommended_cpu The quietest non-housekeeping CPU measured.\n";
    out += "# TYPE noisewatch_recommended_cpu gauge\n";
    out += fmt::format("noisewatch_recommended_cpu {}\n", *report.recommended_cpu);
  }
  return out;
}

}  // namespace nw::check
