// SPDX-License-Identifier: Apache-2.0
// A real recording (tests/data/records/busy_vm_recorded.json): a 2-vCPU VM while other engineers
// compiled (cc1plus, as, clang) and a CPU hog (hogbin) was switched on and off every 0.5 s on the
// benchmark's CPU. Checks that the engine tells that story from real probe output.
#include <gtest/gtest.h>

#include <regex>

#include "report_synthetic.h"
#include "reports/report.h"

namespace nw {
namespace {

RunRecord recorded() {
  auto rec = load_run_record(std::string(NW_SOURCE_DIR) + "/tests/data/records/busy_vm_recorded.json");
  rec = test::analyzed(rec);
  return rec;
}

const Attribution* row(const RunRecord& rec, const std::string& source) {
  for (const auto& a : rec.attribution)
    if (a.source == source) return &a;
  return nullptr;
}

const Recommendation* find_rec(const RunRecord& rec, const std::string& id) {
  for (const auto& r : rec.recommendations)
    if (r.id == id) return &r;
  return nullptr;
}

TEST(ReportRecorded, PreemptionByCompilersAndTheHogExplainsTheVariance) {
  auto rec = recorded();
  EXPECT_EQ(rec.summary.runs, 20);
  EXPECT_EQ(rec.attribution.front().source, "preemption:cc1plus");
  double sum = 0, preemption = 0;
  for (const auto& a : rec.attribution) {
    sum += a.share;
    if (a.source.rfind("preemption:", 0) == 0) preemption += a.share;
  }
  EXPECT_NEAR(sum, 1.0, 1e-9);
  EXPECT_GT(preemption, 0.8);
  const auto* hog = row(rec, "preemption:hogbin");
  ASSERT_NE(hog, nullptr);
  ASSERT_TRUE(hog->share_low.has_value());
  EXPECT_GT(*hog->share_low, 0.0);  // the hog really moved the run times
  EXPECT_GT(hog->mean_time_ns, 10e6);
}

TEST(ReportRecorded, AdviceIsConcrete) {
  auto rec = recorded();
  const auto* stop = find_rec(rec, "stop-process:hogbin");
  ASSERT_NE(stop, nullptr);
  // 17 short-lived hog processes: a few pids are named, not all of them.
  EXPECT_NE(stop->title.find(", …)"), std::string::npos) << stop->title;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(stop->title, m, std::regex("pid ([0-9]+(?:,[0-9]+)*)")));
  const std::string pids = m[1].str();
  EXPECT_EQ(std::count(pids.begin(), pids.end(), ','), 3);
  EXPECT_NE(find_rec(rec, "isolcpus"), nullptr);
  // CV 28 % would need thousands of runs: not advice worth giving.
  EXPECT_EQ(find_rec(rec, "more-runs"), nullptr);
  for (size_t i = 1; i < rec.recommendations.size(); ++i)
    if (!rec.recommendations[i].addresses.empty() &&
        rec.recommendations[i].addresses != std::vector<std::string>{"unexplained"})
      EXPECT_LE(rec.recommendations[i].share, rec.recommendations[i - 1].share) << rec.recommendations[i].id;
}

TEST(ReportRecorded, EveryFormatRenders) {
  auto rec = recorded();
  auto text = report::render(rec, report::Format::text, false);
  EXPECT_NE(text.find("66 % of the variance comes from preemption by cc1plus"), std::string::npos) << text;
  auto html = report::render(rec, report::Format::html, false);
  std::regex wall("class=\"wall\"");
  EXPECT_EQ(std::distance(std::sregex_iterator(html.begin(), html.end(), wall), std::sregex_iterator()), 20);
  EXPECT_NE(html.find("<title>run 3: other "), std::string::npos);  // sources beyond the top 6 are summed
  auto j = nlohmann::json::parse(report::render(rec, report::Format::json, false));
  EXPECT_EQ(j["runs"].size(), 21u);
}

}  // namespace
}  // namespace nw
