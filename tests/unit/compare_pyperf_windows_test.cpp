// SPDX-License-Identifier: Apache-2.0
// compare with --windows pyperf records: a record is one benchmark per label, named as pyperf names
// it, and beside pyperf's own JSON both sides are compared on the runs' durations
// (compare/pyperf_measures.h). tests/data/compare/real/pyperf_windows_*.json are a real record and
// the -o file pyperf wrote in that same run (README there).
#include <gtest/gtest.h>

#include <fstream>

#include "common/errors.h"
#include "compare/compare.h"
#include "compare/input.h"
#include "compare/pyperf_measures.h"

namespace nw::compare {
namespace {

std::string real(const std::string& name) { return std::string(NW_SOURCE_DIR) + "/tests/data/compare/real/" + name; }

nlohmann::json json_of(const std::string& path) {
  std::ifstream f(path);
  return nlohmann::json::parse(f);
}

bool has_warning(const Comparison& c, const std::string& part) {
  for (const auto& w : c.warnings)
    if (w.find(part) != std::string::npos) return true;
  return false;
}

TEST(ComparePyperfWindows, ARecordIsOneBenchmarkPerPyperfNameWithItsRunsDurations) {
  auto in = load_input(real("pyperf_windows_record.json"));
  EXPECT_TRUE(is_pyperf_windows_record(in));
  ASSERT_EQ(in.benchmarks.size(), 1u);
  const auto& b = in.benchmarks[0];
  EXPECT_EQ(b.name, "timeit");
  ASSERT_EQ(b.times_ns.size(), 4u);  // the four workers' windows
  ASSERT_EQ(b.run_durations_ns.size(), 4u);
  const auto measured = b.record->measured();
  for (size_t k = 0; k < 4; ++k) {
    EXPECT_DOUBLE_EQ(b.times_ns[k], double(measured[k]->wall_ns));
    EXPECT_DOUBLE_EQ(b.run_durations_ns[k], double(*measured[k]->harness_duration_ns));
    EXPECT_LT(b.run_durations_ns[k], b.times_ns[k]);  // the window also holds the start-up
  }
}

TEST(ComparePyperfWindows, PyperfJsonKeepsItsValuesAndItsRunsDurations) {
  auto in = load_input(real("pyperf_windows_out.json"));
  EXPECT_FALSE(is_pyperf_windows_record(in));
  ASSERT_EQ(in.benchmarks.size(), 1u);
  const auto& b = in.benchmarks[0];
  EXPECT_EQ(b.times_ns.size(), 12u);  // -p 4 -n 3: three values per loop of each worker
  ASSERT_EQ(b.run_durations_ns.size(), 4u);
  auto j = json_of(real("pyperf_windows_out.json"));
  EXPECT_DOUBLE_EQ(b.run_durations_ns[0], j["benchmarks"][0]["runs"][0]["metadata"]["duration"].get<double>() * 1e9);
  // A file without durations (pyperf before 1.0): none at all.
  for (auto& r : j["benchmarks"][0]["runs"]) r["metadata"].erase("duration");
  EXPECT_TRUE(parse_input(j, "old.json").benchmarks[0].run_durations_ns.empty());
}

// The record copied its durations from this very file: compared on them, the two are the same
// (to the nanosecond the record rounds them to).
TEST(ComparePyperfWindows, JsonBesideTheRecordComparesTheRunsDurations) {
  for (bool json_first : {true, false}) {
    SCOPED_TRACE(json_first);
    auto json = load_input(real("pyperf_windows_out.json"));
    auto rec = load_input(real("pyperf_windows_record.json"));
    auto c = json_first ? compare_inputs(json, rec, Options{}) : compare_inputs(rec, json, Options{});
    ASSERT_EQ(c.benchmarks.size(), 1u);
    EXPECT_EQ(c.benchmarks[0].name, "timeit");
    EXPECT_EQ(c.benchmarks[0].base.runs, 4u);
    EXPECT_EQ(c.benchmarks[0].next.runs, 4u);
    EXPECT_NEAR(c.benchmarks[0].timing.ratio, 1.0, 1e-8);  // the record keeps whole nanoseconds
    EXPECT_EQ(c.benchmarks[0].timing.verdict, Verdict::no_change);
    EXPECT_TRUE(has_warning(c, "compared on each worker run's duration"));
    EXPECT_TRUE(has_warning(c, json_first ? "BASE is pyperf's JSON and NEW a --windows pyperf record"
                                          : "NEW is pyperf's JSON and BASE a --windows pyperf record"));
  }
}

TEST(ComparePyperfWindows, WithoutDurationsOnASideItRefusesRatherThanCompareLoopsWithProcesses) {
  auto j = json_of(real("pyperf_windows_out.json"));
  for (auto& r : j["benchmarks"][0]["runs"]) r["metadata"].erase("duration");
  auto old_json = parse_input(j, "old.json");
  auto rec = load_input(real("pyperf_windows_record.json"));
  try {
    compare_inputs(old_json, rec, Options{});
    FAIL() << "compared";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("BASE has no pyperf duration"), std::string::npos) << e.what();
  }
}

TEST(ComparePyperfWindows, TwoRecordsCompareWindowsAndAreToldOfTheStartUp) {
  auto rec = load_input(real("pyperf_windows_record.json"));
  auto c = compare_inputs(rec, rec, Options{});
  ASSERT_EQ(c.benchmarks.size(), 1u);
  EXPECT_EQ(c.benchmarks[0].base.runs, 4u);
  EXPECT_TRUE(c.benchmarks[0].has_noise);
  EXPECT_DOUBLE_EQ(c.benchmarks[0].base.median_ns, c.benchmarks[0].next.median_ns);
  EXPECT_TRUE(has_warning(c, "diluted"));
  EXPECT_FALSE(has_warning(c, "compared on each worker run's duration"));
}

// A record whose windows were not paired with pyperf's runs (no -o in the command) stays one
// benchmark named by its command, as records were before.
TEST(ComparePyperfWindows, AnUnpairedRecordIsNamedByItsCommand) {
  auto j = json_of(real("pyperf_windows_record.json"));
  for (auto& r : j["runs"]) {
    r.erase("harness_duration_ns");
    r["label"] = "python3";
  }
  auto in = parse_input(j, "unpaired.json");
  ASSERT_EQ(in.benchmarks.size(), 1u);
  EXPECT_NE(in.benchmarks[0].name.find("pyperf timeit"), std::string::npos) << in.benchmarks[0].name;
  EXPECT_TRUE(in.benchmarks[0].run_durations_ns.empty());
}

}  // namespace
}  // namespace nw::compare
