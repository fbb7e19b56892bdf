// SPDX-License-Identifier: Apache-2.0
// The output formats of a document (a check report, a comparison): one table per document names
// every format --format accepts and its renderer, so that the option's choices, its help and the
// dispatch cannot disagree. reports/render.cpp keeps the run report's own table (it has aliases).
#pragma once
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/errors.h"

namespace nw {

template <class Doc>
struct OutputFormat {
  std::string_view name;
  std::string_view about;  // said after the name in --help ("noisewatch.check/1"), or ""
  std::string (*render)(const Doc& doc, bool color);
};

// The names, in table order (the first is the default).
template <class Doc>
std::vector<std::string> format_names(std::span<const OutputFormat<Doc>> table) {
  std::vector<std::string> out;
  for (const auto& f : table) out.emplace_back(f.name);
  return out;
}

// "text (default), json (noisewatch.check/1) or prometheus (textfile collector)".
template <class Doc>
std::string format_help(std::span<const OutputFormat<Doc>> table) {
  std::string out;
  for (size_t i = 0; i < table.size(); ++i) {
    if (i) out += i + 1 == table.size() ? " or " : ", ";
    out += table[i].name;
    std::string_view about = i == 0 && table[i].about.empty() ? "default" : table[i].about;
    if (!about.empty()) out += fmt::format(" ({}{})", about, i == 0 && about != "default" ? ", the default" : "");
  }
  return out;
}

// The renderer for a --format name; a name not in the table is the user's error.
template <class Doc>
std::string render_as(std::span<const OutputFormat<Doc>> table, std::string_view name, const Doc& doc, bool color) {
  for (const auto& f : table)
    if (f.name == name) return f.render(doc, color);
  std::vector<std::string> names = format_names(table);
  throw Error(fmt::format("unknown format '{}': use {}", name, fmt::join(names, ", ")));
}

}  // namespace nw
