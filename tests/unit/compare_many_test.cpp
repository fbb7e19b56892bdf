// SPDX-License-Identifier: Apache-2.0
// Files with many benchmarks: Holm's correction keeps a file of 74 unchanged benchmarks from
// raising false alarms by chance, real changes among them are still found, and the text report
// stays short (one table line each, details only where something changed).
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>

#include <fmt/format.h>

#include "compare/compare.h"
#include "compare/render.h"

namespace nw::compare {
namespace {

constexpr size_t kBenchmarks = 74;  // the size of the file in issue #14 (597 lines of text before)

// A Google Benchmark-like pair: 74 benchmarks x `reps` repetitions, 1 % CV; `shift` gives the
// true NEW/BASE ratio of a few of them (every other one is unchanged).
std::pair<InputFile, InputFile> files(std::mt19937_64& rng, size_t reps, const std::map<size_t, double>& shift) {
  InputFile base, next;
  base.format = next.format = InputFormat::google_benchmark;
  base.label = "base.json";
  next.label = "new.json";
  for (size_t i = 0; i < kBenchmarks; ++i) {
    double centre = 100.0 * double(i + 1);
    std::normal_distribution<double> noise(centre, centre * 0.01);
    Benchmark b, n;
    b.name = n.name = fmt::format("BM_Family{}/{}", i / 8, 1 << (i % 8));
    double ratio = shift.count(i) ? shift.at(i) : 1.0;
    for (size_t r = 0; r < reps; ++r) {
      b.times_ns.push_back(noise(rng));
      n.times_ns.push_back(noise(rng) * ratio);
    }
    base.benchmarks.push_back(std::move(b));
    next.benchmarks.push_back(std::move(n));
  }
  return {base, next};
}

TEST(CompareMany, HolmKeepsUnchangedFilesFromFalseAlarms) {
  // Without a correction, 74 tests at alpha 0.05 flag at least one benchmark in 1 - 0.95^74 = 98 %
  // of unchanged files. With Holm the family-wise rate is at most 5 %; the threshold (1 %) is set
  // to 0 so that the test alone is measured.
  std::mt19937_64 rng(74);
  Options o;
  o.threshold_percent = 0;
  int files_with_alarm = 0, raw_alarms = 0;
  const int trials = 200;
  for (int t = 0; t < trials; ++t) {
    auto [base, next] = files(rng, 10, {});
    auto c = compare_inputs(base, next, o);
    files_with_alarm += c.summary.slower + c.summary.faster > 0;
    for (const auto& b : c.benchmarks) raw_alarms += b.timing.p_value < o.alpha;
  }
  EXPECT_LE(files_with_alarm, trials * 0.07) << "family-wise false alarms";
  EXPECT_GT(raw_alarms, trials * 2) << "the raw p-values alone would have flagged about 3.7 per file";
}

TEST(CompareMany, RealChangesAmongManyAreFound) {
  std::mt19937_64 rng(75);
  auto [base, next] = files(rng, 10, {{3, 1.05}, {40, 1.08}, {41, 0.93}});
  auto c = compare_inputs(base, next, Options{});
  EXPECT_EQ(c.benchmarks[3].timing.verdict, Verdict::slower);
  EXPECT_EQ(c.benchmarks[40].timing.verdict, Verdict::slower);
  EXPECT_EQ(c.benchmarks[41].timing.verdict, Verdict::faster);
  EXPECT_EQ(c.summary.slower, 2u);
  EXPECT_EQ(c.summary.faster, 1u);
  EXPECT_EQ(c.summary.no_change, kBenchmarks - 3);
  EXPECT_EQ(c.summary.tested, kBenchmarks);
  EXPECT_EQ(c.summary.exact, kBenchmarks);         // 10 a side, no ties
  EXPECT_EQ(c.top().name, c.benchmarks[40].name);  // the largest slowdown is the headline
  double log_sum = 0;
  for (const auto& b : c.benchmarks) log_sum += std::log(b.timing.ratio);
  EXPECT_NEAR(c.summary.geomean_ratio, std::exp(log_sum / double(kBenchmarks)), 1e-12);
  for (const auto& b : c.benchmarks) EXPECT_GE(b.timing.p_adjusted, b.timing.p_value);
}

TEST(CompareMany, TextOfSeventyFourBenchmarksIsShort) {
  std::mt19937_64 rng(76);
  auto [base, next] = files(rng, 10, {{3, 1.05}, {40, 1.08}, {41, 0.93}});
  auto c = compare_inputs(base, next, Options{});
  std::string text = render_text(c);
  size_t lines = size_t(std::count(text.begin(), text.end(), '\n'));
  EXPECT_LT(lines, 120u) << text;  // was 597 lines for a file of this size
  // The summary comes first, then one table line per benchmark.
  EXPECT_NE(text.find("74 benchmarks: 2 slower, 1 faster, 71 no change, 0 inconclusive"), std::string::npos) << text;
  for (const auto& b : c.benchmarks) EXPECT_NE(text.find("  " + b.name + " "), std::string::npos) << b.name;
  // Details only for the three that changed.
  EXPECT_NE(text.find(c.benchmarks[3].name + ": slower\n"), std::string::npos);
  EXPECT_EQ(text.find(c.benchmarks[0].name + ": no-change\n"), std::string::npos);
  std::string md = render_markdown(c);
  EXPECT_NE(md.find("| benchmark | BASE | NEW | change | p | verdict |"), std::string::npos);
  EXPECT_LT(size_t(std::count(md.begin(), md.end(), '\n')), 150u);
}

TEST(CompareMany, OneRunFilesOfManyBenchmarksStayShort) {
  std::mt19937_64 rng(77);
  auto [base, next] = files(rng, 1, {{5, 100.0}});
  Options o;
  o.fail_above_percent = 5;
  auto c = compare_inputs(base, next, o);
  EXPECT_EQ(c.summary.inconclusive, kBenchmarks);
  EXPECT_TRUE(c.fail_above_exceeded());  // the 100x slowdown is caught on its ratio
  EXPECT_TRUE(c.benchmarks[5].fail_above_untested);
  std::string text = render_text(c);
  EXPECT_LT(size_t(std::count(text.begin(), text.end(), '\n')), 100u) << text;
  EXPECT_EQ(text.find("1 runs"), std::string::npos);
}

}  // namespace
}  // namespace nw::compare
