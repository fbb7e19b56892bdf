// SPDX-License-Identifier: Apache-2.0
#include "common/markdown.h"

namespace nw {

std::string markdown_cell(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '|') out += "\\|";
    else if (c == '\n') out += ' ';
    else out += c;
  }
  return out;
}

}  // namespace nw
