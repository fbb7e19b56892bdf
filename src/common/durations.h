// SPDX-License-Identifier: Apache-2.0
// The one way a duration is written for people, in every output of every subcommand.
#pragma once
#include <string>

namespace nw {

// ns, µs, ms or s, whichever keeps the number below 1000. By default (digits = 0) with the
// precision each unit needs to read well: "812 ns", "12.3 µs", "4.56 ms", "1.234 s". With
// `digits` significant digits (compare uses 4, so that 13.43 ns and 12.92 ns stay apart next to
// a 3.8 % change): "13.43 ns", "870.2 ns", "12.35 ms".
std::string format_duration(double ns, int digits = 0);

}  // namespace nw
