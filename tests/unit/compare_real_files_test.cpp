// SPDX-License-Identifier: Apache-2.0
// compare on files written by the real tools (tests/data/compare/real, origins in
// tests/data/compare/README): Google Benchmark's compare.py test inputs and output of Debian's
// libbenchmark 1.7.1, pyperf's documentation and test files, hyperfine 1.15 exports. Each test
// names the case of issue #14 it covers and what compare did before.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <string>

#include "common/errors.h"
#include "compare/compare.h"
#include "compare/input.h"
#include "compare/render.h"
#include "support/files.h"

namespace nw::compare {
namespace {

std::string data(const std::string& name) { return std::string(NW_SOURCE_DIR) + "/tests/data/compare/" + name; }
std::string real(const std::string& name) { return data("real/" + name); }

Comparison compare_files(const std::string& a, const std::string& b, Options o = {}) {
  return compare_inputs(load_input(a), load_input(b), o);
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

const BenchmarkComparison& find(const Comparison& c, const std::string& name) {
  for (const auto& b : c.benchmarks)
    if (b.name == name) return b;
  throw std::runtime_error("no benchmark " + name);
}

std::string error_of(const std::string& path) {
  try {
    load_input(path);
  } catch (const Error& e) {
    return e.what();
  }
  return "(accepted)";
}

// Before: "not valid JSON (byte 1371)" for any file with a non-finite counter.
TEST(CompareRealFiles, GoogleBenchmarkNonFiniteCountersAreRead) {
  auto in = load_input(real("gbench_reps_base.json"));  // hit_ratio: NaN, misses_per_hit: Infinity, ...
  ASSERT_EQ(in.benchmarks.size(), 5u);
  EXPECT_EQ(in.benchmarks[3].name, "BM_Lookup");
  EXPECT_EQ(in.benchmarks[3].times_ns.size(), 10u);
  EXPECT_EQ(in.benchmarks[3].cpu_ns.size(), 10u);  // cpu_time per repetition
  EXPECT_EQ(in.benchmarks[3].cpu_basis, "cpu_time");
}

// Before: "not valid JSON (byte 1)": gzip was not read at all.
TEST(CompareRealFiles, PyperfGzipIsReadByMagicBytes) {
  auto in = load_input(real("pyperf_doc_py3.json.gz"));
  EXPECT_EQ(in.format, InputFormat::pyperf);
  ASSERT_EQ(in.benchmarks.size(), 1u);
  EXPECT_EQ(in.benchmarks[0].name, "timeit");
  EXPECT_EQ(in.benchmarks[0].times_ns.size(), 60u);  // 20 processes x 3 values
  EXPECT_TRUE(in.benchmarks[0].cpu_ns.empty());      // pyperf records no CPU time
  // The same bytes under a name without .gz: detected by content.
  auto same = parse_input_text(test::slurp(real("pyperf_doc_py3.json.gz")), "renamed.json");
  EXPECT_EQ(same.benchmarks[0].times_ns, in.benchmarks[0].times_ns);
  auto c = compare_files(real("pyperf_doc_py2.json.gz"), real("pyperf_doc_py3.json.gz"));
  EXPECT_EQ(c.top().timing.verdict, Verdict::faster);  // Python 3.5 builds [1,2]*1000 faster than 2.7
  EXPECT_FALSE(c.top().timing.exact);                  // 60 values a side: normal approximation
}

// Before: a 100x slowdown with one run a side was "no-change" and --fail-above 5 exited 0.
TEST(CompareRealFiles, OneRunPerSideIsInconclusiveAndGatedOnTheRatio) {
  Options o;
  o.fail_above_percent = 5;
  auto c = compare_files(real("gbench_compare_py_test1_run1.json"), real("gbench_compare_py_test1_run2.json"), o);
  const auto& slow = find(c, "BM_100xSlower");
  EXPECT_EQ(slow.timing.verdict, Verdict::inconclusive);
  EXPECT_DOUBLE_EQ(slow.timing.ratio, 100.0);
  EXPECT_FALSE(slow.timing.ci_bounded);
  EXPECT_TRUE(slow.fail_above_exceeded);
  EXPECT_TRUE(slow.fail_above_untested);
  EXPECT_FALSE(find(c, "BM_100xFaster").fail_above_exceeded);
  EXPECT_FALSE(find(c, "BM_1PercentSlower").fail_above_exceeded);  // +1 % is inside the gate
  EXPECT_TRUE(c.fail_above_exceeded());
  EXPECT_EQ(c.summary.inconclusive, c.benchmarks.size());
  EXPECT_TRUE(contains(slow.explanation, "1 run in BASE and 1 in NEW")) << slow.explanation;
  EXPECT_TRUE(contains(slow.explanation, "--benchmark_repetitions=20")) << slow.explanation;

  auto j = to_json(c);
  EXPECT_EQ(j["verdict"], "inconclusive");
  EXPECT_TRUE(j["ci"].is_null());
  EXPECT_TRUE(j["p_value"].is_null());
  EXPECT_EQ(j["fail_above_untested"], true);
  EXPECT_EQ(j["summary"]["inconclusive"], 14);
  std::string text = render_text(c);
  EXPECT_TRUE(contains(text, "decided without a test, on the ratio alone")) << text;
  EXPECT_FALSE(contains(text, "1 runs")) << text;
  // The complexity fit is not mistaken for a report of aggregates only.
  bool complexity_note = false;
  for (const auto& w : c.warnings) {
    complexity_note |= contains(w, "complexity fit");
    EXPECT_FALSE(contains(w, "aggregates_only")) << w;
  }
  EXPECT_TRUE(complexity_note);

  // The same from Google Benchmark 1.7.1 itself, run without --benchmark_repetitions.
  auto single = compare_files(real("gbench_single_base.json"), real("gbench_single_new.json"));
  EXPECT_EQ(single.summary.inconclusive, 5u);
  for (const auto& b : single.benchmarks) EXPECT_EQ(b.base.runs, 1u) << b.name;
}

// Before: "contains no benchmark with measured repetitions": nothing said what to do.
TEST(CompareRealFiles, AggregatesOnlySaysHowToRerun) {
  for (const char* file : {"gbench_aggregates_only.json", "gbench_compare_py_test4_run0.json"}) {
    std::string msg = error_of(real(file));
    EXPECT_TRUE(contains(msg, "without --benchmark_report_aggregates_only")) << msg;
    EXPECT_TRUE(contains(msg, "--benchmark_repetitions=")) << msg;
  }
}

// compare.py's test3: aggregate rows mixed with repetitions; an aggregate-only benchmark is named.
TEST(CompareRealFiles, MixedAggregateRows) {
  auto in = load_input(real("gbench_compare_py_test3_run0.json"));
  ASSERT_EQ(in.benchmarks.size(), 2u);
  EXPECT_EQ(in.benchmarks[0].name, "BM_Two");
  EXPECT_EQ(in.benchmarks[0].times_ns, (std::vector<double>{9, 8}));
  ASSERT_EQ(in.notes.size(), 1u);
  EXPECT_TRUE(contains(in.notes[0], "BM_One, short")) << in.notes[0];
}

// Before: the wall/CPU split was not looked at; BM_SpinThenSleep's NEW computes 30 % less and sleeps.
TEST(CompareRealFiles, CpuTimeThatDisagreesWithWallTimeIsShown) {
  auto c = compare_files(real("gbench_reps_base.json"), real("gbench_reps_new.json"));
  const auto& spin = find(c, "BM_SpinThenSleep");
  ASSERT_TRUE(spin.cpu.has_value());
  EXPECT_EQ(spin.cpu->basis, "cpu_time");
  EXPECT_TRUE(spin.cpu->timing.tested);
  EXPECT_EQ(spin.cpu->timing.verdict, Verdict::faster);
  EXPECT_LT(spin.cpu->timing.ratio, 0.8);
  EXPECT_NE(spin.timing.verdict, Verdict::faster);
  EXPECT_TRUE(spin.cpu->disagrees);
  EXPECT_TRUE(contains(spin.explanation, "waiting")) << spin.explanation;
  EXPECT_EQ(find(c, "BM_Sort/4096").timing.verdict, Verdict::slower);  // 30 % more elements
  auto j = to_json(c);
  for (const auto& b : j["benchmarks"]) {
    ASSERT_TRUE(b["cpu"].is_object()) << b["name"];
    for (const char* key : {"ratio", "p_value", "verdict"}) EXPECT_TRUE(b["cpu"].contains(key)) << key;
  }
  std::string text = render_text(c);
  EXPECT_TRUE(contains(text, "(CPU -")) << text;
  EXPECT_TRUE(contains(text, "CPU time:")) << text;

  auto h = compare_files(real("hyperfine_base.json"), real("hyperfine_new.json"));
  const auto& sleepy = find(h, "spin_then_sleep");
  ASSERT_TRUE(sleepy.cpu.has_value());
  EXPECT_TRUE(sleepy.cpu->means_only);  // hyperfine keeps user/system as means only
  EXPECT_EQ(sleepy.cpu->timing.verdict, Verdict::inconclusive);
  EXPECT_EQ(sleepy.timing.verdict, Verdict::slower);
  EXPECT_TRUE(sleepy.cpu->disagrees);
}

// Before: GBench context was ignored; a debug build went unmentioned.
TEST(CompareRealFiles, DifferentMachineAndDebugBuildAreNamed) {
  auto c = compare_files(real("gbench_reps_base.json"), data("gbench_reps_new_other_host.json"));
  std::map<std::string, HostDifference> by_field;
  for (const auto& h : c.host_diff) by_field[h.field] = h;
  for (const char* f : {"host_name", "num_cpus", "mhz_per_cpu", "caches", "library_build_type", "cpu_scaling_enabled"})
    EXPECT_TRUE(by_field.count(f)) << f;
  EXPECT_EQ(by_field["host_name"].next, "ci-runner-7");
  EXPECT_EQ(by_field["library_build_type"].base, "debug");  // Debian's libbenchmark 1.7.1 is a debug build
  bool machines = false, debug = false;
  for (const auto& w : c.warnings) {
    machines |= contains(w, "different machines") && contains(w, "host_name");
    debug |= contains(w, "BASE: the benchmark library was built for debugging");
  }
  EXPECT_TRUE(machines);
  EXPECT_TRUE(debug);
  EXPECT_TRUE(compare_files(real("gbench_reps_base.json"), real("gbench_reps_new.json")).host_diff.empty());
  // pyperf's metadata: the same laptop for both Python versions, so no difference.
  EXPECT_TRUE(compare_files(real("pyperf_mult_list_py36.json"), real("pyperf_mult_list_py37.json")).host_diff.empty());
}

TEST(CompareRealFiles, PyperfSeveralBenchmarksAreHolmAdjusted) {
  auto c = compare_files(real("pyperf_mult_list_py36.json"), real("pyperf_mult_list_py37.json"));
  ASSERT_EQ(c.benchmarks.size(), 3u);
  EXPECT_EQ(c.summary.tested, 3u);
  for (const auto& b : c.benchmarks) EXPECT_GE(b.timing.p_adjusted, b.timing.p_value) << b.name;
  EXPECT_EQ(find(c, "[1,2]*1000").timing.verdict, Verdict::slower);
  auto j = to_json(c);
  EXPECT_EQ(j["p_adjustment"], "holm");
  EXPECT_TRUE(j["benchmarks"][0]["p_adjusted"].is_number());
}

// Before: the rerun advice always said "--runs 20", noisewatch's option, whatever wrote the file.
TEST(CompareRealFiles, RerunAdviceInTheToolsOwnTerms) {
  EXPECT_EQ(rerun_hint(InputFormat::google_benchmark, 20), "--benchmark_repetitions=20");
  EXPECT_EQ(rerun_hint(InputFormat::hyperfine, 20), "--runs 20");
  EXPECT_EQ(rerun_hint(InputFormat::pyperf, 20), "--processes 20 --values 3");
  EXPECT_EQ(rerun_hint(InputFormat::noisewatch, 20), "--runs 20");
  auto c = compare_files(data("gbench_old_base.json"), data("gbench_old_new.json"));  // 5 repetitions
  EXPECT_TRUE(contains(c.top().explanation, "rerun with --benchmark_repetitions=20 or more")) << c.top().explanation;
  bool warned = false;
  for (const auto& w : c.warnings) warned |= contains(w, "5 runs in BASE and 5 in NEW");
  EXPECT_TRUE(warned);
}

// Before: whole nanoseconds, so 13.43 ns and 12.92 ns both printed as "13 ns" next to "3.8 % faster".
TEST(CompareRealFiles, DurationsKeepTheDigitsOfTheChange) {
  EXPECT_EQ(format_duration(13.43), "13.43 ns");
  EXPECT_EQ(format_duration(12.92), "12.92 ns");
  EXPECT_EQ(format_duration(870.24), "870.2 ns");
  EXPECT_EQ(format_duration(1234.5), "1.234 µs");  // 1.2345 rounds to even in the last digit
  EXPECT_EQ(format_duration(12.3456e6), "12.35 ms");
  EXPECT_EQ(format_duration(2.5e9), "2.500 s");
  EXPECT_EQ(format_duration(-4.2e3), "-4.200 µs");
  EXPECT_EQ(format_duration(0), "0 ns");
}

}  // namespace
}  // namespace nw::compare
