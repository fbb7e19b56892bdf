// SPDX-License-Identifier: Apache-2.0
// Window labels in reports: the table by label, one report per label when the windows are several
// benchmarks, and `report --label` (reports/labels.h).
#include <gtest/gtest.h>

#include "common/errors.h"
#include "report_synthetic.h"
#include "reports/advice_windows.h"
#include "reports/labels.h"
#include "reports/report.h"

namespace nw {
namespace {

// 20 windows: the even ones "BM_fast" (1 s), the odd ones "BM_slow" (2 s), 10 ms preempted each;
// BM_slow's windows are also hit by an IRQ storm of 0 to 45 ms (the noisier label).
RunRecord two_benchmarks() {
  RunRecord rec = test::synthetic_record(20, 1e6, [](int i, RunSample& r, std::mt19937_64&) {
    r.label = i % 2 ? "BM_slow" : "BM_fast";
    r.window = i;
    r.process_run = 0;
    r.user_ns = 0;  // a window has no process figures (the record leaves them out)
    if (i % 2) {
      r.wall_ns += 1'000'000'000;
      r.noise.push_back({"irq:storm", uint64_t(i), uint64_t(i) * 5'000'000, 5'000'000, nullptr});
    }
    r.noise.push_back({"preemption:kworker", 1, 10'000'000, 10'000'000, nullptr});
  });
  rec.samples.erase(rec.samples.begin());  // no warm-up window
  rec.warmup_windows = 0;
  RunSample process;
  process.wall_ns = 31'000'000'000;
  rec.process_runs = {process};
  rec.summary = summarize(rec);
  return rec;
}

const nlohmann::json& entry(const nlohmann::json& doc, const std::string& label) {
  for (const auto& e : doc["by_label"])
    if (e["label"] == label) return e;
  throw std::runtime_error("no by_label entry " + label);
}

TEST(ReportLabels, OneRowPerLabelWithItsOwnStatistics) {
  const auto rows = report::label_rows(two_benchmarks());
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].label, "BM_fast");
  EXPECT_EQ(rows[0].windows, 10);
  EXPECT_NEAR(rows[0].median_ns, 1.01e9, 5e6);
  EXPECT_NEAR(rows[1].median_ns, 2.06e9, 5e6);
  EXPECT_LT(rows[0].cv, 0.01);  // each label's own spread, not the mixture's
  EXPECT_NEAR(rows[0].mean_stolen_ns, 10e6, 1);
  // Labels that number the windows (each on one window) make no table.
  RunRecord ids = test::synthetic_record(5, 1e6, [](int i, RunSample& r, std::mt19937_64&) { r.label = i; });
  EXPECT_TRUE(report::label_rows(ids).empty());
  EXPECT_TRUE(report::label_rows(test::synthetic_record(5, 1e6, nullptr)).empty());
}

TEST(ReportLabels, WhichRecordsAreReportedPerLabel) {
  EXPECT_EQ(report::split_labels(two_benchmarks()), (std::vector<std::string>{"BM_fast", "BM_slow"}));
  // Labels that number the windows are one set, in one process run or several; so are windows of
  // one label, or of none.
  RunRecord ids = test::synthetic_record(5, 1e6, [](int i, RunSample& r, std::mt19937_64&) { r.label = i; });
  EXPECT_TRUE(report::split_labels(ids).empty());
  RunRecord counted = test::synthetic_record(6, 1e6, [](int i, RunSample& r, std::mt19937_64&) {
    r.label = i % 3;
    r.process_run = i / 3;
  });
  EXPECT_TRUE(report::split_labels(counted).empty());
  // A number repeated within a process run names a parameter (a size): several benchmarks.
  RunRecord sizes = test::synthetic_record(6, 1e6, [](int i, RunSample& r, std::mt19937_64&) {
    r.label = i % 2 ? 4096 : 1024;
    r.process_run = 0;
  });
  EXPECT_EQ(report::split_labels(sizes), (std::vector<std::string>{"1024", "4096"}));
  EXPECT_TRUE(report::split_labels(only_label(two_benchmarks(), "BM_fast")).empty());
  EXPECT_TRUE(report::split_labels(test::synthetic_record(5, 1e6, nullptr)).empty());
  // Google Benchmark names benchmarks: one repetition each is still several benchmarks.
  RunRecord gbench = test::synthetic_record(
      3, 1e6, [](int i, RunSample& r, std::mt19937_64&) { r.label = "BM_" + std::to_string(i); });
  EXPECT_TRUE(report::split_labels(gbench).empty());
  gbench.windows_harness = WindowsHarness{.name = "gbench"};
  EXPECT_EQ(report::split_labels(gbench).size(), 3u);
  EXPECT_EQ(report::label_noun(gbench), "benchmarks");
}

TEST(ReportLabels, EachLabelIsAnalysedAloneAndNothingAcrossThem) {
  const RunRecord rec = two_benchmarks();
  const auto a = report::analyze(rec);
  ASSERT_EQ(a.by_label.size(), 2u);
  EXPECT_EQ(a.by_label[0].label, "BM_slow");  // the noisiest first
  EXPECT_EQ(a.by_label[1].label, "BM_fast");
  const auto doc = report::run_document(rec, a);
  // The whole record's fields say where the per-label ones are; none is computed across labels.
  EXPECT_EQ(doc["summary"]["runs"], 20);
  EXPECT_EQ(doc["summary"]["per_label"], "by_label");
  for (const char* k : {"mean_ns", "median_ns", "stddev_ns", "cv", "min_ns", "max_ns"})
    EXPECT_TRUE(doc["summary"][k].is_null()) << k;
  EXPECT_TRUE(doc["attribution"].empty());
  EXPECT_TRUE(doc["recommendations"].empty());
  EXPECT_EQ(doc["report"]["per_label"], "by_label");
  EXPECT_NE(doc["report"]["headline"].get<std::string>().find("2 labels, each reported alone"), std::string::npos);
  // Each entry has the whole-record fields, computed within its label.
  const auto& slow = entry(doc, "BM_slow");
  const auto& fast = entry(doc, "BM_fast");
  for (const auto* e : {&slow, &fast})
    for (const char* k : {"summary", "attribution", "recommendations", "warnings", "report"})
      EXPECT_TRUE(e->contains(k)) << k;
  EXPECT_EQ(slow["summary"]["runs"], 10);
  EXPECT_NEAR(slow["summary"]["median_ns"].get<double>(), 2.06e9, 5e6);
  EXPECT_LT(fast["summary"]["cv"].get<double>(), 0.01);  // its own spread, not the mixture's
  EXPECT_EQ(slow["attribution"][0]["source"], "irq:storm");
  EXPECT_GT(slow["attribution"][0]["share"].get<double>(), 0.9);
  EXPECT_NE(slow["report"]["headline"].get<std::string>().find("over 10 runs"), std::string::npos);
  // Time conserved within each label: no source charges more than the label's mean window.
  for (const auto* e : {&slow, &fast})
    for (const auto& row : (*e)["attribution"])
      EXPECT_LE(row["mean_time_ns"].get<double>(), (*e)["summary"]["mean_ns"].get<double>()) << row.dump();
  // A saved record analysed again gives the same document.
  const RunRecord back = run_record_from_json(doc);
  const auto again = report::run_document(back, report::analyze(back));
  EXPECT_EQ(again, doc) << nlohmann::json::diff(doc, again).dump(1);
}

TEST(ReportLabels, EveryFormatShowsOneBlockPerLabelNoisiestFirst) {
  const RunRecord rec = two_benchmarks();
  const std::string text = report::render(rec, report::Format::text, false);
  EXPECT_NE(text.find("Windows by label"), std::string::npos) << text;
  const size_t slow = text.find("── BM_slow (10 windows)"), fast = text.find("── BM_fast (10 windows)");
  ASSERT_NE(slow, std::string::npos) << text;
  ASSERT_NE(fast, std::string::npos) << text;
  EXPECT_LT(slow, fast);
  EXPECT_EQ(text.find("over 20 runs"), std::string::npos) << text;  // no headline across labels
  EXPECT_LT(text.find("irq:storm", slow), fast) << text;            // the noisy label's own source, in its block
  const std::string md = report::render(rec, report::Format::markdown, false);
  EXPECT_NE(md.find("| `BM_fast` | 10 |"), std::string::npos);
  EXPECT_LT(md.find("#### `BM_slow` (10 windows)"), md.find("#### `BM_fast` (10 windows)"));
  const std::string html = report::render(rec, report::Format::html, false);
  EXPECT_NE(html.find("Windows by label"), std::string::npos);
  EXPECT_NE(html.find("id=\"chart-runs-1\""), std::string::npos);
  EXPECT_NE(html.find("id=\"chart-runs-2\""), std::string::npos);
  EXPECT_NE(html.find("run 2 (BM_slow)"), std::string::npos);  // the chart's bars say their label
}

TEST(ReportLabels, MoreWindowsOfAHarnessAreMoreOfItsRepetitions) {
  using report::with_harness_repetitions;
  using V = std::vector<std::string>;
  EXPECT_EQ(with_harness_repetitions("gbench", {"./bm", "--benchmark_repetitions=3", "--x"}, 10),
            (V{"./bm", "--x", "--benchmark_repetitions=10"}));
  EXPECT_EQ(with_harness_repetitions("hyperfine", {"hyperfine", "-N", "--runs", "15", "./b"}, 20),
            (V{"hyperfine", "--runs", "20", "-N", "./b"}));
  EXPECT_EQ(with_harness_repetitions("pyperf", {"python3", "bm.py", "-p", "4", "-o", "x.json"}, 12),
            (V{"python3", "bm.py", "-o", "x.json", "--processes", "12"}));
  EXPECT_FALSE(with_harness_repetitions("other", {"./b"}, 3));
  // A Google Benchmark record's block that needs more windows asks the library for them.
  RunRecord gbench = test::synthetic_record(3, 20e6, [](int, RunSample& r, std::mt19937_64&) { r.label = "BM_a"; });
  gbench.command = {"./bm", "--benchmark_repetitions=3"};
  gbench.windows_harness = WindowsHarness{.name = "gbench"};
  gbench.warmup_windows = 0;
  const auto recs = report::analyze(gbench).recommendations;
  auto more = std::find_if(recs.begin(), recs.end(), [](const Recommendation& r) { return r.id == "more-runs"; });
  ASSERT_NE(more, recs.end());
  EXPECT_EQ(more->commands.at(0).rfind("noisewatch --windows gbench -- ./bm --benchmark_repetitions=", 0), 0u)
      << more->commands.at(0);
}

TEST(ReportLabels, OnlyOneLabelsWindowsAndNoWarning) {
  const RunRecord one = only_label(two_benchmarks(), "BM_slow");
  EXPECT_EQ(one.measured().size(), 10u);
  EXPECT_NEAR(one.summary.median_ns, 2.06e9, 5e6);
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
