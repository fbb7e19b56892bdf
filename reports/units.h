// SPDX-License-Identifier: Apache-2.0
// Human-readable numbers shared by every renderer, so that all formats say the same thing.
#pragma once
#include <string>

#include "common/durations.h"  // format_duration: the one way to write a duration

namespace nw::report {

std::string format_percent(double fraction, int decimals = 1);  // 0.0272 -> "2.7 %"
std::string format_share(double fraction);                      // 0.712 -> "71 %"
// Drops blank lines at the end of a rendered document, keeping its final newline.
void trim_blank_tail(std::string& doc);

}  // namespace nw::report
