// SPDX-License-Identifier: Apache-2.0
// Running a helper command (git, a build) and capturing what it prints: for the commands noisewatch
// drives, never for the benchmark (runner/held_child.h runs that).
#pragma once
#include <string>
#include <vector>

namespace nw {

struct Captured {
  int status = 0;        // shell convention: the exit status, 128+N when killed by signal N, 127 not started
  std::string out, err;  // everything it wrote to stdout and stderr
};

// Runs argv (looked up in PATH) in `cwd` ("" for noisewatch's), stdin from /dev/null.
Captured run_captured(const std::vector<std::string>& argv, const std::string& cwd = "");

}  // namespace nw
