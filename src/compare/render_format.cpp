#include <cmath>

#include <fmt/format.h>

#include "compare/render.h"

namespace nw::compare {

std::string format_duration(double ns) {
  double a = std::fabs(ns);
  if (a >= 1e9) return fmt::format("{:.3f} s", ns / 1e9);
  if (a >= 1e6) return fmt::format("{:.3f} ms", ns / 1e6);
  if (a >= 1e3) return fmt::format("{:.3f} µs", ns / 1e3);
  return fmt::format("{:.0f} ns", ns);
}

std::string format_p(double p) { return p < 0.001 ? "<0.001" : fmt::format("{:.3f}", p); }

std::string format_signed_points(double pts) { return fmt::format("{:+.2f}", pts); }

}  // namespace nw::compare
