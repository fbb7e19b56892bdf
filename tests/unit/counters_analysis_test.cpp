// SPDX-License-Identifier: Apache-2.0
// Counter arithmetic: multiplex scaling, effective frequency, IPC. This VM has no hardware PMU,
// so no instruction/cycle counts could be recorded here: the hardware values below are
// constructed, each with the property under test stated next to it.
#include <cmath>

#include <gtest/gtest.h>

#include "probes/counter_analysis.h"

namespace nw::probes {
namespace {

CounterSet hw_run(double instructions, double cycles, double scaling = 1.0) {
  CounterSet c;
  c["instructions"] = {instructions, uint64_t(instructions * scaling), scaling};
  c["cycles"] = {cycles, uint64_t(cycles * scaling), scaling};
  return c;
}

TEST(CountersScaleCount, NotMultiplexedIsTheRawCount) {
  auto v = scale_count(12345, 1'000'000, 1'000'000);
  EXPECT_EQ(v.raw, 12345u);
  EXPECT_DOUBLE_EQ(v.value, 12345.0);
  EXPECT_DOUBLE_EQ(v.scaling, 1.0);
}

TEST(CountersScaleCount, MultiplexedIsExtrapolatedOverTheEnabledTime) {
  // On the PMU a quarter of the time: 1000 counted -> 4000 estimated.
  auto v = scale_count(1000, 4'000'000, 1'000'000);
  EXPECT_EQ(v.raw, 1000u);
  EXPECT_DOUBLE_EQ(v.value, 4000.0);
  EXPECT_DOUBLE_EQ(v.scaling, 0.25);
  EXPECT_TRUE(counted(v));
}

TEST(CountersScaleCount, NeverScheduledIsNotAZeroCount) {
  auto v = scale_count(0, 5'000'000, 0);
  EXPECT_FALSE(counted(v));
  EXPECT_DOUBLE_EQ(v.value, 0.0);
  // Never enabled (e.g. the exec failed): nothing happened, a genuine zero.
  auto never = scale_count(0, 0, 0);
  EXPECT_TRUE(counted(never));
  EXPECT_DOUBLE_EQ(never.value, 0.0);
}

TEST(CountersScaleCount, GroupScalingLeavesIpcUnchanged) {
  // Cycles and instructions in one group share time_running, so IPC survives multiplexing.
  auto ins = scale_count(2'000'000, 10'000'000, 3'000'000);
  auto cyc = scale_count(1'000'000, 10'000'000, 3'000'000);
  CounterSet c{{"instructions", ins}, {"cycles", cyc}};
  EXPECT_NEAR(*ipc(c), 2.0, 1e-12);
}

TEST(CountersEffectiveGhz, TscRateTimesAperfOverMperf) {
  // TSC at 2.0 GHz (2e9 ticks in 1 s of running), APERF ran 1.5x faster than MPERF: 3.0 GHz.
  EXPECT_NEAR(*effective_ghz(3.0e9, 2.0e9, 2.0e9, 1'000'000'000), 3.0, 1e-12);
  // Throttled to half the nominal clock.
  EXPECT_NEAR(*effective_ghz(0.5e9, 1.0e9, 2.9e8, 100'000'000), 1.45, 1e-12);
  EXPECT_FALSE(effective_ghz(1.0, 0.0, 1.0, 1).has_value());
  EXPECT_FALSE(effective_ghz(1.0, 1.0, 1.0, 0).has_value());
}

TEST(CountersEffectiveGhz, CounterValueCarriesGhzAndKhz) {
  // Constructed from turbostat's relation for a 2.6 GHz-TSC part boosting to 3.4 GHz over
  // 250 ms of run time: tsc = 2.6e9 * 0.25, aperf/mperf = 3.4 / 2.6.
  auto v = effective_ghz_counter(850'000'000, 650'000'000, 650'000'000, 250'000'000, 1.0);
  EXPECT_NEAR(v.value, 3.4, 1e-9);
  EXPECT_EQ(v.raw, 3'400'000u);  // kHz, comparable with RunSample::mean_khz
  EXPECT_DOUBLE_EQ(v.scaling, 1.0);
  EXPECT_FALSE(counted(effective_ghz_counter(1, 0, 1, 1, 1.0)));  // no MPERF ticks
  EXPECT_FALSE(counted(effective_ghz_counter(1, 1, 1, 1, 0.0)));  // never scheduled
}

TEST(CountersFindCounter, KnowsTheSpellingsOfCyclesAndInstructions) {
  CounterSet c;
  c["perf::PERF_COUNT_HW_INSTRUCTIONS:u=1"] = {100, 100, 1.0};
  c["amd64_fam19h_zen4::CYCLES_NOT_IN_HALT"] = {50, 50, 1.0};
  c["perf::TASK-CLOCK"] = {7, 7, 1.0};
  EXPECT_EQ(find_counter(c, CounterKind::instructions), 100.0);
  EXPECT_EQ(find_counter(c, CounterKind::cycles), 50.0);
  EXPECT_EQ(find_counter(c, CounterKind::task_clock), 7.0);
  EXPECT_DOUBLE_EQ(*ipc(c), 2.0);
  CounterSet intel{{"INST_RETIRED:ANY_P", {300, 300, 1.0}}, {"cpu-cycles", {100, 100, 1.0}}};
  EXPECT_DOUBLE_EQ(*ipc(intel), 3.0);
}

TEST(CountersFindCounter, IgnoresCountersThatWereNeverScheduled) {
  CounterSet c{{"instructions", {0, 0, 0.0}}, {"cycles", {10, 10, 1.0}}};
  EXPECT_FALSE(find_counter(c, CounterKind::instructions).has_value());
  EXPECT_FALSE(ipc(c).has_value());
}

}  // namespace
}  // namespace nw::probes
