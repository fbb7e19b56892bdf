// SPDX-License-Identifier: Apache-2.0
// `noisewatch kernel` on the machine the tests run on, and the message a refusal gets: every
// program noisewatch loads, in every set-up the command line has, keeps its margins to the
// verifier's limits here (the same check runs in the 6.1 guest: tests/vm); and a program the
// verifier refuses is named with the verifier's reason and what avoids it, never "run as root".
#include <gtest/gtest.h>

#include "support/kernel_margins.h"
#include "support/run_helpers.h"

namespace nw::e2e {
namespace {

TEST(KernelE2E, EveryProgramLoadsWithinItsMarginsInEverySetUp) {
  Proc p = run({noisewatch(), "kernel", "--format", "json"});
  ASSERT_EQ(p.status, 0) << p.err << p.out;
  auto k = nlohmann::json::parse(p.out);
  test::expect_programs_within_margins(k);
  // --timeline is one of them (6.18.44 refused it: 608 bytes of stack on one call chain).
  bool timeline = false;
  for (const auto& s : k["setups"]) timeline |= s["configuration"] == "--timeline" && s["loaded"].get<bool>();
  EXPECT_TRUE(timeline);
  // The text form says the same, a line per program.
  Proc text = run({noisewatch(), "kernel"});
  EXPECT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find("on_switch"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("--timeline                         loads"), std::string::npos) << text.out;
}

TEST(KernelE2E, ARefusedProgramIsNamedWithTheVerifiersReason) {
  setenv("NOISEWATCH_TEST_REFUSE", "1", 1);
  Proc plain = run({noisewatch(), "--runs", "1", "--warmup", "0", "-q", "--", "/bin/true"});
  std::string tl = temp_path("refused-timeline.json");
  Proc timeline = run({noisewatch(), "--timeline", tl, "--runs", "1", "--warmup", "0", "-q", "--", "/bin/true"});
  Proc kernel = run({noisewatch(), "kernel", "--format", "json"});
  unsetenv("NOISEWATCH_TEST_REFUSE");
  EXPECT_EQ(plain.status, 125);
  EXPECT_NE(plain.err.find("refuses the eBPF program on_exit"), std::string::npos) << plain.err;
  EXPECT_NE(plain.err.find("invalid mem access"), std::string::npos) << plain.err;
  EXPECT_EQ(plain.err.find("root"), std::string::npos) << plain.err;
  EXPECT_EQ(std::count(plain.err.begin(), plain.err.end(), '\n'), 1) << plain.err;
  // With an option that changes the programs, the advice names it.
  EXPECT_EQ(timeline.status, 125);
  EXPECT_NE(timeline.err.find("run without --timeline"), std::string::npos) << timeline.err;
  // `noisewatch kernel` says so too: nothing loads in any set-up, so 125 with the refusal.
  EXPECT_EQ(kernel.status, 125) << kernel.out;
  EXPECT_NE(kernel.err.find("on_exit"), std::string::npos) << kernel.err;
  // Nothing was left loaded.
  EXPECT_EQ(loaded_bpf_programs().find("on_switch"), std::string::npos);
}

}  // namespace
}  // namespace nw::e2e
