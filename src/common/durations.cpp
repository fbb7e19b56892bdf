// SPDX-License-Identifier: Apache-2.0
#include "common/durations.h"

#include <cmath>

#include <fmt/format.h>

namespace nw {

std::string format_duration(double ns, int digits) {
  const double a = std::fabs(ns);
  if (digits <= 0) {
    if (a < 1e3) return fmt::format("{:.0f} ns", ns);
    if (a < 1e6) return fmt::format("{:.1f} µs", ns / 1e3);
    if (a < 1e9) return fmt::format("{:.2f} ms", ns / 1e6);
    return fmt::format("{:.3f} s", ns / 1e9);
  }
  if (ns == 0) return "0 ns";
  const char* unit = "ns";
  double v = ns;
  if (a >= 1e9) unit = "s", v = ns / 1e9;
  else if (a >= 1e6) unit = "ms", v = ns / 1e6;
  else if (a >= 1e3) unit = "µs", v = ns / 1e3;
  const double av = std::fabs(v);
  const int whole = av >= 100 ? 3 : av >= 10 ? 2 : 1;
  return fmt::format("{:.{}f} {}", v, std::max(0, digits - whole), unit);
}

}  // namespace nw
