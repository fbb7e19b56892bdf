// SPDX-License-Identifier: Apache-2.0
// Golden outputs of the three compare renderers. After an intended output change, regenerate with
//   NW_UPDATE_GOLDENS=1 ./unit_tests --gtest_filter='CompareGolden*'
// and review the diff of tests/data/compare/golden/ like code.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "compare/compare.h"
#include "compare/render.h"
#include "support/files.h"

namespace nw::compare {
namespace {

std::string data(const std::string& name) { return std::string(NW_SOURCE_DIR) + "/tests/data/compare/" + name; }

void check_golden(const std::string& text, const std::string& golden) {
  test::expect_golden(text, data("golden/" + golden));
}

struct Case {
  const char* name;
  const char* base;
  const char* next;
  std::optional<double> fail_above;
};

class CompareGolden : public ::testing::TestWithParam<Case> {};

TEST_P(CompareGolden, TextMarkdownJson) {
  const Case& k = GetParam();
  Options o;
  o.fail_above_percent = k.fail_above;
  auto c = compare_inputs(load_input(data(k.base)), load_input(data(k.next)), o);
  c.base_label = k.base;  // paths relative to the data directory, so goldens do not depend on the checkout
  c.new_label = k.next;
  check_golden(render_text(c), std::string(k.name) + ".txt");
  check_golden(render_markdown(c), std::string(k.name) + ".md");
  std::string json = render_json(c);
  check_golden(json, std::string(k.name) + ".json");
  auto j = nlohmann::json::parse(json);  // the contract's fields, whatever else is there
  EXPECT_EQ(j["schema"], "noisewatch.compare/1");
  for (const auto& b : j["benchmarks"]) {
    EXPECT_TRUE(b["verdict"] == "slower" || b["verdict"] == "faster" || b["verdict"] == "no-change" ||
                b["verdict"] == "inconclusive");
    EXPECT_TRUE(b["ratio"].is_number());
    EXPECT_TRUE(b["name"].is_string());
    EXPECT_TRUE(b.contains("cpu"));
    // No interval, no test: null, never a number that looks like a result.
    EXPECT_TRUE(b["ci"].is_null() || b["ci"].size() == 2u);
    EXPECT_EQ(b["ci"].is_null(), !b["ci_bounded"].get<bool>());
    EXPECT_EQ(b["p_value"].is_null(), b["verdict"] == "inconclusive");
  }
  EXPECT_EQ(j["verdict"], j["benchmarks"][c.headline]["verdict"]);
  for (const char* key : {"benchmarks", "slower", "faster", "no_change", "inconclusive", "geomean_ratio"})
    EXPECT_TRUE(j["summary"].contains(key)) << key;
  EXPECT_EQ(j["summary"]["benchmarks"], j["benchmarks"].size());
  for (const auto& n : j["noise_diff"]) {
    EXPECT_TRUE(n["source"].is_string());
    EXPECT_TRUE(n["base_mean_ns"].is_number());
    EXPECT_TRUE(n["new_mean_ns"].is_number());
  }
}

INSTANTIATE_TEST_SUITE_P(
    Samples, CompareGolden,
    ::testing::Values(Case{"noisy", "nw_base.json", "nw_new_noisy.json", 3.0},
                      Case{"kernel", "nw_base.json", "nw_new_other_kernel.json", {}},
                      Case{"gbench", "gbench_base.json", "gbench_new.json", 1.0},
                      // Files written by the real tools (see tests/data/compare/README).
                      Case{"gbench_one_run", "real/gbench_compare_py_test1_run1.json",
                           "real/gbench_compare_py_test1_run2.json", 5.0},
                      Case{"gbench_cpu", "real/gbench_reps_base.json", "gbench_reps_new_other_host.json", {}},
                      Case{"pyperf_gz", "real/pyperf_doc_py2.json.gz", "real/pyperf_doc_py3.json.gz", {}},
                      Case{"hyperfine", "real/hyperfine_base.json", "real/hyperfine_new.json", {}}),
    [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace nw::compare
