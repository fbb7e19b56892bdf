// Window labels in reports: the table by label, the warning when windows of several labels are
// analysed as one set, and `report --label` (reports/labels.h).
#include <gtest/gtest.h>

#include "common/errors.h"
#include "report_synthetic.h"
#include "reports/labels.h"
#include "reports/report.h"

namespace nw {
namespace {

// 20 windows: the even ones "BM_fast" (1 s), the odd ones "BM_slow" (2 s), 10 ms preempted each.
RunRecord two_benchmarks() {
  RunRecord rec = test::synthetic_record(20, 1e6, [](int i, RunSample& r, std::mt19937_64&) {
    r.label = i % 2 ? "BM_slow" : "BM_fast";
    if (i % 2) r.wall_ns += 1'000'000'000;
    r.noise.push_back({"preemption:kworker", 1, 10'000'000, 10'000'000, nullptr});
  });
  rec.warmup_windows = 0;
  rec.summary = summarize(rec);
  return rec;
}

TEST(ReportLabels, OneRowPerLabelWithItsOwnStatistics) {
  const auto rows = report::label_rows(two_benchmarks());
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].label, "BM_fast");
  EXPECT_EQ(rows[0].windows, 10);
  EXPECT_NEAR(rows[0].median_ns, 1.01e9, 5e6);
  EXPECT_NEAR(rows[1].median_ns, 2.01e9, 5e6);
  EXPECT_LT(rows[0].cv, 0.01);  // each label's own spread, not the mixture's
  EXPECT_NEAR(rows[0].mean_stolen_ns, 10e6, 1);
  // Labels that number the windows (each on one window) make no table.
  RunRecord ids = test::synthetic_record(5, 1e6, [](int i, RunSample& r, std::mt19937_64&) { r.label = i; });
  EXPECT_TRUE(report::label_rows(ids).empty());
  EXPECT_TRUE(report::label_rows(test::synthetic_record(5, 1e6, nullptr)).empty());
}

TEST(ReportLabels, SeveralLabelsAreWarnedAboutAndTheReportShowsTheTable) {
  const RunRecord rec = two_benchmarks();
  const std::string text = report::render(rec, report::Format::text, false);
  EXPECT_NE(text.find("Windows by label"), std::string::npos) << text;
  EXPECT_NE(text.find("BM_slow"), std::string::npos);
  EXPECT_NE(text.find("report --label"), std::string::npos) << text;  // the warning says what to do
  EXPECT_NE(report::render(rec, report::Format::markdown, false).find("| `BM_fast` | 10 |"), std::string::npos);
  const std::string html = report::render(rec, report::Format::html, false);
  EXPECT_NE(html.find("Windows by label"), std::string::npos);
  EXPECT_NE(html.find("run 2 (BM_slow)"), std::string::npos);  // the chart's bars say their label
}

TEST(ReportLabels, OnlyOneLabelsWindowsAndNoWarning) {
  const RunRecord one = only_label(two_benchmarks(), "BM_slow");
  EXPECT_EQ(one.measured().size(), 10u);
  EXPECT_NEAR(one.summary.median_ns, 2.01e9, 5e6);
  const std::string text = report::render(one, report::Format::text, false);
  EXPECT_EQ(text.find("report --label"), std::string::npos) << text;
  try {
    only_label(two_benchmarks(), "BM_nope");
    FAIL() << "an unknown label is an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("BM_fast, BM_slow"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace nw
