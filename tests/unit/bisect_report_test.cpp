// SPDX-License-Identifier: Apache-2.0
// bisect's exit statuses and report on a result built by hand, and the helper that runs git and
// the build (common/subprocess.h).
#include <gtest/gtest.h>

#include "common/subprocess.h"
#include "runner/bisect.h"

namespace nw::runner {
namespace {

BisectResult found() {
  BisectResult r;
  r.outcome = "found";
  r.first_bad = "0123456789abcdef0123456789abcdef01234567";
  r.first_bad_subject = "commit 17";
  r.message = "first bad commit 0123456789 \"commit 17\": 3.02 % slower than its parent (1.0210–1.0390)";
  r.commits = 31;
  r.seconds = 12.5;
  r.steps.push_back(
      {r.first_bad, "commit 31", "endpoints", "different", 14, 1.03, 1.02, 1.04, "irq:local_timer (12 %)", 0.8});
  r.steps.push_back(
      {"fedcba9876543210fedcba9876543210fedcba98", "commit 15", "step", "build failed", 0, 1, 0, 0, "", 0.1});
  r.steps.push_back(
      {"1111111111111111111111111111111111111111", "commit 16", "step", "good", 22, 1.001, 0.99, INFINITY, "", 1.1});
  r.change = BisectStep{r.first_bad, "commit 17", "confirm", "different", 12, 1.0302, 1.021, 1.039, "", 0.7};
  r.steps.push_back(*r.change);
  return r;
}

TEST(BisectReport, ExitStatusesFollowTheOutcome) {
  BisectResult r = found();
  EXPECT_EQ(bisect_exit_status(r), 0);
  r.outcome = "no-regression";
  EXPECT_EQ(bisect_exit_status(r), 1);
  r.outcome = "undecided";
  EXPECT_EQ(bisect_exit_status(r), 2);
  r.outcome = "failed";
  EXPECT_EQ(bisect_exit_status(r), 3);
}

TEST(BisectReport, TextAndJsonSayTheCommitTheStepsAndTheTime) {
  const BisectResult r = found();
  const std::string text = render_bisect_text(r);
  EXPECT_EQ(text.rfind(r.message, 0), 0u) << text;
  EXPECT_NE(text.find("31 commits between good and bad: 2 tested (1 skipped), 12.5 s."), std::string::npos) << text;
  EXPECT_NE(text.find("build failed"), std::string::npos);
  EXPECT_NE(text.find("0.9900–…"), std::string::npos) << "an unbounded side is shown as such: " << text;
  const auto j = bisect_json(r);
  EXPECT_EQ(j["schema"], "noisewatch.bisect/1");
  EXPECT_EQ(j["outcome"], "found");
  EXPECT_EQ(j["first_bad"], r.first_bad);
  EXPECT_EQ(j["steps"].size(), 4u);
  EXPECT_TRUE(j["steps"][2]["ci"][1].is_null());
  EXPECT_EQ(j["change"]["ratio"], 1.0302);
  BisectResult none;
  none.outcome = "no-regression";
  EXPECT_TRUE(bisect_json(none)["first_bad"].is_null());
}

TEST(Subprocess, CapturesBothStreamsTheStatusAndRunsInItsDirectory) {
  auto c = run_captured({"/bin/sh", "-c", "echo out; echo err >&2; pwd; exit 3"}, "/tmp");
  EXPECT_EQ(c.status, 3);
  EXPECT_EQ(c.out, "out\n/tmp\n");
  EXPECT_EQ(c.err, "err\n");
  EXPECT_EQ(run_captured({"/nonexistent/tool"}).status, 127);
  EXPECT_EQ(run_captured({"/bin/sh", "-c", "kill -9 $$"}).status, 137);
  // More than a pipe holds on both streams at once: read as it comes, no deadlock.
  auto big = run_captured({"/bin/sh", "-c", "head -c 300000 /dev/zero; head -c 300000 /dev/zero >&2"});
  EXPECT_EQ(big.out.size(), 300000u);
  EXPECT_EQ(big.err.size(), 300000u);
}

}  // namespace
}  // namespace nw::runner
