// SPDX-License-Identifier: Apache-2.0
#include "reports/units.h"

#include <cmath>

#include <fmt/format.h>

namespace nw::report {

std::string format_percent(double fraction, int decimals) {
  double v = fraction * 100;
  if (std::fabs(v) < 0.5 * std::pow(10.0, -decimals)) v = 0;  // no "-0.0 %"
  return fmt::format("{:.{}f} %", v, decimals);
}

std::string format_share(double fraction) {
  double v = std::round(fraction * 100);
  if (v == 0) v = 0;  // no "-0 %"
  return fmt::format("{:.0f} %", v);
}

void trim_blank_tail(std::string& doc) {
  while (doc.size() > 1 && doc[doc.size() - 1] == '\n' && doc[doc.size() - 2] == '\n') doc.pop_back();
}

}  // namespace nw::report
