// SPDX-License-Identifier: Apache-2.0
// analyze() returns types: the attribution, fits, patterns and split are read as they were
// computed, with no JSON in between (the JSON serialiser is tested through the goldens).
#include <gtest/gtest.h>

#include "report_synthetic.h"
#include "reports/report.h"

namespace nw {
namespace {

TEST(ReportAnalysis, TypedResultOfTheFaultCase) {
  const auto rec = test::alternate_fault_record(false);
  const auto a = report::analyze(rec);
  EXPECT_FALSE(a.failed.has_value());
  EXPECT_EQ(a.summary.runs, 10);
  EXPECT_EQ(a.matrix.runs(), 10u);
  EXPECT_TRUE(a.attribution.attributable);
  EXPECT_EQ(a.attribution.residual.size(), 10u);
  const auto& top = a.attribution.rows.front();
  EXPECT_EQ(top.kind, report::RowKind::remainder);
  EXPECT_EQ(top.group, report::Group::unexplained);
  bool saw_fault = false;
  for (const auto& r : a.attribution.rows) {
    if (r.source != "fault") continue;
    saw_fault = true;
    ASSERT_TRUE(r.fit.has_value());
    EXPECT_FALSE(r.fit->plausible);
    EXPECT_FALSE(r.fit->accepted());
    EXPECT_EQ(r.fit->max_per_event_ns, report::kMaxMinorFaultNs);
    EXPECT_EQ(r.group, report::Group::workload);
  }
  EXPECT_TRUE(saw_fault);
  EXPECT_TRUE(a.patterns.bimodal.found);
  EXPECT_EQ(a.split.verdict, "unexplained");
  // The engine's warnings are among those shown, after the runner's.
  ASSERT_FALSE(a.engine_warnings.empty());
  EXPECT_EQ(a.warnings.back(), a.engine_warnings.back());
}

TEST(ReportAnalysis, RenderWithAnAnalysisEqualsRenderAlone) {
  const auto rec = test::alternate_fault_record(true);
  const auto a = report::analyze(rec);
  for (auto f : report::all_formats()) EXPECT_EQ(report::render(rec, a, f, false), report::render(rec, f, false));
}

}  // namespace
}  // namespace nw

namespace nw {
namespace {

// A window (--windows) has a wall time but no CPU time of its own: the split must not claim that
// the benchmark's CPU time did not vary (a CV of 0 from zeros).
TEST(ReportAnalysis, CpuTimeCvIsAbsentWhenRunsHaveNoCpuTime) {
  auto rec = test::synthetic_record(10, 2e6, nullptr);
  auto with_cpu = report::analyze(rec);
  ASSERT_TRUE(with_cpu.split.cpu_time_cv.has_value());
  EXPECT_GT(*with_cpu.split.cpu_time_cv, 0.0);
  for (auto& r : rec.samples) r.user_ns = r.sys_ns = 0, r.window = int(r.index);
  auto windows = report::analyze(rec);
  EXPECT_FALSE(windows.split.cpu_time_cv.has_value());
  auto j = nlohmann::json::parse(report::render(rec, report::Format::json, false));
  EXPECT_TRUE(j["report"]["workload"]["cpu_time_cv"].is_null()) << j["report"]["workload"].dump();
}

}  // namespace
}  // namespace nw

namespace nw {
namespace {

// --windows: the header counts windows and the process runs they came from, not "runs".
TEST(ReportAnalysis, WindowsRecordsSayWindowsInTheHeader) {
  auto rec = test::synthetic_record(10, 2e6, nullptr);
  std::string plain = report::render(rec, report::Format::text, false);
  EXPECT_NE(plain.find("10 runs + 1 warm-up)"), std::string::npos) << plain.substr(0, 200);
  rec.warmup_windows = 1;
  RunSample warm, measured;
  warm.warmup = true;
  rec.process_runs = {warm, measured};
  for (auto f : {report::Format::text, report::Format::markdown, report::Format::html}) {
    std::string out = report::render(rec, f, false);
    EXPECT_NE(out.find("10 windows of 1 process run + 1 warm-up windows"), std::string::npos) << out.substr(0, 300);
  }
}

}  // namespace
}  // namespace nw
