// SPDX-License-Identifier: Apache-2.0
// A benchmark that fails before any measured run gets a short report that says so, the same in
// every format, with no sources, no summary and no recommendations.
#include <gtest/gtest.h>

#include "report_synthetic.h"
#include "reports/report.h"

namespace nw {
namespace {

// Recorded on the development VM: `noisewatch --json F -- sh -c 'exit 3'` (the warm-up failed).
RunRecord failed_warmup() {
  return load_run_record(std::string(NW_SOURCE_DIR) + "/tests/data/records/failed_warmup.json");
}

void expect_short_report(const RunRecord& rec, const std::string& headline) {
  auto j = nlohmann::json::parse(report::render(rec, report::Format::json, false));
  EXPECT_EQ(j["report"]["headline"], headline);
  EXPECT_TRUE(j["attribution"].empty());
  EXPECT_TRUE(j["recommendations"].empty());
  EXPECT_EQ(j["summary"]["runs"], 0);
  EXPECT_FALSE(j["report"].contains("patterns"));
  for (auto f : {report::Format::text, report::Format::markdown, report::Format::html}) {
    auto out = report::render(rec, f, false);
    EXPECT_NE(out.find(f == report::Format::html ? "failed before any measured run: its warm-up run exited with "
                                                   "status 3"
                                                 : headline),
              std::string::npos)
        << out;
    EXPECT_NE(out.find("sh -c &#39;exit 3&#39;") != std::string::npos ? 0 : out.find("sh -c 'exit 3'"),
              std::string::npos)
        << out;
    for (const char* absent : {"Recommendations", "Measure more runs", "Sources", "source", "Summary", "mean",
                               "virtual machine: host-side", "unexplained"})
      EXPECT_EQ(out.find(absent), std::string::npos) << absent << " in\n" << out;
    EXPECT_NE(out.find("repetition 1 exited with status 3; stopped there"), std::string::npos);  // the runner's
  }
}

TEST(ReportFailed, WarmupFailedRecordGetsAShortReport) {
  auto rec = failed_warmup();  // saved with the analysis of an older version: re-analysed
  rec = test::analyzed(rec);
  EXPECT_EQ(rec.report["failed_before_measuring"]["exit_status"], 3);
  EXPECT_TRUE(rec.report["failed_before_measuring"]["warmup"].get<bool>());
  EXPECT_FALSE(rec.report["attributable"].get<bool>());
  expect_short_report(rec, "The benchmark failed before any measured run: its warm-up run exited with status 3");
}

TEST(ReportFailed, UnanalyzedRecordRendersTheSame) {
  auto raw = failed_warmup();
  raw.report = nullptr;  // as the runner hands it over: only its own warning
  raw.warnings = {"repetition 1 exited with status 3; stopped there"};
  auto done = failed_warmup();
  done = test::analyzed(done);
  for (auto f : {report::Format::text, report::Format::markdown, report::Format::html})
    EXPECT_EQ(report::render(raw, f, false), report::render(done, f, false));
}

TEST(ReportFailed, FirstMeasuredRunFailedOrKilled) {
  auto rec = test::synthetic_record(1, 0, [](int, RunSample& r, auto&) { r.exit_status = 3; });
  rec.samples.erase(rec.samples.begin());  // --warmup 0
  rec = test::analyzed(rec);
  EXPECT_EQ(rec.report["headline"], "The benchmark failed in its first measured run: run 1 exited with status 3");
  EXPECT_TRUE(rec.recommendations.empty());
  EXPECT_TRUE(rec.attribution.empty());

  auto killed = test::synthetic_record(0, 0, nullptr);
  killed.samples[0].exit_status = 139;
  killed.samples[0].signal = 11;
  killed = test::analyzed(killed);
  EXPECT_EQ(killed.report["headline"],
            "The benchmark failed before any measured run: its warm-up run was killed by signal 11");
}

TEST(ReportFailed, ALaterFailureKeepsTheFullReport) {
  auto rec = test::synthetic_record(6, 1e6, [](int i, RunSample& r, auto&) {
    if (i == 5) r.exit_status = 1;
  });
  rec = test::analyzed(rec);
  EXPECT_FALSE(rec.report.contains("failed_before_measuring"));
  EXPECT_FALSE(rec.attribution.empty());
  // And analysing again after a failure record was re-run successfully drops the failure.
  auto failed = failed_warmup();
  failed = test::analyzed(failed);
  failed.samples[0].exit_status = 0;
  for (int i = 1; i <= 5; ++i) {
    RunSample r = failed.samples[0];
    r.index = i;
    r.warmup = false;
    r.wall_ns = 1000000 + uint64_t(i) * 1000;
    failed.samples.push_back(r);
  }
  failed = test::analyzed(failed);
  EXPECT_FALSE(failed.report.contains("failed_before_measuring"));
  EXPECT_EQ(failed.summary.runs, 5);
}

}  // namespace
}  // namespace nw
