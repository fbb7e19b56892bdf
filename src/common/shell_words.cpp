// SPDX-License-Identifier: Apache-2.0
#include "common/shell_words.h"

namespace nw {

std::string single_quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string shell_quote(const std::string& s) {
  if (!s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%") ==
                        std::string::npos)
    return s;
  return single_quoted(s);
}

std::string shell_command(const std::vector<std::string>& argv) {
  std::string cmd;
  for (const auto& a : argv) {
    if (!cmd.empty()) cmd += ' ';
    cmd += shell_quote(a);
  }
  return cmd;
}

}  // namespace nw
