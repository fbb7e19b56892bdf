// SPDX-License-Identifier: Apache-2.0
// compare's input parsers on the sample files in tests/data/compare, and their bad-input errors.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>

#include "common/errors.h"
#include "compare/input.h"
#include "compare/input_text.h"

namespace nw::compare {
namespace {

std::string data(const std::string& name) { return std::string(NW_SOURCE_DIR) + "/tests/data/compare/" + name; }

TEST(CompareInput, NoisewatchReportKeepsMeasuredRunsAndRecord) {
  auto in = load_input(data("nw_base.json"));
  EXPECT_EQ(in.format, InputFormat::noisewatch);
  ASSERT_EQ(in.benchmarks.size(), 1u);
  const auto& b = in.benchmarks[0];
  EXPECT_EQ(b.name, "arraysum --size 1M");  // directory of argv[0] dropped so trees can differ
  EXPECT_EQ(b.times_ns.size(), 12u);        // the warm-up run is not a measurement
  ASSERT_TRUE(b.record.has_value());
  EXPECT_EQ(b.record->cpus, std::vector<int>{1});
  EXPECT_DOUBLE_EQ(b.times_ns[0], double(b.record->measured()[0]->wall_ns));
}

TEST(CompareInput, NoisewatchCpuTimeFromTheProbeWhenRecorded) {
  std::ifstream f(data("nw_base.json"));
  auto j = nlohmann::json::parse(f);
  auto old = parse_input(j, "old.json");  // a record without cpu_ns: getrusage's user + sys
  EXPECT_EQ(old.benchmarks[0].cpu_basis, "user+sys");
  EXPECT_DOUBLE_EQ(old.benchmarks[0].cpu_ns[0], double(j["runs"][1]["user_ns"].get<uint64_t>()));
  for (auto& run : j["runs"]) {
    run["cpu_ns"] = 40'000'000;
    run["cpu_irq_ns"] = 100'000;
  }
  auto in = parse_input(j, "new.json");
  EXPECT_EQ(in.benchmarks[0].cpu_basis, "cpu_ns");
  ASSERT_EQ(in.benchmarks[0].cpu_ns.size(), 12u);
  EXPECT_DOUBLE_EQ(in.benchmarks[0].cpu_ns[0], 39'900'000.0);  // the benchmark's own: irq time taken out
}

TEST(CompareInput, GoogleBenchmarkGroupsRepetitionsAndSkipsAggregates) {
  auto in = load_input(data("gbench_base.json"));
  EXPECT_EQ(in.format, InputFormat::google_benchmark);
  ASSERT_EQ(in.benchmarks.size(), 3u);
  EXPECT_EQ(in.benchmarks[0].name, "BM_Sum/1024");
  EXPECT_EQ(in.benchmarks[1].name, "BM_Sort/4096");
  for (const auto& b : in.benchmarks) EXPECT_EQ(b.times_ns.size(), 10u) << b.name;
  EXPECT_NEAR(in.benchmarks[0].times_ns[0], 850, 50);     // ns
  EXPECT_NEAR(in.benchmarks[1].times_ns[0], 120e3, 6e3);  // us converted to ns
  EXPECT_FALSE(in.benchmarks[0].record.has_value());
}

TEST(CompareInput, GoogleBenchmarkWithoutRunTypeUsesAggregateSuffixes) {
  nlohmann::json j = {{"context", nlohmann::json::object()},
                      {"benchmarks",
                       {{{"name", "BM_A"}, {"real_time", 2.0}, {"time_unit", "ms"}},
                        {{"name", "BM_A"}, {"real_time", 3.0}, {"time_unit", "ms"}},
                        {{"name", "BM_A_mean"}, {"real_time", 2.5}, {"time_unit", "ms"}},
                        {{"name", "BM_B"}, {"real_time", 1.0}, {"error_occurred", true}}}}};
  auto in = parse_input(j, "old.json");
  ASSERT_EQ(in.benchmarks.size(), 1u);
  EXPECT_EQ(in.benchmarks[0].times_ns, (std::vector<double>{2e6, 3e6}));
  ASSERT_EQ(in.notes.size(), 1u);
  EXPECT_NE(in.notes[0].find("error"), std::string::npos);
}

// Before: an old file (no run_type) with a benchmark named "..._mean" was rejected (exit 125) or
// lost that benchmark: the suffix marks an aggregate only when its stem has rows of its own.
TEST(CompareInput, OldGoogleBenchmarkMeanSuffixIsABenchmarkWithoutItsStem) {
  auto in = load_input(data("gbench_old_base.json"));
  ASSERT_EQ(in.benchmarks.size(), 2u);
  EXPECT_EQ(in.benchmarks[0].name, "BM_Sort");
  EXPECT_EQ(in.benchmarks[0].times_ns.size(), 5u);  // BM_Sort_mean/_median/_stddev are its aggregates
  EXPECT_EQ(in.benchmarks[1].name, "BM_Alloc_mean");
  EXPECT_EQ(in.benchmarks[1].times_ns.size(), 5u);
  EXPECT_TRUE(in.notes.empty());
}

// Before: State::SkipWithMessage rows were counted as errors.
TEST(CompareInput, GoogleBenchmarkSkippedRowsAreCalledSkipped) {
  auto in = load_input(data("gbench_skips.json"));
  ASSERT_EQ(in.benchmarks.size(), 1u);
  EXPECT_EQ(in.benchmarks[0].name, "BM_Ran");
  ASSERT_EQ(in.notes.size(), 2u);
  EXPECT_EQ(in.notes[0], "BM_Broken (\"checksum mismatch\") reported an error (error_occurred); not compared");
  EXPECT_EQ(in.notes[1], "BM_NeedsAvx512 (\"no AVX-512 on this CPU\") skipped itself (SkipWithMessage); not compared");
  // When nothing ran, the error says why rather than only that nothing is there.
  try {
    parse_input_text(R"({"context": {}, "benchmarks": [{"name": "BM_X", "run_type": "iteration",
                         "error_occurred": true, "error_message": "boom", "real_time": 0}]})",
                     "e.json");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("BM_X (\"boom\") reported an error"), std::string::npos) << e.what();
  }
}

TEST(CompareInput, NonFiniteLiteralsBecomeDoubles) {
  auto j = parse_json_allowing_nonfinite(
      R"({"a": NaN, "b": [Infinity, -Infinity, null, 1.5], "s": "NaN -Infinity \" null", "n": null})", "x.json");
  EXPECT_TRUE(std::isnan(j["a"].get<double>()));
  EXPECT_EQ(j["b"][0].get<double>(), std::numeric_limits<double>::infinity());
  EXPECT_EQ(j["b"][1].get<double>(), -std::numeric_limits<double>::infinity());
  EXPECT_TRUE(j["b"][2].is_null());
  EXPECT_EQ(j["b"][3].get<double>(), 1.5);
  EXPECT_EQ(j["s"], "NaN -Infinity \" null");  // inside strings nothing changes
  EXPECT_TRUE(j["n"].is_null());
  // Errors point at the caller's byte even after a NaN (3 bytes) became null (4).
  try {
    parse_json_allowing_nonfinite(R"({"a": NaN, "b": x})", "x.json");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("byte 17"), std::string::npos) << e.what();
  }
  // A NaN time is still not a time.
  EXPECT_THROW(parse_input_text(R"({"results": [{"command": "a", "times": [NaN, 1]}]})", "h.json"), Error);
}

TEST(CompareInput, HyperfineRealExport) {
  auto in = load_input(data("hyperfine_real.json"));  // written by hyperfine itself
  EXPECT_EQ(in.format, InputFormat::hyperfine);
  ASSERT_EQ(in.benchmarks.size(), 1u);
  EXPECT_EQ(in.benchmarks[0].name, "sleep 0.001");
  EXPECT_EQ(in.benchmarks[0].times_ns.size(), 10u);
  for (double t : in.benchmarks[0].times_ns) EXPECT_GT(t, 1e6);  // sleep 1 ms takes longer than 1 ms
}

TEST(CompareInput, PyperfSkipsCalibrationRunsAndFlattensValues) {
  auto in = load_input(data("pyperf_base.json"));
  EXPECT_EQ(in.format, InputFormat::pyperf);
  ASSERT_EQ(in.benchmarks.size(), 1u);
  EXPECT_EQ(in.benchmarks[0].name, "json_dumps");
  EXPECT_EQ(in.benchmarks[0].times_ns.size(), 18u);  // 6 processes x 3 values
  EXPECT_NEAR(in.benchmarks[0].times_ns[0], 15e3, 1e3);
}

TEST(CompareInput, PyperfNameFromFileMetadata) {
  nlohmann::json j = {
      {"version", "1.0"}, {"metadata", {{"name", "solo"}}}, {"benchmarks", {{{"runs", {{{"values", {0.5, 0.25}}}}}}}}};
  auto in = parse_input(j, "solo.json");
  EXPECT_EQ(in.benchmarks[0].name, "solo");
  EXPECT_EQ(in.benchmarks[0].times_ns, (std::vector<double>{0.5e9, 0.25e9}));
}

// Every broken sample is a one-line nw::Error naming the file; nothing else escapes.
TEST(CompareInput, BrokenFilesAreOneLineErrors) {
  std::map<std::string, std::string> expected = {
      {"only_warmup.json", "no measured"},
      {"unknown_shape.json", "neither a noisewatch run report nor"},
      {"compare_report.json", "noisewatch.compare/1"},
      {"gbench_bad_unit.json", "fortnights"},
      {"gbench_only_aggregates.json",
       "rerun without --benchmark_report_aggregates_only, with "
       "--benchmark_repetitions=10"},
      {"hyperfine_no_times.json", "no \"times\""},
      {"hyperfine_negative_time.json", "positive"},
      {"pyperf_bytes.json", "byte"},
      {"pyperf_calibration_only.json", "no run with values"},
      {"nw_wall_is_string.json", "wall_ns"},
      {"hyperfine_duplicate.json", "twice"},
      {"not_json.json", "not valid JSON"},
      {"empty.json", "is empty (0 bytes)"},
      {"whitespace.json", "is empty (only whitespace)"},
      {"utf16.json", "is UTF-16 text"},
      {"truncated.json.gz", "gzip-compressed but cannot be decompressed (it ends early"},
      {"number_overflow.json", "out of range"},  // found by the fuzzer
  };
  size_t seen = 0;
  for (const auto& entry : std::filesystem::directory_iterator(data("broken"))) {
    std::string name = entry.path().filename();
    ASSERT_TRUE(expected.count(name)) << "add an expectation for " << name;
    ++seen;
    try {
      load_input(entry.path());
      ADD_FAILURE() << name << " was accepted";
    } catch (const Error& e) {
      std::string msg = e.what();
      EXPECT_NE(msg.find(expected[name]), std::string::npos) << name << ": " << msg;
      EXPECT_NE(msg.find(name), std::string::npos) << "error does not name the file: " << msg;
      EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    }
  }
  EXPECT_EQ(seen, expected.size());
}

TEST(CompareInput, MissingFileAndOddJson) {
  EXPECT_THROW(load_input(data("does_not_exist.json")), Error);
  for (const char* text :
       {"[]", "42", "null", R"({"results": 3})", R"({"benchmarks": [1, 2]})", R"({"schema": 7})",
        R"({"results": [{"command": 5, "times": []}]})", R"({"results": [{"command": "x", "times": []}]})",
        R"({"context": {}, "benchmarks": [{"name": "a", "real_time": "1"}]})",
        R"({"benchmarks": [{"runs": [{"values": [1]}]}]})",
        R"({"schema": "noisewatch.run/1", "runs": [{"wall_ns": 0}]})",
        R"({"schema": "noisewatch.run/1", "command": 3, "runs": []})"}) {
    EXPECT_THROW(parse_input_text(text, "x.json"), Error) << text;
  }
}

}  // namespace
}  // namespace nw::compare
