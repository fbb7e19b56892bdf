// SPDX-License-Identifier: Apache-2.0
// `noisewatch report`: a saved run re-rendered; bad input is a one-line error and exit 125.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "reports/report.h"
#include "support/files.h"

namespace nw {
namespace {

namespace fs = std::filesystem;
const std::string kHog = std::string(NW_SOURCE_DIR) + "/tests/data/records/hog_alternate.json";

class ReportCli : public ::testing::Test {
 protected:
  fs::path dir = fs::temp_directory_path() / ("nw_report_cli_" + std::to_string(::getpid()));
  void SetUp() override { fs::create_directories(dir); }
  void TearDown() override { fs::remove_all(dir); }

  int run(std::vector<std::string> args) {
    args.insert(args.begin(), "noisewatch");
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    testing::internal::CaptureStderr();
    int rc = cli::main(int(argv.size()), argv.data());
    err = testing::internal::GetCapturedStderr();
    return rc;
  }
  std::string write(const std::string& name, const std::string& content) {
    auto p = (dir / name).string();
    std::ofstream(p) << content;
    return p;
  }
  std::string err;
};

TEST_F(ReportCli, RendersEachFormatToAFile) {
  for (std::string f : {"text", "json", "markdown", "html"}) {
    auto out = dir / ("out." + f);
    ASSERT_EQ(run({"report", kHog, "--format", f, "-o", out.string()}), 0) << err;
    auto content = test::slurp(out);
    EXPECT_NE(content.find(f == "json" ? "\"preemption:stress-ng\"" : "stress-ng"), std::string::npos) << f;
  }
  auto j = nlohmann::json::parse(test::slurp(dir / "out.json"));
  EXPECT_EQ(j["schema"], "noisewatch.run/1");
  EXPECT_EQ(j["attribution"][0]["source"], "preemption:stress-ng");
}

TEST_F(ReportCli, CorruptJsonIsAOneLineError) {
  auto p = write("corrupt.json", "{\"schema\": \"noisewatch.run/1\", \"runs\": [");
  EXPECT_EQ(run({"report", p}), cli::kExitOwnError);
  EXPECT_NE(err.find("is not valid JSON"), std::string::npos) << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
}

TEST_F(ReportCli, ForeignJsonIsRejected) {
  auto p = write("check.json", R"({"schema": "noisewatch.check/1", "findings": []})");
  EXPECT_EQ(run({"report", p}), cli::kExitOwnError);
  EXPECT_NE(err.find("not a noisewatch run report"), std::string::npos) << err;
  auto q = write("wrongtype.json", R"({"schema": "noisewatch.run/1", "runs": [{"wall_ns": "fast"}]})");
  EXPECT_EQ(run({"report", q}), cli::kExitOwnError);
  EXPECT_NE(err.find("wall_ns"), std::string::npos) << err;
  auto r = write("array.json", "[1, 2, 3]");
  EXPECT_EQ(run({"report", r}), cli::kExitOwnError);
}

TEST_F(ReportCli, MissingFileUnknownFormatUnwritableOutput) {
  EXPECT_EQ(run({"report", (dir / "nope.json").string()}), cli::kExitOwnError);
  EXPECT_NE(err.find("cannot read"), std::string::npos) << err;
  EXPECT_EQ(run({"report", kHog, "--format", "pdf"}), cli::kExitOwnError);
  // The choices are the format table's (reports/render.cpp), aliases included: a new format
  // changes this message with no edit here.
  std::string choices = fmt::format("--format: pdf not in {{{}}}", fmt::join(report::format_names(), ","));
  EXPECT_NE(err.find(choices), std::string::npos) << err;
  EXPECT_EQ(run({"report", kHog, "-o", (dir / "no/such/dir/x.txt").string()}), cli::kExitOwnError);
  EXPECT_NE(err.find("does not exist; create it or write elsewhere"), std::string::npos) << err;
  EXPECT_EQ(run({"report"}), cli::kExitOwnError);
}

TEST_F(ReportCli, StrangeEngineFieldsInASavedRecordAreRecomputed) {
  auto j = nlohmann::json::parse(test::slurp(kHog));
  j["report"] = {{"engine_warnings", 3}, {"headline", 7}, {"patterns", {{"outliers", {1, "x"}}}}};
  j["runs"][1]["noise"][0]["detail"] = {{"pids", "not a list"}, {"irq", "24"}};
  auto p = write("strange.json", j.dump());
  auto out = dir / "strange.txt";
  EXPECT_EQ(run({"report", p, "-o", out.string()}), 0) << err;
  EXPECT_NE(test::slurp(out).find("preemption by stress-ng"), std::string::npos);
}

}  // namespace
}  // namespace nw
