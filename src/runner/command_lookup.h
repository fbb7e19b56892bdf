// SPDX-License-Identifier: Apache-2.0
// Resolves the benchmark command before anything runs, the way a shell would report failure.
#pragma once
#include <string>

namespace nw::runner {

struct Lookup {
  int status = 0;       // 0 found and executable, 127 not found, 126 not executable
  std::string path;     // resolved path when found
  std::string message;  // the shell-style one-liner otherwise
};

Lookup lookup_command(const std::string& name);

}  // namespace nw::runner
