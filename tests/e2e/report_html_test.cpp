// SPDX-License-Identifier: Apache-2.0
// The HTML report opened in a real browser (headless Chromium): the SVG charts are in the
// rendered DOM and the browser laid them out with a non-zero size.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include <unistd.h>

#include "reports/report.h"

namespace nw {
namespace {

namespace fs = std::filesystem;
constexpr const char* kChromium = "/usr/bin/chromium";

std::string run_and_capture(const std::string& cmd) {
  std::string out;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return out;
  std::array<char, 4096> buf{};
  size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  ::pclose(p);
  return out;
}

class ReportHtml : public ::testing::Test {
 protected:
  fs::path dir = fs::temp_directory_path() / ("nw_report_html_" + std::to_string(::getpid()));
  void SetUp() override {
    if (!fs::exists(kChromium)) GTEST_SKIP() << "chromium is not installed (apt-get install chromium)";
    fs::create_directories(dir / "profile");
  }
  void TearDown() override { fs::remove_all(dir); }

  // Chromium flags that keep a headless run offline and away from the user's profile.
  std::string chromium(const std::string& action, const fs::path& html) {
    return std::string("timeout 120 ") + kChromium +
           " --headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking"
           " --disable-component-update --disable-sync --user-data-dir=" +
           (dir / "profile").string() + " " + action + " file://" + html.string() + " 2>/dev/null";
  }
};

TEST_F(ReportHtml, ChromiumRendersTheCharts) {
  auto rec = load_run_record(std::string(NW_SOURCE_DIR) + "/tests/data/records/hog_alternate.json");
  auto analysis = report::analyze(rec);
  auto html = dir / "report.html";
  std::ofstream(html) << report::render(rec, analysis, report::Format::html, false);

  auto dom = run_and_capture(chromium("--dump-dom", html));
  ASSERT_FALSE(dom.empty()) << "chromium produced no DOM";
  EXPECT_NE(dom.find("<svg id=\"chart-runs\""), std::string::npos);
  EXPECT_NE(dom.find("<svg id=\"chart-shares\""), std::string::npos);
  // The page's load handler wrote each chart's laid-out size and its number of bars.
  std::smatch m;
  std::regex runs("chart-runs:(\\d+)x(\\d+):(\\d+)"), shares("chart-shares:(\\d+)x(\\d+):(\\d+)");
  ASSERT_TRUE(std::regex_search(dom, m, runs)) << "the runs chart was not laid out";
  EXPECT_GT(std::stoi(m[1]), 300);
  EXPECT_GT(std::stoi(m[2]), 100);
  EXPECT_GE(std::stoi(m[3]), 10 + 5);  // a wall bar per run + the hog's bars in 5 runs
  ASSERT_TRUE(std::regex_search(dom, m, shares)) << "the shares chart was not laid out";
  EXPECT_GT(std::stoi(m[1]), 300);
  EXPECT_GE(std::stoi(m[3]), int(analysis.attribution.rows.size()));

  auto png = dir / "report.png";
  run_and_capture(chromium("--window-size=1000,1400 --screenshot=" + png.string(), html));
  ASSERT_TRUE(fs::exists(png));
  EXPECT_GT(fs::file_size(png), 20000u);  // a blank page is a few kB
}

}  // namespace
}  // namespace nw
