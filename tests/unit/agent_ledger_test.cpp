// SPDX-License-Identifier: Apache-2.0
// The agent's cumulative counters: monotonic, bounded label sets, exact sums per category.
#include <map>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "agent/noise_ledger.h"

namespace nw::agent {
namespace {

using ::testing::ElementsAre;
using ::testing::FieldsAre;

std::map<std::string, NoiseSeries> by_name(const NoiseLedger& l, int cpu) {
  std::map<std::string, NoiseSeries> out;
  for (const auto& s : l.series())
    if (s.cpu == cpu) out[s.category + ":" + s.name] = s;
  return out;
}

TEST(AgentLedger, SplitsCategoryAtTheFirstColonOnly) {
  EXPECT_EQ(split_source("preemption:kworker/1:2"),
            std::make_pair(std::string("preemption"), std::string("kworker/1:2")));
  EXPECT_EQ(split_source("irq:local_timer"), std::make_pair(std::string("irq"), std::string("local_timer")));
  EXPECT_EQ(split_source("steal"), std::make_pair(std::string("steal"), std::string("steal")));
}

TEST(AgentLedger, AccumulatesWindowsAndMergesDuplicateSources) {
  NoiseLedger l(10);
  // Two tasks with the same comm arrive as two events for one source.
  l.add({{1, "preemption:sh", 2, 100}, {1, "preemption:sh", 3, 50}, {1, "irq:local_timer", 10, 1000}});
  l.add({{1, "irq:local_timer", 5, 500}});
  EXPECT_THAT(l.series(),
              ElementsAre(FieldsAre(1, "irq", "local_timer", 15u, 1500u), FieldsAre(1, "preemption", "sh", 5u, 150u)));
}

TEST(AgentLedger, FoldsSourcesPastTheCapIntoOtherOfTheirCategory) {
  NoiseLedger l(2);
  l.add({{0, "preemption:a", 1, 300},
         {0, "preemption:b", 1, 200},
         {0, "preemption:c", 1, 100},
         {0, "irq:local_timer", 4, 40}});
  auto s = by_name(l, 0);
  // The two largest of the window won the preemption slots; irq has its own slots.
  EXPECT_EQ(s.count("preemption:a"), 1u);
  EXPECT_EQ(s.count("preemption:b"), 1u);
  EXPECT_EQ(s.count("preemption:c"), 0u);
  EXPECT_EQ(s["preemption:other"].time_ns, 100u);
  EXPECT_EQ(s["irq:local_timer"].time_ns, 40u);
  EXPECT_EQ(s.count("irq:other"), 0u);
  EXPECT_EQ(l.folded_sources(0), 1u);
}

TEST(AgentLedger, AdmittedSourcesKeepTheirSeriesAndNewcomersFoldSoEveryCounterOnlyGrows) {
  NoiseLedger l(2);
  l.add({{0, "preemption:a", 1, 10}, {0, "preemption:b", 1, 10}});
  std::map<std::string, uint64_t> before;
  for (const auto& [k, v] : by_name(l, 0)) before[k] = v.time_ns;
  // c is now much bigger than a and b, but taking a slot from them would make a counter vanish
  // or its time jump between series.
  for (int i = 0; i < 5; ++i) {
    l.add({{0, "preemption:c", 1, 1000}, {0, "preemption:a", 1, 1}});
    for (const auto& [k, v] : by_name(l, 0)) {
      EXPECT_GE(v.time_ns, before[k]) << k;
      before[k] = v.time_ns;
    }
  }
  auto s = by_name(l, 0);
  EXPECT_EQ(s.size(), 3u);  // a, b, other
  EXPECT_EQ(s["preemption:a"].time_ns, 15u);
  EXPECT_EQ(s["preemption:other"].time_ns, 5000u);
}

TEST(AgentLedger, SumPerCategoryIsExactWhateverIsFolded) {
  NoiseLedger l(1);
  uint64_t total = 0;
  for (int w = 0; w < 20; ++w) {
    std::vector<NoiseSample> window;
    for (int t = 0; t < 7; ++t) {
      window.push_back({3, "preemption:task" + std::to_string((w * 7 + t) % 13), 1, uint64_t(w * 10 + t)});
      total += uint64_t(w * 10 + t);
    }
    l.add(window);
  }
  uint64_t sum = 0;
  size_t series = 0;
  for (const auto& s : l.series()) {
    sum += s.time_ns;
    ++series;
  }
  EXPECT_EQ(sum, total);
  EXPECT_EQ(series, 2u);  // one named source and other, however many tasks came and went
  EXPECT_EQ(l.folded_sources(3), 12u);
}

TEST(AgentLedger, ZeroCapFoldsEverythingButKeepsCategories) {
  NoiseLedger l(0);
  l.add({{0, "softirq:TIMER", 3, 30}, {0, "softirq:RCU", 2, 20}, {0, "irq:local_timer", 1, 5}});
  EXPECT_THAT(l.series(), ElementsAre(FieldsAre(0, "irq", "other", 1u, 5u), FieldsAre(0, "softirq", "other", 5u, 50u)));
}

TEST(AgentLedger, ARealSourceNamedOtherLandsInTheBucketOfTheSameName) {
  NoiseLedger l(5);
  l.add({{0, "preemption:other", 1, 7}, {0, "preemption:x", 1, 1}});
  EXPECT_THAT(l.series(),
              ElementsAre(FieldsAre(0, "preemption", "x", 1u, 1u), FieldsAre(0, "preemption", "other", 1u, 7u)));
}

TEST(AgentLedger, CpusAreKeptApartWithTheirOwnSlots) {
  NoiseLedger l(1);
  l.add({{0, "irq:a", 1, 1}, {1, "irq:b", 1, 1}, {1, "irq:a", 1, 5}});
  EXPECT_THAT(l.series(), ElementsAre(FieldsAre(0, "irq", "a", 1u, 1u), FieldsAre(1, "irq", "a", 1u, 5u),
                                      FieldsAre(1, "irq", "other", 1u, 1u)));
  EXPECT_THAT(l.cpus(), ElementsAre(0, 1));
}

}  // namespace
}  // namespace nw::agent
