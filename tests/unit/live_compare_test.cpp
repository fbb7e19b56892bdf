// SPDX-License-Identifier: Apache-2.0
// Live compare's statistics and report on synthetic records of interleaved pairs (labels A and B,
// each run with its pair): which pairs count, the decision, the runs one source disturbed, what
// stood in the way of a decision, the exit statuses and every format.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "compare/live_decision.h"
#include "compare/render.h"
#include "report_synthetic.h"
#include "runner/live_compare.h"

namespace nw::compare {
namespace {

// `pairs` pairs of a 10 ms benchmark, B `ratio` times A, Gaussian jitter of `sd` (relative) on
// each run; `inject(pair, side, run)` adds noise (its time lengthens the run, as in a real run).
using Inject = std::function<void(int pair, const std::string& side, RunSample& run)>;
RunRecord live_record(int pairs, double ratio, double sd, const Inject& inject = {}, uint64_t seed = 3) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> jitter(0, sd);
  RunRecord rec;
  rec.version = "test";
  rec.command = {"./a"};
  rec.cpus = {1};
  rec.host = {"synthetic", "6.18", "Test CPU", false, 2};
  rec.compare_sides = CompareSides{.a = {"./a"}, .b = {"./b"}, .max_pairs = 100};
  int index = 0;
  for (int p = -1; p < pairs; ++p)
    for (const char* side : {kSideA, kSideB}) {
      RunSample r;
      r.index = index++;
      r.warmup = p < 0;
      if (p >= 0) r.pair = p;
      r.label = side;
      double base = 10e6 * (side == std::string(kSideB) ? ratio : 1.0) * (1 + jitter(rng));
      r.noise.push_back(test::time_entry("irq:local_timer", 20e3, 3));
      if (inject && p >= 0) inject(p, side, r);
      double extra = 0;
      for (const auto& e : r.noise) extra += double(e.time_ns);
      r.wall_ns = uint64_t(base + extra);
      r.user_ns = uint64_t(base);
      rec.samples.push_back(std::move(r));
    }
  rec.summary = summarize(rec);
  return rec;
}

TEST(LiveCompare, OnlyCompleteMeasuredPairsCount) {
  auto rec = live_record(6, 1.0, 0.01);
  rec.samples[5].exit_status = 1;  // pair 1's B failed
  rec.samples.pop_back();          // pair 5 has no B
  auto pairs = complete_pairs(rec);
  std::vector<int> got;
  for (const auto& p : pairs) got.push_back(p.index);
  EXPECT_EQ(got, (std::vector<int>{0, 2, 3, 4}));
  EXPECT_GT(pairs[0].a_ns, 0);
  EXPECT_GT(pairs[0].b_ns, 0);
}

// What bisect decides on: the undisturbed times, wall less what noise stole. A hog that takes 3 ms
// from B in every other pair makes the wall times read B slower; the undisturbed times still read
// them the same, and keep the benchmark's own blocking (code, not noise) in.
TEST(LiveCompare, UndisturbedPairsLeaveOutWhatNoiseStole) {
  auto rec = live_record(40, 1.0, 0.005, [](int pair, const std::string& side, RunSample& r) {
    if (side == kSideB && pair % 2 == 0) r.noise.push_back(test::time_entry("preemption:cron", 3e6, 1));
  });
  auto wall = decide_pairs(complete_pairs(rec), 1.0, 0.05);
  auto undisturbed = decide_pairs(complete_pairs(rec, PairTime::undisturbed), 1.0, 0.05);
  EXPECT_EQ(wall.outcome, "different");
  EXPECT_GT(wall.ratio, 1.1);
  EXPECT_EQ(undisturbed.outcome, "same");
  EXPECT_NEAR(undisturbed.ratio, 1.0, 0.005);
  for (const auto& p : complete_pairs(rec, PairTime::undisturbed)) {
    // Less the timer's 20 us too, and never below the work itself.
    EXPECT_NEAR(p.a_ns, 10e6, 0.05 * 10e6);
    EXPECT_NEAR(p.b_ns, 10e6, 0.05 * 10e6);
  }
  // The benchmark's own blocking is not stolen: a B that sleeps 2 ms more is slower either way.
  auto sleeps = live_record(40, 1.0, 0.005, [](int, const std::string& side, RunSample& r) {
    if (side == kSideB) r.noise.push_back(test::time_entry("blocking", 2e6, 1));
  });
  auto own = decide_pairs(complete_pairs(sleeps, PairTime::undisturbed), 1.0, 0.05);
  EXPECT_EQ(own.outcome, "different");
  EXPECT_NEAR(own.ratio, 1.2, 0.01);
}

TEST(LiveCompare, DecidesDifferentSameAndUndecided) {
  auto slower = decide_pairs(complete_pairs(live_record(40, 1.05, 0.01)), 1.0, 0.05);
  EXPECT_EQ(slower.outcome, "different");
  EXPECT_NEAR(slower.ratio, 1.05, 0.01);
  EXPECT_GT(slower.low, 1.0);
  EXPECT_LT(slower.low, 1.05);
  EXPECT_GT(slower.high, 1.05);
  auto same = decide_pairs(complete_pairs(live_record(80, 1.0, 0.003)), 1.0, 0.05);
  EXPECT_EQ(same.outcome, "same");
  EXPECT_GT(same.low, 1 / 1.01);
  EXPECT_LT(same.high, 1.01);
  auto few = decide_pairs(complete_pairs(live_record(5, 1.05, 0.01)), 1.0, 0.05);
  EXPECT_EQ(few.outcome, "undecided");
  EXPECT_EQ(few.low, 0) << "unbounded below: 5 pairs pin nothing";
  EXPECT_TRUE(std::isinf(few.high));
  // Leaving pairs out takes them out of the sequence.
  EXPECT_EQ(decide_pairs(complete_pairs(live_record(40, 1.05, 0.01)), 1.0, 0.05, {0, 1, 2}).pairs, 37u);
}

TEST(LiveCompare, RunsOneSourceStruckAreNamedAndTheQuietOnesAreNot) {
  auto rec = live_record(30, 1.0, 0.002, [](int pair, const std::string& side, RunSample& r) {
    if ((pair == 4 && side == "A") || (pair == 9 && side == "B") || pair == 20)
      r.noise.push_back(test::time_entry("preemption:stress-ng", 3e6));
    r.noise.push_back(test::time_entry("softirq:RCU", 5e3 + 100 * (pair % 7), 2));  // steady
  });
  auto d = find_disturbed(rec, 1.0);
  ASSERT_EQ(d.size(), 4u);
  for (const auto& x : d) {
    EXPECT_EQ(x.source, "preemption:stress-ng");
    EXPECT_EQ(x.time_ns, 3e6);
    EXPECT_EQ(x.typical_ns, 0);
  }
  EXPECT_EQ(d[0].pair, 4);
  EXPECT_EQ(d[0].side, "A");
  // A disturbance smaller than the margin (1 % of 10 ms) is not one.
  auto small = live_record(30, 1.0, 0.002, [](int pair, const std::string&, RunSample& r) {
    if (pair == 4) r.noise.push_back(test::time_entry("preemption:stress-ng", 50e3));
  });
  EXPECT_TRUE(find_disturbed(small, 1.0).empty());
}

TEST(LiveCompare, TheComparisonLeadsWithTheDecisionInEveryFormat) {
  auto rec = live_record(30, 1.04, 0.005, [](int pair, const std::string& side, RunSample& r) {
    if (pair == 7 && side == "B") r.noise.push_back(test::time_entry("preemption:stress-ng", 4e6));
  });
  Options o;
  o.fail_above_percent = 2;
  auto c = runner::live_comparison(rec, o, 100);
  ASSERT_TRUE(c.live);
  EXPECT_EQ(c.live->decision.outcome, "different");
  EXPECT_EQ(c.top().timing.verdict, Verdict::slower);
  EXPECT_FALSE(c.top().timing.tested);
  EXPECT_EQ(c.top().base.runs, 30u);
  EXPECT_EQ(runner::live_exit_status(c, 0), 1) << "4 % slower, decided, beyond --fail-above 2";
  const std::string text = render_text(c);
  EXPECT_EQ(text.rfind("Different: B is 4.", 0), 0u) << text;
  EXPECT_NE(text.find("preemption:stress-ng in 1 run (pair 8 B"), std::string::npos) << text;
  EXPECT_NE(text.find("Without those pairs: different"), std::string::npos) << text;
  EXPECT_NE(text.find("confidence sequence, no p-value"), std::string::npos) << text;
  EXPECT_NE(render_markdown(c).find("**Different: B is 4."), std::string::npos);
  auto j = to_json(c);
  EXPECT_EQ(j["verdict"], "slower");
  EXPECT_TRUE(j["p_value"].is_null());
  EXPECT_EQ(j["live"]["outcome"], "different");
  EXPECT_EQ(j["live"]["pairs"], 30);
  EXPECT_EQ(j["live"]["disturbed"].size(), 1u);
  EXPECT_EQ(j["live"]["undisturbed"]["pairs"], 29);
  EXPECT_EQ(j["live"]["b_command"], nlohmann::json::array({"./b"}));
  // A saved record decides the same.
  auto again = runner::live_comparison(run_record_from_json(to_json(rec)), o, 100);
  EXPECT_EQ(again.live->decision.ratio, c.live->decision.ratio);
}

// Undecided: both sides jumping with an IRQ that strikes some runs hard. The report names it, its
// share of both sides' variance, and the advice that would remove it.
TEST(LiveCompare, UndecidedNamesTheNoiseThatStoodInTheWay) {
  auto rec = live_record(12, 1.0, 0.001, [](int pair, const std::string& side, RunSample& r) {
    const double ns = ((pair * 7 + (side == "B" ? 3 : 0)) % 5) * 1.5e6;
    r.noise.push_back({"irq:virtio1-req.0", 50, uint64_t(ns), 100000, {{"irq", 24}}});
  });
  auto c = runner::live_comparison(rec, Options{}, 12);
  ASSERT_TRUE(c.live);
  EXPECT_EQ(c.live->decision.outcome, "undecided");
  EXPECT_EQ(runner::live_exit_status(c, 0), 2);
  ASSERT_FALSE(c.live->obstacles.empty());
  const auto& top = c.live->obstacles.front();
  EXPECT_EQ(top.source, "irq:virtio1-req.0");
  EXPECT_GT(top.share, 0.8);
  EXPECT_EQ(top.sides, "both sides");
  EXPECT_NE(top.fix.find("/proc/irq"), std::string::npos) << top.fix;
  const std::string text = render_text(c);
  EXPECT_NE(text.find("Undecided after 12 pairs (at most 12)"), std::string::npos) << text;
  EXPECT_NE(text.find("of the variance came from irq:virtio1-req.0 on CPU 1 (both sides)"), std::string::npos) << text;
  // A command that failed is exit 3 whatever was decided; an interrupt keeps its status.
  EXPECT_EQ(runner::live_exit_status(c, 1), 3);
  EXPECT_EQ(runner::live_exit_status(c, 130), 130);
}

}  // namespace
}  // namespace nw::compare
