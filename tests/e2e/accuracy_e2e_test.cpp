// The accuracy suite (tests/accuracy/run.sh) under ctest: one test per scenario. Each test runs
// the real noisewatch with the real injector (tools/noisewatch_inject.cpp) on the real kernel and
// passes when the suite's scoring says PASS. The rules live in one place, the injector's `score`
// mode, so `run.sh` alone and ctest judge identically.
// Needs the targets noisewatch_inject, acc_work and acc_threads built (a plain full build does that).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include "run_helpers.h"

namespace nw::e2e {
namespace {

// The scenario's headline: "ACCURACY <scenario> PASS|FAIL ...".
std::string headline(const std::string& out, const std::string& scenario) {
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string tag, name;
    if (words >> tag >> name && tag == "ACCURACY" && name == scenario) return line;
  }
  return "";
}

void run_scenario(const std::string& scenario) {
  for (const char* b : {"noisewatch_inject", "acc_work", "acc_threads"}) {
    struct stat st {};
    ASSERT_EQ(stat(bin(b).c_str(), &st), 0) << bin(b) << " is missing: build all targets (cmake --build DIR)";
  }
  Proc p = run({"/bin/bash", std::string(NW_SOURCE_DIR) + "/tests/accuracy/run.sh", NW_BINARY_DIR, scenario});
  // Show the scoring and its evidence in the test log, pass or fail.
  std::cout << p.out;
  if (!p.err.empty()) std::cout << p.err;
  std::string line = headline(p.out, scenario);
  ASSERT_FALSE(line.empty()) << "no ACCURACY line for " << scenario << "\n" << p.out << p.err;
  std::istringstream words(line);
  std::string tag, name, verdict;
  words >> tag >> name >> verdict;
  EXPECT_EQ(verdict, "PASS") << line;
  EXPECT_EQ(p.status, 0) << p.out << p.err;
}

TEST(AccuracyE2E, CpuHog) { run_scenario("cpu-hog"); }
TEST(AccuracyE2E, TimerStorm) { run_scenario("timer-storm"); }
TEST(AccuracyE2E, IrqStorm) { run_scenario("irq-storm"); }
TEST(AccuracyE2E, Migrations) { run_scenario("migrations"); }
TEST(AccuracyE2E, Blocking) { run_scenario("blocking"); }
TEST(AccuracyE2E, None) { run_scenario("none"); }
TEST(AccuracyE2E, Wrappers) { run_scenario("wrappers"); }
TEST(AccuracyE2E, ThreadsSpread) { run_scenario("threads-spread"); }
TEST(AccuracyE2E, ThreadsOneCpu) { run_scenario("threads-one-cpu"); }

}  // namespace
}  // namespace nw::e2e
