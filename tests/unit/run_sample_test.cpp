// SPDX-License-Identifier: Apache-2.0
// A repetition's RunSample from the probe's readings: deltas, faults, steal and frequency, and
// the conservation a sample promises (CPU time of one thread within its wall time).
#include <gtest/gtest.h>

#include "record/source_detail.h"
#include "runner/run_sample.h"

namespace nw::runner {
namespace {

ProbeReading reading(uint64_t cpu_ns, uint64_t steal, double khz_ns, uint64_t at_ns) {
  ProbeReading r;
  r.switches = {3, 1};
  r.cpu_ns = cpu_ns;
  r.intr_running_ns = cpu_ns / 100;
  r.proc_steal_ns = steal;
  r.frequency = {probes::FrequencySnapshot{1, khz_ns, at_ns, true}};
  return r;
}

ChildResult child() {
  ChildResult c;
  c.wall_ns = 10'000'000;
  c.usage.ru_utime = {0, 9000};
  c.usage.ru_minflt = 120;
  c.usage.ru_majflt = 2;
  c.usage.ru_nivcsw = 4;
  return c;
}

TEST(RunSample, DeltasFaultsStealAndFrequencyFromTwoReadings) {
  ChildResult c = child();
  auto before = reading(5'000'000, 1'000'000, 0, 1'000);
  auto after = reading(14'000'000, 3'000'000, 2.0e6 * 10'000'000, 10'001'000);
  after.switches = {5, 4};
  std::vector<probes::NoiseEvent> events = {
      {"preemption:stress", 0, 2, 400'000, 300'000, {{"pid", 9}}},
      {"migration", 0, 1, 0, 0, {{"from", 0}, {"to", 1}}},
  };
  RunSample s = sample_from(false, before, after, {.index = 3, .warmup = false, .child = c}, events);
  EXPECT_EQ(s.index, 3);
  EXPECT_EQ(s.wall_ns, 10'000'000u);
  EXPECT_EQ(s.cpu_ns, 9'000'000u);
  EXPECT_LE(s.cpu_ns, s.wall_ns);
  EXPECT_EQ(s.user_ns, 9'000'000u);
  EXPECT_EQ(s.migrations, 1u);
  ASSERT_TRUE(s.probe_switches);
  EXPECT_EQ(s.probe_switches->seen.voluntary, 2u);
  EXPECT_EQ(s.probe_switches->seen.involuntary, 3u);
  // /proc/stat's steal, where the probe does not measure it.
  EXPECT_EQ(s.steal_ns, 2'000'000u);
  const NoiseEntry* steal = s.find("steal");
  ASSERT_NE(steal, nullptr);
  EXPECT_EQ(SourceDetail::from_json(steal->detail).origin, "/proc/stat");
  // getrusage's faults, counted (the probe timed none).
  const NoiseEntry* fault = s.find("fault");
  ASSERT_NE(fault, nullptr);
  EXPECT_EQ(fault->count, 122u);
  EXPECT_EQ(fault->time_ns, 0u);
  EXPECT_EQ(SourceDetail::from_json(fault->detail).major, 2u);
  ASSERT_TRUE(s.mean_khz);
  EXPECT_DOUBLE_EQ(*s.mean_khz, 2.0e6);
}

TEST(RunSample, TheProbesStealAndTimedFaultsWin) {
  ChildResult c = child();
  auto before = reading(0, 0, 0, 0), after = reading(1'000'000, 7'000'000, 0, 0);
  after.frequency[0].known = false;  // no cpufreq: no mean frequency
  std::vector<probes::NoiseEvent> events = {
      {"steal", 0, 1, 250'000, 250'000, nullptr},
      {"fault", 0, 90, 800'000, 20'000, nullptr},
  };
  RunSample s = sample_from(true, before, after, {.index = 0, .warmup = true, .child = c}, events);
  EXPECT_TRUE(s.warmup);
  EXPECT_EQ(s.steal_ns, 250'000u);  // not /proc/stat's 7 ms
  const NoiseEntry* fault = s.find("fault");
  ASSERT_NE(fault, nullptr);
  EXPECT_EQ(fault->count, 90u);
  EXPECT_EQ(fault->time_ns, 800'000u);
  EXPECT_EQ(SourceDetail::from_json(fault->detail).minor, 120u);
  EXPECT_FALSE(s.mean_khz);
}

}  // namespace
}  // namespace nw::runner
