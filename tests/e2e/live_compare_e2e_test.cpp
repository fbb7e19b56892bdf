// SPDX-License-Identifier: Apache-2.0
// End-to-end tests of `noisewatch compare -- A ::: B` with real workloads and real eBPF: the pairs
// interleave in random order on one CPU, the decision and its exit status, the record both sides
// share (loadable by report and compare), a failing command, and a hog on the CPU during part of
// the pairs, named and left out of the decision beside the main one.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <set>

#include "support/run_helpers.h"

namespace nw::e2e {
namespace {

// acc_work chunks for about `ms` of work on this CPU.
long chunks_for(int ms) {
  Proc p = run({bin("acc_work"), "--calibrate", std::to_string(ms)});
  return p.status == 0 ? std::stol(p.out) : 0;
}

std::vector<std::string> live(const std::vector<std::string>& options, long a_chunks, long b_chunks) {
  std::vector<std::string> argv = {noisewatch(), "compare", "--cpu", "1", "-q"};
  argv.insert(argv.end(), options.begin(), options.end());
  for (auto x : {std::string("--"), bin("acc_work"), std::to_string(a_chunks), std::string(":::"), bin("acc_work"),
                 std::to_string(b_chunks)})
    argv.push_back(x);
  return argv;
}

TEST(LiveCompareE2E, SlowerBIsDifferentAndTheRecordHoldsBothSidesInRandomOrder) {
  const long c = chunks_for(15);
  ASSERT_GT(c, 0);
  const std::string rec_path = temp_path("ab.json"), cmp_path = temp_path("ab-cmp.json");
  // B does 6 % more work: decided different, B slower, well before 100 pairs.
  Proc p = run(live({"--json", rec_path, "--format", "json", "-o", cmp_path}, c, c * 106 / 100));
  ASSERT_EQ(p.status, 0) << p.err;
  auto cmp = load_json(cmp_path);
  const auto& l = cmp["live"];
  EXPECT_EQ(l["outcome"], "different") << l.dump();
  EXPECT_EQ(cmp["verdict"], "slower");
  EXPECT_GT(l["ci"][0].get<double>(), 1.0) << l.dump();
  // The work is 6 % more; process start-up and exit are the same on both sides.
  EXPECT_GT(l["ratio"].get<double>(), 1.02) << l.dump();
  EXPECT_LT(l["ratio"].get<double>(), 1.08) << l.dump();
  EXPECT_LT(l["pairs"].get<int>(), 100);
  EXPECT_TRUE(cmp["p_value"].is_null()) << "a sequential decision has no p-value";

  // The record: every measured run labelled A or B with its pair, each pair one of each, both
  // orders present, warm-ups of both sides first.
  auto rec = load_json(rec_path);
  ASSERT_TRUE(rec.contains("compare_sides")) << rec.dump().substr(0, 400);
  std::map<int, std::vector<std::string>> by_pair;
  int warmups = 0;
  for (const auto& r : rec["runs"]) {
    if (r["warmup"].get<bool>()) {
      ++warmups;
      EXPECT_FALSE(r.contains("pair"));
      continue;
    }
    by_pair[r["pair"].get<int>()].push_back(r["label"].get<std::string>());
  }
  EXPECT_EQ(warmups, 2);
  EXPECT_EQ(by_pair.size(), l["pairs"].get<size_t>());
  std::set<std::string> orders;
  for (const auto& [pair, sides] : by_pair) {
    ASSERT_EQ(sides.size(), 2u) << pair;
    EXPECT_NE(sides[0], sides[1]) << pair;
    orders.insert(sides[0] + sides[1]);
  }
  if (by_pair.size() >= 10) EXPECT_EQ(orders.size(), 2u) << "the order of a pair is drawn at random";
  // Loadable by report (a section per side) and by compare alone (the same decision).
  Proc report = run({noisewatch(), "report", rec_path});
  ASSERT_EQ(report.status, 0) << report.err;
  EXPECT_NE(report.out.find("── A ("), std::string::npos) << report.out;
  EXPECT_NE(report.out.find("── B ("), std::string::npos) << report.out;
  Proc again = run({noisewatch(), "compare", rec_path, "--format", "json"});
  ASSERT_EQ(again.status, 0) << again.err;
  EXPECT_EQ(nlohmann::json::parse(again.out)["live"]["ratio"], l["ratio"]);
  // --fail-above below the slowdown: exit 1, on the saved record too.
  EXPECT_EQ(run({noisewatch(), "compare", rec_path, "--fail-above", "1"}).status, 1);
  for (const auto& f : {rec_path, cmp_path}) std::filesystem::remove(f);
}

TEST(LiveCompareE2E, IdenticalCommandsAreNeverDifferentAndTooFewPairsAreUndecided) {
  const long c = chunks_for(10);
  ASSERT_GT(c, 0);
  // At 99.9 % confidence a false "different" has a chance of 1 in 1000 at most.
  Proc p = run(live({"--confidence", "99.9", "--max-runs", "60", "--format", "json"}, c, c));
  ASSERT_TRUE(p.status == 0 || p.status == 2) << p.status << p.err;
  auto cmp = nlohmann::json::parse(p.out);
  EXPECT_NE(cmp["live"]["outcome"], "different") << cmp["live"].dump();
  EXPECT_EQ(p.status == 0, cmp["live"]["outcome"] == "same");
  // Three pairs can tell nothing: undecided is exit 2, and the text says what stood in the way.
  Proc few = run(live({"--max-runs", "3"}, c, c));
  EXPECT_EQ(few.status, 2) << few.err;
  EXPECT_NE(few.err.find("Undecided after 3 pairs (at most 3)"), std::string::npos) << few.err;
}

TEST(LiveCompareE2E, AFailingCommandIsExitThreeAndBadInputIs125) {
  Proc fails = run({noisewatch(), "compare", "--cpu", "1", "-q", "--", bin("acc_work"), "1000", ":::", "/bin/false"});
  EXPECT_EQ(fails.status, 3) << fails.err;
  EXPECT_NE(fails.err.find("B"), std::string::npos) << fails.err;
  EXPECT_NE(fails.err.find("exited with status 1"), std::string::npos) << fails.err;
  Proc no_sep = run({noisewatch(), "compare", "--", bin("acc_work"), "1000", bin("acc_work"), "1000"});
  EXPECT_EQ(no_sep.status, 125);
  EXPECT_NE(no_sep.err.find(":::"), std::string::npos) << no_sep.err;
  Proc empty_b = run({noisewatch(), "compare", "--", bin("acc_work"), "1000", ":::"});
  EXPECT_EQ(empty_b.status, 125) << empty_b.err;
  Proc missing = run({noisewatch(), "compare", "--", bin("acc_work"), "1000", ":::", "/nonexistent/bench"});
  EXPECT_EQ(missing.status, 127) << missing.err;
  Proc live_option_on_files = run({noisewatch(), "compare", "--max-runs", "5", "a.json", "b.json"});
  EXPECT_EQ(live_option_on_files.status, 125) << live_option_on_files.err;
}

// A hog on the benchmark CPU, switched on and off every 0.4 s while the pairs run: the runs it
// struck are listed with it as their source, and the decision without them is the right one.
TEST(LiveCompareE2E, AHogDuringPartOfThePairsIsNamedAndLeftOutBeside) {
  const long c = chunks_for(15);
  ASSERT_GT(c, 0);
  // setsid: the shell leads a process group of its own, killed whole (its hog too) at the end.
  const std::string script = "while :; do " + bin("nw_hog") + " 0.4 1; sleep 0.4; done";
  const pid_t toggler = spawn({"/usr/bin/setsid", "/bin/sh", "-c", script}, "/dev/null", "/dev/null");
  Proc p = run(live({"--min-runs", "30", "--max-runs", "60", "--format", "json"}, c, c * 106 / 100));
  kill(-toggler, SIGKILL);
  waitpid(toggler, nullptr, 0);
  ASSERT_TRUE(p.status == 0 || p.status == 2) << p.err;
  auto l = nlohmann::json::parse(p.out)["live"];
  ASSERT_FALSE(l["disturbed"].empty()) << "the hog struck no run: " << l.dump();
  int by_hog = 0;
  for (const auto& d : l["disturbed"]) by_hog += d["source"] == "preemption:nw_hog";
  EXPECT_GE(by_hog * 2, int(l["disturbed"].size())) << l["disturbed"].dump();
  ASSERT_TRUE(l["undisturbed"].is_object()) << l.dump();
  EXPECT_EQ(l["undisturbed"]["outcome"], "different") << l["undisturbed"].dump();
  EXPECT_GT(l["undisturbed"]["ci"][0].get<double>(), 1.0) << l["undisturbed"].dump();
}

}  // namespace
}  // namespace nw::e2e
