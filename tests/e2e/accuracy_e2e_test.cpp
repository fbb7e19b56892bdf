// The accuracy suite (tests/accuracy/run.sh) under ctest: one test per scenario. Each test runs
// the real noisewatch with the real injector (tools/noisewatch_inject.cpp) on the real kernel and
// passes when the suite's scoring line says PASS. The pass rule lives in one place, the
// injector's `score` mode, so `run.sh` alone and ctest judge identically.
// Needs the targets noisewatch_inject and acc_work built (a plain full build does that).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include "run_helpers.h"

namespace nw::e2e {
namespace {

void run_scenario(const std::string& scenario) {
  for (const char* b : {"noisewatch_inject", "acc_work"}) {
    struct stat st {};
    ASSERT_EQ(stat(bin(b).c_str(), &st), 0) << bin(b) << " is missing: build all targets (cmake --build DIR)";
  }
  Proc p = run({"/bin/bash", std::string(NW_SOURCE_DIR) + "/tests/accuracy/run.sh", NW_BINARY_DIR, scenario});
  // Show the scoring line and its evidence in the test log, pass or fail.
  std::cout << p.out;
  if (!p.err.empty()) std::cout << p.err;
  EXPECT_NE(p.out.find("ACCURACY " + scenario), std::string::npos) << p.err;
  EXPECT_NE(p.out.find("PASS"), std::string::npos) << p.out;
  EXPECT_EQ(p.status, 0) << p.out << p.err;
}

TEST(AccuracyE2E, CpuHog) { run_scenario("cpu-hog"); }
TEST(AccuracyE2E, TimerStorm) { run_scenario("timer-storm"); }
TEST(AccuracyE2E, IrqStorm) { run_scenario("irq-storm"); }
TEST(AccuracyE2E, Migrations) { run_scenario("migrations"); }
TEST(AccuracyE2E, Blocking) { run_scenario("blocking"); }
TEST(AccuracyE2E, None) { run_scenario("none"); }

}  // namespace
}  // namespace nw::e2e
