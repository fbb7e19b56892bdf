// Counter arithmetic: multiplex scaling, effective frequency, IPC and the workload/machine split.
// Software counts come from vm-software-runs.json, recorded on the project's VM. This VM has no
// hardware PMU, so no instruction/cycle counts could be recorded here: the hardware series
// below are constructed, each with the property under test stated next to it.
#include <cmath>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "probes/counter_analysis.h"

namespace nw::probes {
namespace {

CounterSet hw_run(double instructions, double cycles, double scaling = 1.0) {
  CounterSet c;
  c["instructions"] = {instructions, uint64_t(instructions * scaling), scaling};
  c["cycles"] = {cycles, uint64_t(cycles * scaling), scaling};
  return c;
}

std::vector<CounterSet> load_recorded(const std::string& file, std::vector<double>* rusage_ns = nullptr) {
  std::ifstream in(std::string(NW_SOURCE_DIR) + "/tests/data/counters/" + file);
  auto j = nlohmann::json::parse(in);
  std::vector<CounterSet> runs;
  for (const auto& r : j.at("runs")) {
    CounterSet c;
    for (const auto& [name, v] : r.at("counters").items())
      c[name] = {v.at("value").get<double>(), v.at("raw").get<uint64_t>(), v.at("scaling").get<double>()};
    runs.push_back(c);
    if (rusage_ns) rusage_ns->push_back(r.at("rusage_cpu_ns").get<double>());
  }
  return runs;
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
  EXPECT_FALSE(counted(effective_ghz_counter(1, 0, 1, 1, 1.0)));     // no MPERF ticks
  EXPECT_FALSE(counted(effective_ghz_counter(1, 1, 1, 1, 0.0)));     // never scheduled
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

TEST(CountersIpcAcrossRuns, MeanAndCv) {
  // IPC 2.0, 2.2, 1.8: mean 2.0, sample stddev 0.2, CV 10 %.
  std::vector<CounterSet> runs{hw_run(2.0e9, 1.0e9), hw_run(2.2e9, 1.0e9), hw_run(1.8e9, 1.0e9),
                               CounterSet{{"task-clock", {1, 1, 1.0}}}};
  auto r = ipc_across_runs(runs);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->per_run.size(), 3u);  // the run without hardware counters is skipped
  EXPECT_NEAR(r->stats.mean, 2.0, 1e-12);
  EXPECT_NEAR(r->stats.stddev, 0.2, 1e-12);
  EXPECT_NEAR(r->stats.cv, 0.1, 1e-12);
}

// Constructed: instructions identical in every run (deterministic code), cycles vary 10 %
// (frequency, caches). All variance is the machine's.
TEST(CountersSplitVariance, ConstantInstructionsVaryingCyclesIsTheMachine) {
  std::vector<double> ins(8, 4.0e9), cyc{2.00e9, 2.05e9, 2.20e9, 1.98e9, 2.10e9, 2.31e9, 2.02e9, 2.15e9};
  auto s = split_variance(ins, cyc);
  EXPECT_DOUBLE_EQ(s.workload_share, 0.0);
  EXPECT_NEAR(s.machine_share, 1.0, 1e-12);
  EXPECT_EQ(s.verdict, "machine");
  EXPECT_EQ(s.cv_instructions, 0.0);
  EXPECT_GT(s.cv_cost, 0.04);
}

// Constructed: the benchmark does input-dependent work, CPI is constant: the workload's.
TEST(CountersSplitVariance, InstructionsProportionalToCyclesIsTheWorkload) {
  std::vector<double> ins{4.0e9, 4.4e9, 3.8e9, 4.1e9, 4.6e9}, cyc;
  for (double i : ins) cyc.push_back(i * 0.5);
  auto s = split_variance(ins, cyc);
  EXPECT_NEAR(s.workload_share, 1.0, 1e-12);
  EXPECT_NEAR(s.machine_share, 0.0, 1e-12);
  EXPECT_EQ(s.verdict, "workload");
  EXPECT_NEAR(s.cv_cost_per_instruction, 0.0, 1e-12);
}

// Constructed: independent instruction and CPI variations: shares equal each log-variance over
// the total, and always sum to one.
TEST(CountersSplitVariance, MixedSharesAddUpExactly) {
  std::vector<double> di{+0.02, -0.02, +0.02, -0.02}, dc{+0.04, +0.04, -0.04, -0.04};
  std::vector<double> ins, cyc;
  for (size_t k = 0; k < di.size(); ++k) {
    ins.push_back(1e9 * std::exp(di[k]));
    cyc.push_back(1e9 * std::exp(di[k] + dc[k]));
  }
  auto s = split_variance(ins, cyc);
  // Var(log I) = 4 Var(d) for d=0.02 vs 0.04: ratio 1:4, orthogonal -> 0.2 and 0.8.
  EXPECT_NEAR(s.workload_share, 0.2, 1e-9);
  EXPECT_NEAR(s.machine_share, 0.8, 1e-9);
  EXPECT_NEAR(s.workload_share + s.machine_share, 1.0, 1e-12);
  EXPECT_EQ(s.verdict, "machine");
  SplitThresholds strict{0.005, 0.9};
  EXPECT_EQ(split_variance(ins, cyc, strict).verdict, "mixed");
}

TEST(CountersSplitVariance, TinyVariationIsStable) {
  std::vector<double> ins(5, 1e9), cyc{1.000e9, 1.001e9, 0.999e9, 1.0005e9, 0.9995e9};
  EXPECT_EQ(split_variance(ins, cyc).verdict, "stable");
}

TEST(CountersSplitVariance, RejectsUnusableInput) {
  std::vector<double> two{1, 2}, three{1, 2, 3}, with_zero{1, 0, 3};
  EXPECT_THROW(split_variance(two, two), std::invalid_argument);
  EXPECT_THROW(split_variance(three, two), std::invalid_argument);
  EXPECT_THROW(split_variance(three, with_zero), std::invalid_argument);
}

TEST(CountersSplitVariance, FromRunsPrefersCyclesAndFallsBackToTaskClock) {
  std::vector<CounterSet> runs;
  for (double c : {2.0e9, 2.2e9, 2.4e9}) runs.push_back(hw_run(4e9, c));
  auto s = split_variance(runs);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->cost_counter, "cycles");
  EXPECT_EQ(s->verdict, "machine");
  for (auto& r : runs) {
    r["task-clock"] = {r["cycles"].value / 2.0, 0, 1.0};
    r["cycles"] = {0, 0, 0.0};  // multiplexed out entirely
  }
  s = split_variance(runs);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->cost_counter, "task-clock");
  EXPECT_NEAR(s->machine_share, 1.0, 1e-12);
}

TEST(CountersRecordedVm, SoftwareCountersSummarised) {
  std::vector<double> rusage_ns;
  auto runs = load_recorded("vm-software-runs.json", &rusage_ns);
  ASSERT_EQ(runs.size(), 8u);
  auto summary = summarize_counters(runs);
  ASSERT_TRUE(summary.count("task-clock"));
  const auto& tc = summary.at("task-clock");
  EXPECT_EQ(tc.stats.n, 8);
  EXPECT_EQ(tc.missing, 0);
  EXPECT_DOUBLE_EQ(tc.min_scaling, 1.0);  // software events are never multiplexed
  // The workload burns 100 ms of CPU per run; the recorded spread is well under 1 %.
  EXPECT_NEAR(tc.stats.mean, 1.05e8, 0.01e8);
  EXPECT_LT(tc.stats.cv, 0.01);
  for (size_t i = 0; i < runs.size(); ++i)
    EXPECT_NEAR(runs[i].at("task-clock").value, rusage_ns[i], 0.05 * rusage_ns[i]);
  EXPECT_GE(summary.at("page-faults").stats.min, 2000);  // 2000 fresh pages touched per run
  EXPECT_EQ(summary.at("cpu-migrations").stats.max, summary.at("cpu-migrations").stats.min);
}

TEST(CountersRecordedVm, NoHardwareCountersMeansNoIpcAndNoSplit) {
  auto runs = load_recorded("vm-software-runs.json");
  EXPECT_FALSE(ipc_across_runs(runs).has_value());
  EXPECT_FALSE(split_variance(runs).has_value());
}

TEST(CountersSummarizeCounters, ReportsMultiplexingAndMissingRuns) {
  std::vector<CounterSet> runs{hw_run(1e9, 1e9, 1.0), hw_run(1e9, 1e9, 0.5),
                               CounterSet{{"instructions", {0, 0, 0.0}}}};
  auto s = summarize_counters(runs);
  EXPECT_DOUBLE_EQ(s.at("instructions").min_scaling, 0.5);
  EXPECT_EQ(s.at("instructions").missing, 1);
  EXPECT_EQ(s.at("instructions").stats.n, 2);
  EXPECT_EQ(s.at("cycles").missing, 1);
}

TEST(CountersMeasuredCounterSets, SkipsWarmupRuns) {
  nw::RunRecord rec;
  for (int i = 0; i < 3; ++i) {
    nw::RunSample r;
    r.index = i;
    r.warmup = i == 0;
    r.counters["task-clock"] = {double(i), uint64_t(i), 1.0};
    rec.runs.push_back(r);
  }
  auto sets = measured_counter_sets(rec);
  ASSERT_EQ(sets.size(), 2u);
  EXPECT_EQ(sets[0].at("task-clock").raw, 1u);
}

}  // namespace
}  // namespace nw::probes
