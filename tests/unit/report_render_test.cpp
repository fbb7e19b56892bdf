// SPDX-License-Identifier: Apache-2.0
// Renderers: golden files per format (tests/data/golden/report/; regenerate with
// NW_UPDATE_GOLDENS=1 after an intended change and review the diff), plus format properties.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>

#include "common/errors.h"
#include "report_synthetic.h"
#include "reports/report.h"
#include "support/files.h"

namespace nw {
namespace {

const std::string kRecords = std::string(NW_SOURCE_DIR) + "/tests/data/records/";
const std::string kGoldens = std::string(NW_SOURCE_DIR) + "/tests/data/golden/report/";

RunRecord analyzed(const std::string& name) {
  auto rec = load_run_record(kRecords + name + ".json");
  rec = test::analyzed(rec);
  return rec;
}

void check_golden(const std::string& actual, const std::string& golden) {
  test::expect_golden(actual, kGoldens + golden);
}

struct Case {
  std::string record, format, extension;
};

class ReportGolden : public ::testing::TestWithParam<Case> {};

TEST_P(ReportGolden, MatchesGolden) {
  const auto& c = GetParam();
  auto rec = analyzed(c.record);
  check_golden(report::render(rec, report::parse_format(c.format), false), c.record + "." + c.extension);
}

INSTANTIATE_TEST_SUITE_P(Formats, ReportGolden,
                         ::testing::Values(Case{"hog_alternate", "text", "txt"}, Case{"hog_alternate", "json", "json"},
                                           Case{"hog_alternate", "markdown", "md"},
                                           Case{"hog_alternate", "html", "html"}, Case{"few_runs", "text", "txt"},
                                           Case{"few_runs", "markdown", "md"}, Case{"failed_warmup", "text", "txt"},
                                           Case{"failed_warmup", "json", "json"}),
                         [](const auto& info) { return info.param.record + "_" + info.param.format; });

TEST(ReportRender, HogRecordTellsTheStory) {
  auto rec = analyzed("hog_alternate");
  auto text = report::render(rec, report::Format::text, false);
  EXPECT_NE(text.find("of the variance comes from preemption by stress-ng"), std::string::npos) << text;
  EXPECT_EQ(rec.attribution.front().source, "preemption:stress-ng");
  EXPECT_GE(rec.attribution.front().share, 0.9);
  EXPECT_EQ(rec.recommendations.front().id, "stop-process:stress-ng");
}

TEST(ReportRender, ColourOnlyWhenAsked) {
  auto rec = analyzed("hog_alternate");
  EXPECT_EQ(report::render(rec, report::Format::text, false).find('\x1b'), std::string::npos);
  EXPECT_NE(report::render(rec, report::Format::text, true).find("\x1b["), std::string::npos);
  EXPECT_EQ(report::render(rec, report::Format::markdown, true).find('\x1b'), std::string::npos);
}

TEST(ReportRender, JsonIsTheRunDocument) {
  auto rec = analyzed("hog_alternate");
  auto j = nlohmann::json::parse(report::render(rec, report::Format::json, false));
  EXPECT_EQ(j, to_json(rec));
  EXPECT_EQ(j["schema"], "noisewatch.run/1");
  for (const char* k : {"runs", "mean_ns", "median_ns", "stddev_ns", "cv", "min_ns", "max_ns"})
    EXPECT_TRUE(j["summary"].contains(k)) << k;
  for (const auto& a : j["attribution"])
    for (const char* k : {"source", "share", "mean_time_ns"}) EXPECT_TRUE(a.contains(k)) << k;
  for (const auto& r : j["recommendations"])
    for (const char* k : {"id", "title", "commands", "addresses"}) EXPECT_TRUE(r.contains(k)) << k;
  EXPECT_TRUE(j["unavailable"].is_array());
  EXPECT_TRUE(j.contains("lost_events"));
}

TEST(ReportRender, ASavedAnalysisIsRecomputedNotTrusted) {
  auto raw = load_run_record(kRecords + "hog_alternate.json");
  auto done = analyzed("hog_alternate");
  EXPECT_EQ(report::render(raw, report::Format::markdown, false),
            report::render(done, report::Format::markdown, false));
  done.attribution.front().share = 0.01;  // a stale or edited analysis in the file
  done.report["headline"] = "edited";
  EXPECT_EQ(report::render(raw, report::Format::markdown, false),
            report::render(done, report::Format::markdown, false));
}

TEST(ReportRender, HtmlIsSelfContained) {
  auto html = report::render(analyzed("hog_alternate"), report::Format::html, false);
  for (const char* banned : {"src=", "href=", "url(", "@import", "https:"})
    EXPECT_EQ(html.find(banned), std::string::npos) << banned;
  EXPECT_NE(html.find("<svg id=\"chart-runs\""), std::string::npos);
  EXPECT_NE(html.find("<svg id=\"chart-shares\""), std::string::npos);
  // One stolen-time segment per run for stress-ng (5 of the 10 runs) and one wall bar per run.
  std::regex wall("class=\"wall\""), hog("<title>run \\d+: preemption:stress-ng ");
  EXPECT_EQ(std::distance(std::sregex_iterator(html.begin(), html.end(), wall), std::sregex_iterator()), 10);
  EXPECT_EQ(std::distance(std::sregex_iterator(html.begin(), html.end(), hog), std::sregex_iterator()), 5);
}

TEST(ReportRender, HtmlEscapesNames) {
  auto rec = test::synthetic_record(10, 1e6, [](int i, RunSample& r, auto&) {
    if (i % 2) r.noise.push_back(test::time_entry("preemption:<script>", 5e6));
  });
  auto html = report::render(rec, report::Format::html, false);
  EXPECT_EQ(html.find("<script>\""), std::string::npos);
  EXPECT_NE(html.find("preemption:&lt;script&gt;"), std::string::npos);
}

TEST(ReportRender, MarkdownTablesKeepTheirShape) {
  auto rec = test::synthetic_record(10, 1e6, [](int i, RunSample& r, auto&) {
    if (i % 2) r.noise.push_back(test::time_entry("preemption:a|b", 5e6));
  });
  auto md = report::render(rec, report::Format::markdown, false);
  std::istringstream in(md);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("| source", 0) != 0) continue;
    auto columns = std::count(line.begin(), line.end(), '|');
    while (std::getline(in, line) && line.rfind("|", 0) == 0) {
      auto unescaped = std::count(line.begin(), line.end(), '|') - 2 * 0;
      size_t escaped = 0;
      for (size_t p = line.find("\\|"); p != std::string::npos; p = line.find("\\|", p + 1)) ++escaped;
      EXPECT_EQ(unescaped - long(escaped), columns) << line;
    }
  }
  EXPECT_NE(md.find("preemption:a\\|b"), std::string::npos);
}

TEST(ReportRender, EmptyRecordDoesNotCrash) {
  RunRecord rec;
  for (auto f : report::all_formats()) EXPECT_FALSE(report::render(rec, f, false).empty());
  EXPECT_NE(report::render(rec, report::Format::text, false).find("No measured runs"), std::string::npos);
}

TEST(ReportRender, RenderNeverThrowsOnForeignEngineFields) {
  auto rec = load_run_record(kRecords + "hog_alternate.json");
  rec.report = {
      {"headline", "saved"}, {"attributable", "yes"}, {"workload", 1}, {"patterns", {{"outliers", {{{"run", "2"}}}}}}};
  rec.attribution.push_back(
      {"preemption:x", 0.5, 1e6, std::nullopt, std::nullopt, 1, 1, {{"kind", 3}, {"pct_of_run", "a"}}});
  for (auto f : report::all_formats()) EXPECT_NO_THROW(report::render(rec, f, false));
}

TEST(ReportRender, ParseFormat) {
  EXPECT_EQ(report::parse_format("text"), report::Format::text);
  EXPECT_EQ(report::parse_format("json"), report::Format::json);
  EXPECT_EQ(report::parse_format("markdown"), report::Format::markdown);
  EXPECT_EQ(report::parse_format("html"), report::Format::html);
  EXPECT_EQ(report::parse_format("md"), report::Format::markdown);
  EXPECT_THROW(report::parse_format("pdf"), Error);
  for (const auto& name : report::format_names()) EXPECT_NO_THROW(report::parse_format(name)) << name;
}

TEST(ReportRender, FormatNamesForHelpAndErrors) {
  EXPECT_EQ(report::format_choices(), "text (default) | json | markdown | html");
  EXPECT_EQ(report::format_list(), "text, json, markdown or html");
  try {
    report::parse_format("pdf");
    ADD_FAILURE() << "pdf parsed";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "unknown report format 'pdf': use text, json, markdown or html");
  }
}

}  // namespace
}  // namespace nw
