// SPDX-License-Identifier: Apache-2.0
// Attribution recovers known contributions. Tolerance: +-0.10 of share (absolute) for the
// point estimate with 40 runs, and the 95 % bootstrap interval must contain the true share.
#include <gtest/gtest.h>

#include <cmath>

#include "report_synthetic.h"
#include "reports/attribution.h"
#include "reports/report.h"
#include "reports/source_matrix.h"

namespace nw {
namespace {

constexpr double kTolerance = 0.10;

const Attribution& row(const RunRecord& rec, const std::string& source) {
  for (const auto& a : rec.attribution)
    if (a.source == source) return a;
  throw std::runtime_error("no attribution row for " + source);
}

double share_sum(const RunRecord& rec) {
  double s = 0;
  for (const auto& a : rec.attribution) s += a.share;
  return s;
}

void expect_interval_contains(const Attribution& a, double truth) {
  ASSERT_TRUE(a.share_low && a.share_high) << a.source;
  EXPECT_LE(*a.share_low, truth) << a.source;
  EXPECT_GE(*a.share_high, truth) << a.source;
}

TEST(ReportAttribution, SourceInHalfTheRuns) {
  const double x = 10e6, sd = 2e6;  // 10 ms in odd runs over 2 ms of base jitter
  auto rec = test::synthetic_record(40, sd, [&](int i, RunSample& r, auto&) {
    if (i % 2) r.noise.push_back(test::time_entry("preemption:hog", x, 100));
    r.noise.push_back(test::time_entry("irq:local_timer", 250e3, 250));
  });
  rec = test::analyzed(rec);
  // Var(S) of a 0/x variable in half the runs is x^2/4 (population); the base adds sd^2.
  double truth = (x * x / 4) / (x * x / 4 + sd * sd);
  const auto& hog = row(rec, "preemption:hog");
  EXPECT_EQ(rec.attribution.front().source, "preemption:hog");
  EXPECT_NEAR(hog.share, truth, kTolerance);
  expect_interval_contains(hog, truth);
  EXPECT_NEAR(hog.mean_time_ns, x / 2, 1);
  EXPECT_NEAR(row(rec, "unexplained").share, 1 - truth, kTolerance);
  EXPECT_NEAR(row(rec, "irq:local_timer").share, 0, 1e-9);  // constant: explains no variance
  EXPECT_NEAR(share_sum(rec), 1.0, 1e-9);
  EXPECT_NE(rec.report["headline"].get<std::string>().find("comes from preemption by hog"), std::string::npos)
      << rec.report["headline"];
}

TEST(ReportAttribution, TwoIndependentSources) {
  const double sd = 1e6;
  auto rec = test::synthetic_record(60, sd, [&](int, RunSample& r, auto& rng) {
    // Uniform [0, a]: variance a^2 / 12.
    r.noise.push_back(test::time_entry("softirq:NET_RX", std::uniform_real_distribution<double>(0, 12e6)(rng)));
    r.noise.push_back(test::time_entry("irq:nvme0q1", std::uniform_real_distribution<double>(0, 6e6)(rng)));
  });
  rec = test::analyzed(rec);
  double va = 12e6 * 12e6 / 12, vb = 6e6 * 6e6 / 12, total = va + vb + sd * sd;
  EXPECT_NEAR(row(rec, "softirq:NET_RX").share, va / total, kTolerance);
  EXPECT_NEAR(row(rec, "irq:nvme0q1").share, vb / total, kTolerance);
  expect_interval_contains(row(rec, "softirq:NET_RX"), va / total);
  expect_interval_contains(row(rec, "irq:nvme0q1"), vb / total);
  EXPECT_NEAR(share_sum(rec), 1.0, 1e-9);
}

TEST(ReportAttribution, PureUnexplainedNoise) {
  auto rec = test::synthetic_record(30, 5e6, [&](int, RunSample& r, auto& rng) {
    // Sources that exist but barely vary, independent of the 5 ms base jitter.
    r.noise.push_back(test::time_entry("irq:local_timer", 250e3 + std::uniform_real_distribution<double>(0, 2e3)(rng)));
    r.noise.push_back(test::time_entry("softirq:RCU", 20e3 + std::uniform_real_distribution<double>(0, 1e3)(rng)));
  });
  rec = test::analyzed(rec);
  EXPECT_EQ(rec.attribution.front().source, "unexplained");
  EXPECT_GT(row(rec, "unexplained").share, 1 - kTolerance);
  EXPECT_LT(std::fabs(row(rec, "irq:local_timer").share), kTolerance);
  EXPECT_NE(rec.report["headline"].get<std::string>().find("cannot see"), std::string::npos);
}

TEST(ReportAttribution, CountSourceCostPerEvent) {
  const double cost = 50e3;  // each migration costs 50 us of cache refill, invisible to the probes
  auto rec = test::synthetic_record(40, 20e3, [&](int, RunSample& r, auto& rng) {
    int n = std::uniform_int_distribution<int>(0, 20)(rng);
    r.noise.push_back({"migration", uint64_t(n), 0, 0, {{"from", 1}, {"to", 0}}});
    r.wall_ns = uint64_t(n * cost);
  });
  rec = test::analyzed(rec);
  const auto& mig = row(rec, "migration");
  ASSERT_TRUE(mig.extra.contains("per_event_ns"));
  EXPECT_NEAR(mig.extra["per_event_ns"].get<double>(), cost, 0.1 * cost);
  EXPECT_GT(mig.share, 1 - kTolerance);
  EXPECT_EQ(mig.extra["kind"], "count");
  EXPECT_NEAR(share_sum(rec), 1.0, 1e-9);
}

// A task on the SMT sibling overlaps the benchmark: it ran all along, slowed by some fraction of
// the overlap. That fraction is fitted like a count's cost (here 30 %), within its bound (the whole
// overlap), and the overlap is not stolen time.
TEST(ReportAttribution, SmtOverlapIsFittedAsASlowdownNotStolen) {
  const double slowdown = 0.3;
  auto rec = test::synthetic_record(40, 1e6, [&](int, RunSample& r, auto& rng) {
    double overlap = std::uniform_real_distribution<double>(100e6, 500e6)(rng);
    r.noise.push_back({"smt:hog", 40, uint64_t(overlap), uint64_t(overlap / 10), {{"pid", 42}}});
    // synthetic_record adds every entry's time to the wall time; the overlap costs only 30 % of it
    // (unsigned arithmetic: the pre-load subtracts the other 70 %).
    r.wall_ns = uint64_t(0) - uint64_t((1 - slowdown) * overlap);
  });
  for (const auto& r : rec.samples)
    if (!r.warmup) EXPECT_EQ(r.stolen_ns(), 0u) << "an overlap is not time taken from the benchmark";
  rec = test::analyzed(rec);
  const auto& smt = row(rec, "smt:hog");
  EXPECT_EQ(smt.extra["kind"], "count");
  EXPECT_NEAR(smt.extra["slowdown"].get<double>(), slowdown, 0.03);
  EXPECT_NEAR(smt.extra["overlap_ns"].get<double>(), 300e6, 40e6);
  EXPECT_EQ(smt.extra["per_event_max_ns"].get<double>(), 1.0);
  EXPECT_GT(smt.share, 1 - kTolerance);
  EXPECT_NEAR(smt.mean_time_ns, slowdown * 300e6, 0.1 * slowdown * 300e6);  // the fitted loss, not the overlap
  EXPECT_NEAR(share_sum(rec), 1.0, 1e-9);
}

// A slowdown beyond the overlap itself is a chance correlation: no share.
TEST(ReportAttribution, SmtSlowdownAboveTheOverlapIsRefused) {
  auto rec = test::synthetic_record(30, 0.1e6, [&](int, RunSample& r, auto& rng) {
    double overlap = std::uniform_real_distribution<double>(1e6, 5e6)(rng);
    r.noise.push_back({"smt:hog", 4, uint64_t(overlap), 0, nullptr});
    r.wall_ns = uint64_t(2 * overlap);  // the run grows by 3x the overlap
  });
  rec = test::analyzed(rec);
  const auto& smt = row(rec, "smt:hog");
  EXPECT_FALSE(smt.extra["cost_plausible"].get<bool>());
  EXPECT_EQ(smt.share, 0.0);
}

TEST(ReportAttribution, CountSourceNeverGetsNegativeCost) {
  // Runs with more faults happen to be faster: a fault cannot save time, so its cost is 0.
  auto rec = test::synthetic_record(20, 1e6, [&](int i, RunSample& r, auto&) {
    r.noise.push_back({"fault", uint64_t(1000 - i * 10), 0, 0, nullptr});
    r.wall_ns = uint64_t(i * 200e3);
  });
  rec = test::analyzed(rec);
  EXPECT_EQ(row(rec, "fault").extra["per_event_ns"].get<double>(), 0.0);
  EXPECT_EQ(row(rec, "fault").share, 0.0);
}

TEST(ReportAttribution, FrequencyScalesTimeAsOneOverF) {
  auto rec = test::synthetic_record(30, 0.2e6, [&](int i, RunSample& r, auto&) {
    double khz = (i % 3 == 0) ? 2.0e6 : (i % 3 == 1) ? 2.5e6 : 3.0e6;
    r.mean_khz = khz;
    r.wall_ns = uint64_t(1e9 * (3.0e6 / khz - 1));  // the 1 s of work at 3 GHz, slower below
  });
  rec = test::analyzed(rec);
  const auto& f = row(rec, "frequency");
  EXPECT_EQ(f.extra["kind"], "model");
  EXPECT_GT(f.share, 1 - kTolerance);
  EXPECT_EQ(rec.attribution.front().source, "frequency");
}

TEST(ReportAttribution, TooFewRunsSaysSoPlainly) {
  auto rec = test::synthetic_record(3, 1e6, [&](int i, RunSample& r, auto&) {
    if (i == 1) r.noise.push_back(test::time_entry("preemption:hog", 5e6));
  });
  rec = test::analyzed(rec);
  EXPECT_FALSE(rec.report["attributable"].get<bool>());
  EXPECT_FALSE(row(rec, "preemption:hog").share_low.has_value());
  EXPECT_NE(rec.report["headline"].get<std::string>().find("not reliable"), std::string::npos);
  bool said = false;
  for (const auto& w : rec.warnings) said |= w.find("Attribution is not possible") != std::string::npos;
  EXPECT_TRUE(said);
  ASSERT_FALSE(rec.recommendations.empty());
  EXPECT_EQ(rec.recommendations.front().id, "more-runs");
}

TEST(ReportAttribution, NoVarianceNoShares) {
  auto rec = test::synthetic_record(8, 0, nullptr);
  rec = test::analyzed(rec);
  EXPECT_FALSE(rec.report["attributable"].get<bool>());
  EXPECT_NE(rec.report["attribution_note"].get<std::string>().find("same time"), std::string::npos);
}

TEST(ReportAttribution, SumsMigrationEntriesOfOneRun) {
  auto rec = test::synthetic_record(5, 1e6, [&](int, RunSample& r, auto&) {
    r.noise.push_back({"migration", 2, 0, 0, {{"from", 1}, {"to", 0}}});
    r.noise.push_back({"migration", 3, 0, 0, {{"from", 0}, {"to", 1}}});
  });
  auto m = report::collect_sources(rec);
  ASSERT_EQ(m.sources.size(), 1u);
  EXPECT_EQ(m.sources[0].count, std::vector<double>(5, 5.0));
}

TEST(ReportAttribution, MergesPidsOverRuns) {
  auto rec = test::synthetic_record(3, 1e6, [&](int i, RunSample& r, auto&) {
    // The runner reports "pid" and, for a comm seen as several processes, "pids".
    r.noise.push_back({"preemption:cc1plus", 1, 1000, 1000, {{"pid", 10 + i}, {"pids", {10 + i, 20 + i}}}});
  });
  auto m = report::collect_sources(rec);
  ASSERT_EQ(m.sources.size(), 1u);
  EXPECT_EQ(m.sources[0].detail["pids"], nlohmann::json({10, 20, 11, 21, 12, 22}));
  EXPECT_EQ(m.sources[0].detail["pid"], 10);
}

TEST(ReportAttribution, StealFromRunFieldWhenNoEntry) {
  auto rec = test::synthetic_record(20, 0.5e6, [&](int i, RunSample& r, auto&) {
    r.steal_ns = uint64_t((i % 4) * 3e6);
    r.wall_ns = r.steal_ns;
  });
  rec = test::analyzed(rec);
  EXPECT_GT(row(rec, "steal").share, 1 - kTolerance);
}

TEST(ReportAttribution, WorkloadVersusMachine) {
  // Blocking (the benchmark's own I/O) varies; nothing else does.
  auto rec = test::synthetic_record(30, 0.5e6, [&](int i, RunSample& r, auto&) {
    r.noise.push_back(test::time_entry("blocking", (i % 5) * 4e6));
    r.noise.push_back(test::time_entry("preemption:bench", (i % 3) * 2e6));  // its own threads
  });
  rec = test::analyzed(rec);
  EXPECT_EQ(row(rec, "blocking").extra["group"], "workload");
  EXPECT_EQ(row(rec, "preemption:bench").extra["group"], "workload");
  EXPECT_GT(rec.report["workload"]["workload"].get<double>(), 1 - kTolerance);
  EXPECT_EQ(rec.report["workload"]["verdict"], "workload");
}

TEST(ReportAttribution, InstructionsPointAtTheWorkload) {
  // The benchmark does a different amount of work per run: time follows the instruction count.
  auto rec = test::synthetic_record(30, 0.2e6, [&](int i, RunSample& r, auto&) {
    double extra_work = (i % 6) * 5e6;  // ns of extra work at 1 instruction per ns
    r.counters["instructions"] = {1e9 + extra_work, uint64_t(1e9 + extra_work), 1.0};
    r.wall_ns = uint64_t(extra_work);
  });
  rec = test::analyzed(rec);
  EXPECT_GT(rec.report["workload"]["instructions_share"].get<double>(), 1 - kTolerance);
  EXPECT_EQ(rec.report["workload"]["verdict"], "workload");
  bool fix = false;
  for (const auto& r : rec.recommendations) fix |= r.id == "fix-inputs";
  EXPECT_TRUE(fix);
}

TEST(ReportAttribution, VirtualMachineSaysHostIsInvisible) {
  auto rec = test::synthetic_record(10, 3e6, nullptr);
  rec.host.virtualized = true;
  rec = test::analyzed(rec);
  bool said = false;
  for (const auto& w : rec.warnings) said |= w.find("virtual machine") != std::string::npos;
  EXPECT_TRUE(said);
  EXPECT_NE(rec.report["headline"].get<std::string>().find("host"), std::string::npos);
}

TEST(ReportAttribution, AnalyzeIsIdempotentAndKeepsRunnerWarnings) {
  auto rec = test::synthetic_record(12, 1e6, [&](int i, RunSample& r, auto&) {
    if (i % 2) r.noise.push_back(test::time_entry("preemption:hog", 4e6));
  });
  rec.warnings.push_back("runner: the smt probe could not attach");
  const auto before = to_json(rec);
  auto once = report::run_document(rec, report::analyze(rec));
  EXPECT_EQ(to_json(rec), before);  // analyze() reads the record, never writes it
  EXPECT_EQ(report::run_document(rec, report::analyze(rec)), once);
  // Analysing the saved document (what `noisewatch report` does) changes nothing either: the
  // previous analysis's warnings are replaced, the runner's are kept.
  auto back = run_record_from_json(once);
  EXPECT_EQ(back.warnings.front(), "runner: the smt probe could not attach");
  EXPECT_EQ(report::run_document(back, report::analyze(back)), once);
}

TEST(ReportAttribution, WarmupAndInterruptedRunsAreExcluded) {
  auto rec = test::synthetic_record(10, 1e6, nullptr);
  rec.samples[0].wall_ns = 9e9;  // the warm-up
  rec.samples[3].interrupted = true;
  rec.samples[3].wall_ns = 1;
  rec = test::analyzed(rec);
  EXPECT_EQ(rec.summary.runs, 9);
  EXPECT_GT(rec.summary.min_ns, 9e8);
  EXPECT_LT(rec.summary.max_ns, 2e9);
}

}  // namespace
}  // namespace nw

namespace nw {
namespace {

TEST(ReportAttribution, HeadlineNamesTheRunnerUpWhenTopIsNotMostOfIt) {
  auto rec = test::synthetic_record(60, 0.5e6, [&](int, RunSample& r, auto& rng) {
    r.noise.push_back(test::time_entry("preemption:backup", std::uniform_real_distribution<double>(0, 10e6)(rng)));
    r.noise.push_back(test::time_entry("softirq:NET_RX", std::uniform_real_distribution<double>(0, 9e6)(rng)));
  });
  rec = test::analyzed(rec);
  auto headline = rec.report["headline"].get<std::string>();
  EXPECT_NE(headline.find("comes from preemption by backup, "), std::string::npos) << headline;
  EXPECT_NE(headline.find("from NET_RX softirq time"), std::string::npos) << headline;
}

}  // namespace
}  // namespace nw
