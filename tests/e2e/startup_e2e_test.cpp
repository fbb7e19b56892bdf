// SPDX-License-Identifier: Apache-2.0
// NOISEWATCH_TIMING (issue #27 §2): the phases of a run fit inside the command's own time, each
// repetition's parts are given, and each program's verification time is named.
#include <gtest/gtest.h>

#include <regex>

#include "support/run_helpers.h"
#include "system/monotonic_clock.h"

namespace nw::e2e {
namespace {

double monotonic_ms() { return double(sys::monotonic_ns()) / 1e6; }

TEST(StartupE2E, TimingPhasesFitInTheWallTime) {
  setenv("NOISEWATCH_TIMING", "1", 1);
  const double t0 = monotonic_ms();
  Proc p = run({noisewatch(), "--runs", "2", "--warmup", "0", "-q", "--", "true"});
  const double wall_ms = monotonic_ms() - t0;
  unsetenv("NOISEWATCH_TIMING");
  ASSERT_EQ(p.status, 0) << p.err;
  // The phases add up to at most the command's wall time as this test saw it.
  const size_t at = p.err.find("noisewatch: timing: options");
  ASSERT_NE(at, std::string::npos) << p.err;
  const std::string line = p.err.substr(at, p.err.find('\n', at) - at);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(line, m, std::regex(R"(\(total ([0-9.]+) ms since main\))"))) << line;
  const double total = std::stod(m[1]);
  EXPECT_GT(total, 0);
  EXPECT_LE(total, wall_ms);
  double sum = 0;
  std::string phases = line.substr(0, line.find("(total"));
  const std::regex ms(R"(([0-9.]+) ms)");
  for (std::sregex_iterator it(phases.begin(), phases.end(), ms), end; it != end; ++it) sum += std::stod((*it)[1]);
  EXPECT_LE(sum, total + 0.05);
  EXPECT_NE(p.err.find("per repetition (mean of 2)"), std::string::npos) << p.err;
  EXPECT_NE(p.err.find("verifier on_switch"), std::string::npos) << p.err;
}

}  // namespace
}  // namespace nw::e2e
