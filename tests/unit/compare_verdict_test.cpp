// SPDX-License-Identifier: Apache-2.0
// The comparison model on sample reports: verdicts, the noise explanation, host differences,
// name matching and --fail-above.
#include <gtest/gtest.h>

#include <string>

#include "common/errors.h"
#include "compare/compare.h"
#include "compare/explanation.h"
#include "compare/host_diff.h"
#include "compare/noise_diff.h"
#include "sources/vocabulary.h"

namespace nw::compare {
namespace {

std::string data(const std::string& name) { return std::string(NW_SOURCE_DIR) + "/tests/data/compare/" + name; }

Comparison compare_files(const std::string& a, const std::string& b, Options o = {}) {
  return compare_inputs(load_input(data(a)), load_input(data(b)), o);
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

TEST(CompareVerdict, HogInNewIsExplainedAsNoise) {
  auto c = compare_files("nw_base.json", "nw_new_noisy.json");
  const auto& b = c.top();
  EXPECT_EQ(b.timing.verdict, Verdict::slower);
  EXPECT_NEAR(b.timing.change_percent(), 4.0, 0.8);
  ASSERT_TRUE(b.has_noise);
  ASSERT_FALSE(b.noise_diff.empty());
  const auto& hog = b.noise_diff.front();  // largest change first
  EXPECT_EQ(hog.source, "preemption:stress-ng");
  EXPECT_TRUE(hog.significant);
  EXPECT_DOUBLE_EQ(hog.base_mean_ns, 0);
  EXPECT_NEAR(hog.new_mean_ns, 2e6, 2e5);
  EXPECT_NEAR(b.noise_explained_points, 4.0, 0.8);
  ASSERT_TRUE(b.adjusted.has_value());
  EXPECT_EQ(b.adjusted->verdict, Verdict::no_change);  // the code did not change
  EXPECT_TRUE(contains(b.explanation, "coincides with more preemption by stress-ng on CPU 1")) << b.explanation;
  EXPECT_TRUE(contains(b.explanation, "likely noise")) << b.explanation;
  EXPECT_TRUE(contains(b.explanation, "Rerun on an isolated CPU")) << b.explanation;
  for (const auto& n : b.noise_diff)
    if (n.source != "preemption:stress-ng") EXPECT_FALSE(n.significant) << n.source;
}

TEST(CompareVerdict, SlowerCodeWithSameNoiseIsTheBenchmark) {
  auto c = compare_files("nw_base.json", "nw_new_slow_code.json");
  const auto& b = c.top();
  EXPECT_EQ(b.timing.verdict, Verdict::slower);
  EXPECT_NEAR(b.timing.change_percent(), 3.0, 0.6);
  EXPECT_DOUBLE_EQ(b.noise_explained_points, 0);
  EXPECT_EQ(b.adjusted->verdict, Verdict::slower);
  EXPECT_TRUE(contains(b.explanation, "the noise profile is the same: the slowdown is in the benchmark"))
      << b.explanation;
}

TEST(CompareVerdict, NoisyBaseMakesNewLookFaster) {
  auto c = compare_files("nw_new_noisy.json", "nw_base.json");
  const auto& b = c.top();
  EXPECT_EQ(b.timing.verdict, Verdict::faster);
  EXPECT_TRUE(contains(b.explanation, "BASE having more preemption by stress-ng")) << b.explanation;
  EXPECT_TRUE(contains(b.explanation, "likely noise")) << b.explanation;
}

TEST(CompareVerdict, DifferentMachineIsReported) {
  auto c = compare_files("nw_base.json", "nw_new_other_kernel.json");
  EXPECT_EQ(c.top().timing.verdict, Verdict::no_change);
  std::map<std::string, HostDifference> by_field;
  for (const auto& h : c.host_diff) by_field[h.field] = h;
  ASSERT_TRUE(by_field.count("kernel"));
  EXPECT_EQ(by_field["kernel"].base, "6.18.0-nw");
  EXPECT_EQ(by_field["kernel"].next, "6.1.0-26-amd64");
  ASSERT_TRUE(by_field.count("cpus"));
  EXPECT_EQ(by_field["cpus"].next, "0");
  EXPECT_FALSE(by_field.count("cpu_model"));
  EXPECT_TRUE(compare_files("nw_base.json", "nw_new_noisy.json").host_diff.empty());
}

TEST(CompareVerdict, FrequencyShiftAndMissingProbesAreReported) {
  auto base = load_input(data("nw_base.json")).benchmarks[0].record.value();
  auto next = base;
  for (auto& r : base.samples) r.mean_khz = 2'400'000;
  for (auto& r : next.samples) r.mean_khz = 2'000'000;  // e.g. powersave governor or thermal limit
  next.unavailable.push_back({"frequency", "no cpufreq"});
  std::map<std::string, HostDifference> by_field;
  for (const auto& h : diff_hosts(base, next)) by_field[h.field] = h;
  ASSERT_TRUE(by_field.count("mean_mhz"));
  EXPECT_EQ(by_field["mean_mhz"].base, "2400");
  EXPECT_EQ(by_field["mean_mhz"].next, "2000");
  ASSERT_TRUE(by_field.count("unavailable_probes"));
  EXPECT_EQ(by_field["unavailable_probes"].next, "frequency");
  for (auto& r : next.samples) r.mean_khz = 2'410'000;  // within 2 %: not worth a line
  next.unavailable.clear();
  EXPECT_TRUE(diff_hosts(base, next).empty());
}

// Two containers are two machines: their runtime, cpuset and memory limit are named; usage is not.
TEST(CompareVerdict, DifferentContainersAreReported) {
  auto base = load_input(data("nw_base.json")).benchmarks[0].record.value();
  auto next = base;
  base.host.container =
      ContainerInfo{true, "docker", {"cgroup /docker/ab12"}, "/docker/ab12", {2, 3}, "/docker/ab12", 268435456, 1000};
  next.host.container = base.host.container;
  next.host.container->memory_usage_bytes = 2000;
  EXPECT_TRUE(diff_hosts(base, next).empty()) << "usage is not a setting";
  next.host.container->cpuset_cpus = {0, 1, 2, 3};
  next.host.container->memory_limit_bytes.reset();
  std::map<std::string, HostDifference> by_field;
  for (const auto& h : diff_hosts(base, next)) by_field[h.field] = h;
  ASSERT_TRUE(by_field.count("cpuset"));
  EXPECT_EQ(by_field["cpuset"].base, "2,3");
  EXPECT_EQ(by_field["cpuset"].next, "0,1,2,3");
  ASSERT_TRUE(by_field.count("memory_limit_bytes"));
  EXPECT_EQ(by_field["memory_limit_bytes"].next, "none");
  EXPECT_FALSE(by_field.count("container"));
  next.host.container.reset();  // a record from before host.container: nothing to compare
  EXPECT_TRUE(diff_hosts(base, next).empty());
}

TEST(CompareVerdict, FewRunsAreFlagged) {
  auto c = compare_files("nw_few_base.json", "nw_few_new.json");
  EXPECT_TRUE(c.top().few_runs);
  EXPECT_TRUE(contains(c.top().explanation, "With 5 runs per side the test means little")) << c.top().explanation;
  bool warned = false;
  for (const auto& w : c.warnings) warned |= contains(w, "below 9 per side");
  EXPECT_TRUE(warned);
  EXPECT_FALSE(compare_files("nw_base.json", "nw_new_noisy.json").top().few_runs);
}

TEST(CompareVerdict, GoogleBenchmarkPerBenchmarkWithHeadline) {
  auto c = compare_files("gbench_base.json", "gbench_new.json");
  ASSERT_EQ(c.benchmarks.size(), 2u);  // BM_Only_Base has no partner
  EXPECT_EQ(c.benchmarks[0].name, "BM_Sum/1024");
  EXPECT_EQ(c.benchmarks[0].timing.verdict, Verdict::no_change);
  EXPECT_EQ(c.benchmarks[1].timing.verdict, Verdict::slower);
  EXPECT_EQ(c.top().name, "BM_Sort/4096");
  EXPECT_FALSE(c.top().has_noise);
  EXPECT_TRUE(contains(c.top().explanation, "no noise data")) << c.top().explanation;
  bool noted = false;
  for (const auto& w : c.warnings) noted |= contains(w, "only in BASE, not compared: BM_Only_Base");
  EXPECT_TRUE(noted);
}

TEST(CompareVerdict, ForeignFormatsCompare) {
  auto h = compare_files("hyperfine_base.json", "hyperfine_new.json");
  EXPECT_EQ(h.top().timing.verdict, Verdict::faster);
  EXPECT_NEAR(h.top().timing.ratio, 0.95, 0.02);
  auto p = compare_files("pyperf_base.json", "pyperf_new.json");
  EXPECT_EQ(p.top().timing.verdict, Verdict::no_change);
  EXPECT_EQ(p.top().base.runs, 18u);
}

TEST(CompareVerdict, MismatchedNamesAreAnError) {
  try {
    compare_files("gbench_base.json", "gbench_other_names.json");
    FAIL() << "no error";
  } catch (const Error& e) {
    std::string msg = e.what();
    EXPECT_TRUE(contains(msg, "no benchmark name in common")) << msg;
    EXPECT_TRUE(contains(msg, "\"BM_Renamed\"")) << msg;
  }
  EXPECT_THROW(compare_files("nw_base.json", "hyperfine_base.json"), Error);
}

TEST(CompareVerdict, FailAboveOnlyWhenSignificantlySlowerByMore) {
  Options o;
  o.fail_above_percent = 2;
  EXPECT_TRUE(compare_files("nw_base.json", "nw_new_slow_code.json", o).fail_above_exceeded());
  o.fail_above_percent = 10;
  EXPECT_FALSE(compare_files("nw_base.json", "nw_new_slow_code.json", o).fail_above_exceeded());
  o.fail_above_percent = 0;
  EXPECT_FALSE(compare_files("nw_base.json", "nw_new_other_kernel.json", o).fail_above_exceeded());
  EXPECT_FALSE(compare_files("nw_new_noisy.json", "nw_base.json", o).fail_above_exceeded());  // faster
}

// The sentence's other branches, on hand-built comparisons: 4 % slower with various noise changes.
BenchmarkComparison slower_by_four_percent(std::vector<NoiseChange> noise) {
  BenchmarkComparison c;
  c.name = "bench";
  c.base.runs = c.next.runs = 20;
  c.timing.verdict = Verdict::slower;
  c.timing.ratio = 1.04;
  c.timing.ci_low = 1.03;
  c.timing.ci_high = 1.05;
  c.timing.ci_bounded = true;
  c.timing.tested = true;
  c.timing.p_value = c.timing.p_adjusted = 0.0001;
  c.timing.significant = true;
  c.has_noise = true;
  c.noise_diff = std::move(noise);
  c.new_cpus = {2};
  c.noise_explained_points = explained_points(c);
  return c;
}

NoiseChange change(const char* source, double points, bool significant) {
  NoiseChange n;
  n.source = source;
  n.change_points = points;
  n.change_ns = points * 1e4;  // BASE median 1 ms
  n.significant = significant;
  n.stolen = sources::is_stolen(sources::parse(source), "bench");
  n.p_value = significant ? 0.001 : 0.5;
  return n;
}

TEST(CompareVerdict, PartlyNoiseSplitsThePoints) {
  auto c = slower_by_four_percent({change("irq:nvme0q3", 1.0, true), change("softirq:NET_RX", 0.5, false)});
  EXPECT_DOUBLE_EQ(c.noise_explained_points, 1.0);  // the insignificant change does not count
  std::string s = explain(c, Options{});
  EXPECT_TRUE(contains(s, "NEW is 4.0 % slower (95 % CI 3.0–5.0 %, p < 0.001)")) << s;
  EXPECT_TRUE(contains(s,
                       "1.0 points of that coincide with more IRQ time from nvme0q3 on CPU 2, the other 3.0 "
                       "points are likely in the benchmark"))
      << s;
}

TEST(CompareVerdict, MostlyNoiseIsLikelyNoise) {
  auto c = slower_by_four_percent({change("preemption:stress-ng", 3.0, true), change("steal", 0.2, true)});
  std::string s = explain(c, Options{});
  EXPECT_TRUE(contains(s,
                       "3.2 points of that coincide with more preemption by stress-ng and more hypervisor "
                       "steal on CPU 2: likely noise"))
      << s;
}

TEST(CompareVerdict, SourcesOfOneCategoryAreNamedTogether) {
  auto c = slower_by_four_percent({change("preemption:stress-ng", 2.0, true), change("irq:eth0", 0.5, true),
                                   change("preemption:cc1plus", 1.0, true), change("steal", 0.2, true)});
  std::string s = explain(c, Options{});
  EXPECT_TRUE(contains(s,
                       "coincide with more preemption by stress-ng and cc1plus, more IRQ time from eth0 and "
                       "1 other source on CPU 2"))
      << s;
}

TEST(CompareVerdict, NoiseFallingWhileSlowerPointsAtTheCode) {
  auto c = slower_by_four_percent({change("irq:local_timer", -0.5, true), change("blocking", 2.0, true)});
  std::string s = explain(c, Options{});  // blocking is the benchmark's own choice, not noise
  EXPECT_TRUE(contains(s, "the noise moved the other way (less timer-tick time (irq:local_timer))")) << s;
  EXPECT_TRUE(contains(s, "the slowdown is in the benchmark")) << s;
}

TEST(CompareVerdict, UnchangedTimingWithChangedNoiseSaysSo) {
  auto c = slower_by_four_percent({change("preemption:cc1plus", 2.0, true)});
  c.timing.verdict = Verdict::no_change;
  c.timing.significant = false;
  c.timing.ratio = 1.002;
  c.timing.ci_low = 0.99;
  c.timing.ci_high = 1.01;
  c.timing.p_value = c.timing.p_adjusted = 0.4;
  std::string s = explain(c, Options{});
  EXPECT_TRUE(contains(s, "No significant change: NEW is 0.2 % slower (95 % CI -1.0 to +1.0 %, p = 0.400)")) << s;
  EXPECT_TRUE(contains(s, "but the noise changed (more preemption by cc1plus in NEW)")) << s;
}

TEST(CompareVerdict, TheWorkloadsOwnChangesExplainNothing) {
  // Contention and fault time moved with the slowdown, but they are the benchmark's own doing.
  auto c = slower_by_four_percent({change("contention:worker", 3.0, true), change("fault", 1.0, true)});
  EXPECT_DOUBLE_EQ(c.noise_explained_points, 0.0);
  std::string s = explain(c, Options{});
  EXPECT_TRUE(contains(s, "the noise profile is the same: the slowdown is in the benchmark")) << s;
}

TEST(CompareVerdict, SoftirqsOfOneKindAreNamedTogether) {
  auto c = slower_by_four_percent({change("softirq:NET_RX", 2.0, true), change("softirq:TIMER", 1.0, true)});
  std::string s = explain(c, Options{});
  EXPECT_TRUE(contains(s, "coincide with more NET_RX and TIMER softirq time on CPU 2")) << s;
}

}  // namespace
}  // namespace nw::compare
