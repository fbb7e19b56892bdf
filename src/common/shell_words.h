// SPDX-License-Identifier: Apache-2.0
#pragma once
// Quoting for the commands noisewatch prints for a user to paste into a shell (fixes, reruns,
// completions): one rule, so a printed command always runs as shown.
#include <string>
#include <vector>

namespace nw {

// `s` in single quotes, always (a ' inside becomes '\'').
std::string single_quoted(const std::string& s);

// `s` as one shell word: unchanged when it holds only characters no shell gives a meaning to,
// else single-quoted.
std::string shell_quote(const std::string& s);

// argv as one shell line, each argument quoted where needed.
std::string shell_command(const std::vector<std::string>& argv);

}  // namespace nw
