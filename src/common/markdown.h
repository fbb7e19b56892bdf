// SPDX-License-Identifier: Apache-2.0
// Markdown that pastes into a pull request or an issue: what every markdown renderer shares.
#pragma once
#include <string>
#include <string_view>

namespace nw {

// `text` as one cell of a GitHub-flavoured table: a pipe would end the cell and a newline the
// row, so pipes are escaped and newlines become spaces.
std::string markdown_cell(std::string_view text);

}  // namespace nw
