// The per-CPU noise measurement and the CPU ranking used by `check` and `run --cpu auto`.
#include <sched.h>

#include <gtest/gtest.h>

#include "check/cpu_noise.h"
#include "cli/errors.h"

namespace nw::check {
namespace {

CpuNoise noise(int cpu, double ppm, uint64_t max_gap = 0) {
  CpuNoise n;
  n.cpu = cpu;
  n.noise_ppm = ppm;
  n.max_gap_ns = max_gap;
  n.measured_ns = 1'000'000'000;
  return n;
}

TEST(CheckNoise, RankQuietestFirstThenShorterMaxGap) {
  auto r = rank_cpus({noise(0, 50), noise(1, 10, 900), noise(2, 10, 300), noise(3, 400)});
  ASSERT_EQ(r.size(), 4u);
  EXPECT_EQ(r[0].cpu, 2);
  EXPECT_EQ(r[1].cpu, 1);
  EXPECT_EQ(r[2].cpu, 0);
  EXPECT_EQ(r[3].cpu, 3);
}

TEST(CheckNoise, RecommendSkipsHousekeepingCpus) {
  auto choice = recommend_cpu({noise(0, 5), noise(1, 80), noise(2, 40)}, {0});
  ASSERT_TRUE(choice);
  EXPECT_EQ(choice->cpu, 2) << "CPU 0 is the quietest but housekeeping";
  EXPECT_NE(choice->reason.find("housekeeping: 0"), std::string::npos) << choice->reason;
  EXPECT_EQ(choice->reason.find('\n'), std::string::npos);
}

TEST(CheckNoise, RecommendFallsBackWhenOnlyHousekeepingWasMeasured) {
  auto choice = recommend_cpu({noise(0, 5)}, {0});
  ASSERT_TRUE(choice);
  EXPECT_EQ(choice->cpu, 0);
  EXPECT_FALSE(recommend_cpu({}, {0}));
}

TEST(CheckNoise, HousekeepingIsNonIsolatedElseFirstCpu) {
  EXPECT_EQ(housekeeping_cpus({0, 1, 2, 3}, {2, 3}), (std::vector<int>{0, 1}));
  EXPECT_EQ(housekeeping_cpus({0, 1, 2, 3}, {}), std::vector<int>{0});
  EXPECT_EQ(housekeeping_cpus({}, {}), std::vector<int>{});
}

TEST(CheckNoise, UnexplainedGapTimeGoesToHardwareOrHypervisor) {
  CpuNoise m = noise(1, 1000);  // 1000 ppm of 1 s = 1 ms of gaps
  std::vector<NoiseSource> os = {{"irq:local_timer", 250, 300'000, 5'000}, {"softirq:TIMER", 10, 200'000, 30'000}};
  auto top = attribute_gaps(m, os, 5);
  ASSERT_EQ(top.size(), 3u);
  EXPECT_EQ(top[0].source, "hardware/hypervisor");
  EXPECT_EQ(top[0].time_ns, 500'000u);
  EXPECT_EQ(top[1].source, "irq:local_timer");
  // Fully explained gaps leave nothing for hardware.
  auto explained = attribute_gaps(noise(1, 400), os, 5);
  EXPECT_EQ(explained.size(), 2u);
  EXPECT_EQ(attribute_gaps(m, os, 1).size(), 2u) << "one OS source kept, plus the remainder";
}

TEST(CheckNoise, ParsePriority) {
  NoiseOptions o;
  parse_priority("fifo:10", o);
  EXPECT_EQ(o.policy, SCHED_FIFO);
  EXPECT_EQ(o.priority, 10);
  parse_priority("other", o);
  EXPECT_EQ(o.policy, SCHED_OTHER);
  EXPECT_THROW(parse_priority("fifo", o), nw::Error);
  EXPECT_THROW(parse_priority("fifo:100", o), nw::Error);
  EXPECT_THROW(parse_priority("batch:1", o), nw::Error);
}

// A real measurement, short: the spinner covers the requested time and every gap counted is
// above the threshold.
TEST(CheckNoise, MeasuresTheRequestedDurationOnTheCpu) {
  cpu_set_t allowed;
  ASSERT_EQ(sched_getaffinity(0, sizeof(allowed), &allowed), 0);
  int cpu = 0;
  while (!CPU_ISSET(cpu, &allowed)) ++cpu;
  NoiseOptions o;
  o.threshold_ns = 2000;
  auto r = measure_cpu_noise({cpu}, 0.3, o);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].cpu, cpu);
  EXPECT_GE(r[0].measured_ns, 290'000'000u);
  EXPECT_LT(r[0].measured_ns, 400'000'000u);
  EXPECT_GE(r[0].noise_ppm, 0.0);
  EXPECT_LE(r[0].noise_ppm, 1e6);
  if (r[0].gaps > 0) {
    EXPECT_GT(r[0].max_gap_ns, o.threshold_ns);
    // Total gap time is at least gaps * threshold.
    EXPECT_GE(r[0].noise_ppm * 0.3e9 / 1e6 + 1, double(r[0].gaps) * double(o.threshold_ns));
  }
}

TEST(CheckNoise, CpuOutsideOurAffinityIsAnError) {
  EXPECT_THROW(measure_cpu_noise({4095}, 0.1), nw::Error);
  EXPECT_TRUE(measure_cpu_noise({}, 1.0).empty());
}

}  // namespace
}  // namespace nw::check
