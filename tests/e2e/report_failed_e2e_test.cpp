// SPDX-License-Identifier: Apache-2.0
// The real binary on a benchmark that fails in its warm-up: the exit status is the benchmark's,
// and every format gives the same short report without recommendations.
#include <gtest/gtest.h>

#include <unistd.h>

#include "support/run_helpers.h"

namespace nw::e2e {
namespace {

TEST(ReportFailedE2E, FailingWarmupGetsAShortReportInEveryFormat) {
  const std::string headline = "The benchmark failed before any measured run: its warm-up run exited with status 3";
  std::string json = temp_path("failed.json");
  for (std::string f : {"text", "markdown", "html"}) {
    Proc p = run({noisewatch(), "--cpu", "1", "--format", f, "--json", json, "--", "sh", "-c", "exit 3"});
    EXPECT_EQ(p.status, 3) << p.err;
    EXPECT_NE(p.out.find(headline), std::string::npos) << f << ":\n" << p.out;
    for (const char* absent : {"Recommendations", "Measure more runs", "Sources", "Summary"})
      EXPECT_EQ(p.out.find(absent), std::string::npos) << f << ": " << absent << "\n" << p.out;
    auto j = load_json(json);
    EXPECT_EQ(j["report"]["headline"], headline);
    EXPECT_EQ(j["report"]["failed_before_measuring"]["exit_status"], 3);
    EXPECT_TRUE(j["recommendations"].empty());
    EXPECT_TRUE(j["attribution"].empty());
  }
  // `noisewatch report` on the saved record says the same.
  Proc again = run({noisewatch(), "report", json});
  EXPECT_EQ(again.status, 0) << again.err;
  EXPECT_NE(again.out.find(headline), std::string::npos) << again.out;
  unlink(json.c_str());
}

}  // namespace
}  // namespace nw::e2e
