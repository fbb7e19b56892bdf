// SPDX-License-Identifier: Apache-2.0
// docs/design.md "Layout" names every top-level folder, every folder of src/ and tests/ and every
// script of bench/; this test fails when that list and the source tree disagree either way.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "support/files.h"

namespace nw {
namespace {

namespace fs = std::filesystem;
const fs::path kRoot = NW_SOURCE_DIR;

// The entries of the code block under "## Layout": a line that starts in the first column names
// a top-level entry, one indented by exactly two spaces an entry inside the last top-level folder;
// deeper indentation continues the text. Keys are top-level entries ("src/"), values what is listed
// inside them ("cli/", "overhead.sh").
std::map<std::string, std::set<std::string>> layout_entries() {
  std::map<std::string, std::set<std::string>> out;
  std::istringstream lines(test::doc_code_block("docs/design.md", "## Layout"));
  std::string top;
  for (std::string line; std::getline(lines, line);) {
    if (line.empty()) continue;
    std::string word = line.substr(line.find_first_not_of(' '));
    word = word.substr(0, word.find(' '));
    if (line[0] != ' ') {
      top = word;
      out[top];
    } else if (line.starts_with("  ") && line[2] != ' ') {
      out[top].insert(word);
    }
  }
  return out;
}

// The folders (as "name/") and, when `extension` is given, the files with it directly in `dir`.
// Hidden entries and build trees (a CMakeCache.txt) are not part of the source tree.
std::set<std::string> tree_entries(const fs::path& dir, const std::string& extension = "") {
  std::set<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    std::string name = e.path().filename().string();
    if (name.starts_with(".")) continue;
    if (e.is_directory() && !fs::exists(e.path() / "CMakeCache.txt")) out.insert(name + "/");
    if (!extension.empty() && e.is_regular_file() && e.path().extension() == extension) out.insert(name);
  }
  return out;
}

TEST(DesignLayout, EveryListedEntryExists) {
  auto layout = layout_entries();
  ASSERT_GE(layout.size(), 10u) << "docs/design.md has no \"## Layout\" code block";
  for (const auto& [top, inside] : layout) {
    EXPECT_TRUE(fs::exists(kRoot / top)) << "docs/design.md (Layout) lists " << top << ", which does not exist";
    for (const auto& e : inside)
      EXPECT_TRUE(fs::exists(kRoot / top / e))
          << "docs/design.md (Layout) lists " << top << e << ", which does not exist";
  }
}

TEST(DesignLayout, ListsEveryFolderAndBenchScript) {
  auto layout = layout_entries();
  for (const auto& d : tree_entries(kRoot)) EXPECT_TRUE(layout.count(d)) << d << " is not in docs/design.md (Layout)";
  struct Inside {
    std::string top, extension;
  } checked[] = {{"src/", ""}, {"tests/", ""}, {"bench/", ".sh"}};
  for (const auto& [top, extension] : checked)
    for (const auto& e : tree_entries(kRoot / top, extension))
      EXPECT_TRUE(layout[top].count(e)) << top << e << " is not in docs/design.md (Layout)";
}

}  // namespace
}  // namespace nw
