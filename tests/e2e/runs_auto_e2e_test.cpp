// SPDX-License-Identifier: Apache-2.0
// `noisewatch --runs auto`: it measures until the median is known within --precision, and when
// --max-runs comes first the report says which sources kept the interval wide.
#include <gtest/gtest.h>

#include <filesystem>

#include "support/run_helpers.h"

namespace nw::e2e {
namespace {

TEST(RunsAutoE2E, StopsOnceTheMedianIsKnownWithinThePrecision) {
  Proc cal = run({bin("acc_work"), "--calibrate", "10"});
  ASSERT_EQ(cal.status, 0);
  const std::string json = temp_path("auto.json");
  Proc p = run({noisewatch(), "--cpu", "1", "-q", "--runs", "auto", "--precision", "2", "--json", json, "--",
                bin("acc_work"), std::to_string(std::stol(cal.out))});
  ASSERT_EQ(p.status, 0) << p.err;
  auto rec = load_json(json);
  const auto& ra = rec["runs_auto"];
  ASSERT_TRUE(ra.is_object()) << rec.dump().substr(0, 300);
  EXPECT_EQ(ra["reached"], true) << ra.dump();
  EXPECT_LE(ra["achieved_percent"].get<double>(), 2.0);
  // The confidence sequence bounds nothing before 10 values: it cannot stop sooner.
  EXPECT_GE(ra["runs"].get<int>(), 10);
  EXPECT_LT(ra["runs"].get<int>(), 200);
  int measured = 0;
  for (const auto& r : rec["runs"]) measured += !r["warmup"].get<bool>();
  EXPECT_EQ(measured, ra["runs"].get<int>());
  EXPECT_NE(p.err.find("(--runs auto: median within ±"), std::string::npos) << p.err;
  std::filesystem::remove(json);
}

TEST(RunsAutoE2E, AtMaxRunsItSaysHowFarAndWhatKeptItWide) {
  Proc p = run({noisewatch(), "--cpu", "1", "-q", "--runs", "auto", "--precision", "0.01", "--max-runs", "12",
                "--format", "json", "--", bin("nw_spin"), "5"});
  ASSERT_EQ(p.status, 0) << p.err;
  auto doc = nlohmann::json::parse(p.out);
  EXPECT_EQ(doc["runs_auto"]["reached"], false);
  EXPECT_EQ(doc["runs_auto"]["runs"], 12);
  bool said = false;
  for (const auto& w : doc["warnings"])
    said |= w.get<std::string>().find("--runs auto stopped at --max-runs 12") != std::string::npos;
  EXPECT_TRUE(said) << doc["warnings"].dump();
  // Options that only go with auto, and auto with a harness, are refused before anything runs.
  EXPECT_EQ(run({noisewatch(), "--precision", "1", "--", "true"}).status, 125);
  EXPECT_EQ(run({noisewatch(), "--runs", "auto", "--windows", "--", "true"}).status, 125);
  EXPECT_EQ(run({noisewatch(), "--runs", "often", "--", "true"}).status, 125);
}

}  // namespace
}  // namespace nw::e2e
