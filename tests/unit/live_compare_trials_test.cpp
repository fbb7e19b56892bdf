// SPDX-License-Identifier: Apache-2.0
// Live compare's error rates on real repetitions: two recorded live compares of 300 pairs each
// (tests/data/compare/live/README.md: acc_work against itself, and against 3 % more work, on this
// project's VM), resampled into 1000 sequential comparisons each and decided exactly as
// `compare -- A ::: B` decides, stopping at the first decision or at 100 pairs. The statistics are
// deterministic given the samples, so the many trials run here and a few live ones prove the rest
// (tests/e2e/live_compare_e2e_test.cpp).
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>

#include "compare/live_decision.h"

namespace nw::compare {
namespace {

std::vector<Pair> recorded(const std::string& name) {
  std::ifstream in(std::string(NW_SOURCE_DIR) + "/tests/data/compare/live/" + name + ".csv");
  std::vector<Pair> out;
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::istringstream f(line);
    Pair p;
    char comma;
    f >> p.index >> comma >> p.a_ns >> comma >> p.b_ns;
    out.push_back(p);
  }
  return out;
}

double median_log_ratio(const std::vector<Pair>& pairs) {
  std::vector<double> d;
  for (const auto& p : pairs) d.push_back(std::log(p.b_ns / p.a_ns));
  std::nth_element(d.begin(), d.begin() + long(d.size() / 2), d.end());
  return d[d.size() / 2];
}

// Pairs drawn with replacement, B scaled by exp(shift): a population whose median log(B/A) is the
// recording's plus `shift`.
struct Trials {
  int different = 0, same = 0, undecided = 0, right = 0, covered = 0;
  double pairs = 0;
};
Trials run_trials(const std::vector<Pair>& population, double shift, double truth, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<size_t> pick(0, population.size() - 1);
  Trials t;
  for (int trial = 0; trial < 1000; ++trial) {
    std::vector<Pair> seq;
    SequentialDecision d;
    for (int n = 0; n < 100; ++n) {
      Pair p = population[pick(rng)];
      p.index = n;
      p.b_ns *= std::exp(shift);
      seq.push_back(p);
      d = decide_pairs(seq, 1.0, 0.05);
      if (d.outcome != "undecided") break;
    }
    t.different += d.outcome == "different";
    t.same += d.outcome == "same";
    t.undecided += d.outcome == "undecided";
    const double r = std::exp(truth);
    t.covered += d.low <= r && r <= d.high;
    t.right += d.outcome == "different" && d.low > 1 && d.low <= r && r <= d.high;
    t.pairs += double(d.pairs);
  }
  return t;
}

void print(const char* what, const Trials& t) {
  std::cout << "[ figures  ] " << what << ": different " << t.different / 1000.0 << ", same " << t.same / 1000.0
            << ", undecided " << t.undecided / 1000.0 << ", interval holds the truth " << t.covered / 1000.0
            << ", mean pairs " << t.pairs / 1000.0 << "\n";
}

TEST(LiveCompareTrials, RecordedIdenticalCommandsAreDifferentAtMostFivePercent) {
  auto same = recorded("same");
  ASSERT_EQ(same.size(), 300u);
  // Centred: the population's median log(B/A) is exactly 0 (the recording's is 0.0009 by chance).
  const double centre = median_log_ratio(same);
  Trials t = run_trials(same, -centre, 0, 1);
  print("recorded A = A, centred", t);
  EXPECT_LE(t.different, 50);
  EXPECT_GE(t.covered, 950);
  // The same noise with B 1.5 % slower: beyond the 1 % margin, "same" at most 5 %.
  Trials beyond = run_trials(same, std::log(1.015) - centre, std::log(1.015), 2);
  print("recorded A = A, B shifted +1.5 %", beyond);
  EXPECT_LE(beyond.same, 50);
}

TEST(LiveCompareTrials, RecordedSlowerBIsFoundWithTheTruthInside) {
  auto slow = recorded("slow3");
  ASSERT_EQ(slow.size(), 300u);
  const double truth = median_log_ratio(slow);
  EXPECT_GT(truth, std::log(1.02)) << "3 % more work: about 2.6 % more time";
  Trials t = run_trials(slow, 0, truth, 3);
  print("recorded B 3 % more work", t);
  EXPECT_GE(t.right, 950) << "different, B slower, the true ratio inside";
}

}  // namespace
}  // namespace nw::compare
