// SPDX-License-Identifier: Apache-2.0
// The source vocabulary of docs/contracts.md as the report engine reads it: `contention:<comm>`
// (the benchmark's own threads competing for its CPUs) and `blocking` are the workload's doing,
// never noise to remove; `wakeup:idle` is the machine's.
#include <gtest/gtest.h>

#include "report_synthetic.h"
#include "reports/report.h"
#include "reports/source_matrix.h"

namespace nw {
namespace {

using test::find_rec;
using test::row;

TEST(ReportVocabulary, ContentionIsTheWorkloadsOwnDoing) {
  auto rec = test::workload_vocabulary_record(4e6, 0, 0);
  rec = test::analyzed(rec);
  const auto& c = row(rec, "contention:bench");
  EXPECT_EQ(c.extra["group"], "workload");
  EXPECT_EQ(c.extra["category"], "contention");
  EXPECT_GT(c.share, 0.9);
  EXPECT_EQ(rec.report["workload"]["verdict"], "workload");
  auto headline = rec.report["headline"].get<std::string>();
  EXPECT_NE(headline.find("the benchmark's own threads competing for its CPUs"), std::string::npos) << headline;
  // Never called preemption, never something to stop, move or out-prioritise.
  for (auto f : {report::Format::text, report::Format::markdown, report::Format::html}) {
    auto out = report::render(rec, f, false);
    EXPECT_EQ(out.find("preemption by"), std::string::npos) << out;
    EXPECT_EQ(out.find("preempted"), std::string::npos) << out;
  }
  for (const char* id : {"stop-process:bench", "isolcpus", "sched-fifo", "nice", "quieter-cpu", "kthread-cpus"})
    EXPECT_EQ(find_rec(rec, id), nullptr) << id;
  const auto* more = find_rec(rec, "more-cpus");
  ASSERT_NE(more, nullptr);
  EXPECT_NE(more->title.find("own threads compete for CPU 1"), std::string::npos) << more->title;
  EXPECT_EQ(more->commands.front(), "noisewatch --cpu 0-1 -- ./bench   # one CPU per busy thread");
  EXPECT_EQ(more->addresses, std::vector<std::string>{"contention:bench"});
  bool said = false;
  for (const auto& w : rec.warnings)
    said |= w.find("own threads competing for its CPUs: the workload's doing") != std::string::npos;
  EXPECT_TRUE(said);
}

TEST(ReportVocabulary, OldRecordsOwnPreemptionIsStillTheWorkloads) {
  // (The rule itself: tests/unit/sources_vocabulary_test.cpp.)
  auto rec = test::synthetic_record(30, 0.3e6, [](int i, RunSample& r, auto&) {
    r.noise.push_back(test::time_entry("preemption:bench", (i % 3) * 4e6, 40));
  });
  rec = test::analyzed(rec);
  EXPECT_EQ(row(rec, "preemption:bench").extra["group"], "workload");
  EXPECT_NE(find_rec(rec, "more-cpus"), nullptr);
  EXPECT_EQ(find_rec(rec, "stop-process:bench"), nullptr);
  // Not stolen time: the charts leave it out, and the warning calls it the workload's own threads.
  auto html = report::render(rec, report::Format::html, false);
  EXPECT_EQ(html.find("<rect class=\"stolen\""), std::string::npos);
  bool said = false;
  for (const auto& w : rec.warnings)
    said |= w.find("own threads competing for its CPUs: the workload's doing") != std::string::npos;
  EXPECT_TRUE(said);
}

TEST(ReportVocabulary, BlockingIsTheWorkloadsAndBoundedByWall) {
  auto rec = test::workload_vocabulary_record(0, 3e6, 0);
  rec = test::analyzed(rec);
  const auto& b = row(rec, "blocking");
  EXPECT_EQ(b.extra["group"], "workload");
  EXPECT_FALSE(b.extra.contains("inconsistent_runs"));
  EXPECT_LT(b.extra["pct_of_run"].get<double>(), 1.0);
  EXPECT_NE(find_rec(rec, "workload-io"), nullptr);
  EXPECT_EQ(find_rec(rec, "more-cpus"), nullptr);
  EXPECT_EQ(rec.report["workload"]["verdict"], "workload");
}

TEST(ReportVocabulary, IdleWakeupsAreTheMachines) {
  auto rec = test::workload_vocabulary_record(0, 0, 2e6);
  rec = test::analyzed(rec);
  EXPECT_EQ(row(rec, "wakeup:idle").extra["group"], "machine");
  EXPECT_NE(find_rec(rec, "c-states"), nullptr);
  EXPECT_NE(rec.report["headline"].get<std::string>().find("waking the CPU from idle states"), std::string::npos);
}

TEST(ReportVocabulary, AllThreeTogetherSplitWorkloadAndMachine) {
  auto rec = test::workload_vocabulary_record(2e6, 2e6, 2e6);
  rec = test::analyzed(rec);
  double workload = rec.report["workload"]["workload"].get<double>();
  double machine = rec.report["workload"]["machine"].get<double>();
  EXPECT_NEAR(workload, row(rec, "contention:bench").share + row(rec, "blocking").share, 1e-9);
  EXPECT_NEAR(machine, row(rec, "wakeup:idle").share + row(rec, "irq:local_timer").share, 1e-9);
  EXPECT_GT(workload, machine);
}

}  // namespace
}  // namespace nw
