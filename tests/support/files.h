// SPDX-License-Identifier: Apache-2.0
// File helpers shared by the unit and end-to-end tests: read a whole file, and compare output
// with a golden file. One convention for every golden: run the tests with NW_UPDATE_GOLDENS=1
// (narrowed with --gtest_filter) to rewrite the goldens they compare against, then review the
// diff as code.
#pragma once
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

namespace nw::test {

// The whole file, bytes as they are; "" when it cannot be read.
inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The first code block (between lines of ```) after the line `heading` of a document under
// NW_SOURCE_DIR ("docs/design.md", "## Layout"); "" when there is none. For the tests that hold a
// document's lists to the code.
inline std::string doc_code_block(const std::string& doc_path, const std::string& heading) {
  std::string doc = slurp(std::string(NW_SOURCE_DIR) + "/" + doc_path);
  auto section = doc.find("\n" + heading + "\n");
  if (section == std::string::npos) return "";
  auto open = doc.find("```\n", section);
  if (open == std::string::npos) return "";
  auto close = doc.find("\n```", open + 4);
  if (close == std::string::npos) return "";
  return doc.substr(open + 4, close - open - 4);
}

// Expects `actual` to equal the golden file at `path`; rewrites it instead under
// NW_UPDATE_GOLDENS=1. A missing golden is a failure that says how to create it.
inline void expect_golden(const std::string& actual, const std::string& path) {
  if (std::getenv("NW_UPDATE_GOLDENS")) {
    std::ofstream(path, std::ios::binary) << actual;
    return;
  }
  std::ifstream probe(path);
  ASSERT_TRUE(probe.good()) << "missing golden " << path << " (run with NW_UPDATE_GOLDENS=1 and review it)";
  EXPECT_EQ(actual, slurp(path)) << "differs from " << path
                                 << " (if intended: NW_UPDATE_GOLDENS=1, then review the diff)";
}

}  // namespace nw::test
