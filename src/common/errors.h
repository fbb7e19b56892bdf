// SPDX-License-Identifier: Apache-2.0
// noisewatch's own error: what every layer throws for a user's mistake or a missing capability.
// The command line turns it into a one-line message and exit status 125 (cli/commands.h).
#pragma once
#include <stdexcept>

namespace nw {

// Bad command line, bad input file, missing privileges, probe failure: noisewatch's own error.
// Its message is one line that says what to do.
struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace nw
