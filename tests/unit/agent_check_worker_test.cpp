// SPDX-License-Identifier: Apache-2.0
// The background check runner: results published, re-run on its interval, errors counted and
// the last good result kept, a prompt stop. Reads this machine's /proc and /sys (no root).
#include <chrono>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "agent/check_worker.h"
#include "common/errors.h"

namespace nw::agent {
namespace {

using namespace std::chrono_literals;

TEST(AgentCheckWorker, PublishesTheCheckReportAndItsJson) {
  CheckWorker w(std::nullopt, 1h);
  EXPECT_EQ(w.json(), "");
  EXPECT_FALSE(w.state().report);
  w.run_once();
  auto st = w.state();
  ASSERT_TRUE(st.report);
  EXPECT_EQ(st.runs, 1u);
  EXPECT_EQ(st.errors, 0u);
  EXPECT_GT(st.last_success_unix, 0);
  EXPECT_NE(st.report->find("smt"), nullptr);
  // The configuration checks only: no live noise measurement in the agent.
  EXPECT_TRUE(st.report->cpus.empty());
  auto j = nlohmann::json::parse(w.json());
  EXPECT_EQ(j["schema"], "noisewatch.check/1");
}

TEST(AgentCheckWorker, ACpuThatIsNotOnlineIsAnErrorAndCounted) {
  CheckWorker w(std::vector<int>{4095}, 1h);
  EXPECT_THROW(w.run_once(), Error);
  EXPECT_EQ(w.state().errors, 1u);
  EXPECT_FALSE(w.state().report);
}

TEST(AgentCheckWorker, RerunsOnItsIntervalAndStopsPromptly) {
  CheckWorker w(std::nullopt, 20ms, /*nice=*/0);  // a test must not wait behind a busy machine
  w.run_once();
  w.start();
  uint64_t runs = 1;
  for (int i = 0; i < 500 && runs < 3; ++i) {
    std::this_thread::sleep_for(20ms);
    runs = w.state().runs;
  }
  EXPECT_GE(runs, 3u);
  auto t0 = std::chrono::steady_clock::now();
  w.stop();
  // At most the check in progress is waited for, never a whole interval more.
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s);
  uint64_t after = w.state().runs;
  std::this_thread::sleep_for(100ms);
  EXPECT_EQ(w.state().runs, after);
}

TEST(AgentCheckWorker, StopWaitsNoIntervalWhenIdle) {
  CheckWorker w(std::nullopt, 1h);
  w.start();
  auto t0 = std::chrono::steady_clock::now();
  w.stop();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 1s);
}

}  // namespace
}  // namespace nw::agent
