// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include "record/run_record.h"

namespace nw {
namespace {

RunRecord sample_record() {
  RunRecord rec;
  rec.version = "test";
  rec.command = {"./bench", "--x"};
  rec.cpus = {1};
  rec.host = {"h", "6.18", "Some CPU", true, 2};
  for (int i = 0; i < 4; ++i) {
    RunSample r;
    r.index = i;
    r.warmup = i == 0;
    r.wall_ns = 1000 + 100 * uint64_t(i);
    r.noise.push_back({"preemption:stress", 2, 50u * uint64_t(i), 30, {{"pid", 42}}});
    r.noise.push_back({"blocking", 1, 7, 7, nullptr});
    r.counters["task-clock"] = {999.5, 999, 1.0};
    rec.samples.push_back(r);
  }
  rec.samples[2].signal = 11;
  rec.samples[2].exit_status = 139;
  rec.samples[3].probe_switches = ProbeSwitches{{120, 80}, {2, 1}, 3};
  rec.unavailable.push_back({"frequency", "no cpufreq driver"});
  rec.summary = summarize(rec);
  return rec;
}

TEST(RunRecord, SummaryExcludesWarmup) {
  auto rec = sample_record();
  EXPECT_EQ(rec.summary.runs, 3);
  EXPECT_DOUBLE_EQ(rec.summary.mean_ns, 1200);
  EXPECT_DOUBLE_EQ(rec.summary.median_ns, 1200);
  EXPECT_DOUBLE_EQ(rec.summary.min_ns, 1100);
  EXPECT_DOUBLE_EQ(rec.summary.max_ns, 1300);
  EXPECT_NEAR(rec.summary.cv, 100.0 / 1200.0, 1e-12);
}

TEST(RunRecord, JsonRoundTrip) {
  auto rec = sample_record();
  auto j = to_json(rec);
  EXPECT_EQ(j["schema"], "noisewatch.run/1");
  EXPECT_TRUE(j["runs"][0]["signal"].is_null());
  EXPECT_EQ(j["runs"][2]["signal"], 11);
  EXPECT_TRUE(j["attribution"].is_array());
  EXPECT_TRUE(j["recommendations"].is_array());
  auto back = run_record_from_json(j);
  EXPECT_EQ(to_json(back), j);
  EXPECT_EQ(back.samples[1].noise[0].detail["pid"], 42);
  EXPECT_EQ(back.samples[1].stolen_ns(), 50u);
  EXPECT_FALSE(j["runs"][1].contains("probe_switches"));  // absent when the probe did not count
  EXPECT_EQ(j["runs"][3]["probe_switches"]["before_tracking"]["voluntary"], 2);
  ASSERT_TRUE(back.samples[3].probe_switches.has_value());
  EXPECT_EQ(back.samples[3].probe_switches->seen.involuntary, 80u);
  EXPECT_EQ(back.samples[3].probe_switches->before_tracking.involuntary, 1u);
  EXPECT_EQ(j["runs"][3]["probe_switches"]["unseen"], 3);
  EXPECT_EQ(back.samples[3].probe_switches->unseen, 3u);
}

// host.container and host.cgroup.weight (docs/contracts.md): written, read back, checked.
TEST(RunRecord, ContainerFieldsRoundTrip) {
  auto rec = sample_record();
  rec.host.cgroup = CgroupInfo{1, "/docker/cd34", "/docker/cd34", 200000, 100000, 1024};
  rec.host.container =
      ContainerInfo{true,      "docker", {"cgroup /docker/cd34", "/.dockerenv"}, "/docker/cd34", {2, 3}, "/docker/cd34",
                    268435456, 255852544};
  auto j = to_json(rec);
  EXPECT_EQ(j["host"]["cgroup"]["weight"], 1024);
  const auto& c = j["host"]["container"];
  EXPECT_EQ(c["runtime"], "docker");
  EXPECT_EQ(c["evidence"], nlohmann::json({"cgroup /docker/cd34", "/.dockerenv"}));
  EXPECT_EQ(c["cpuset"], nlohmann::json({{"path", "/docker/cd34"}, {"cpus", {2, 3}}}));
  EXPECT_EQ(c["memory"]["limit_bytes"], 268435456);
  EXPECT_EQ(to_json(run_record_from_json(j)), j);
  // No limit: the field is left out, not written as 0.
  rec.host.container->memory_limit_bytes.reset();
  rec.host.container->runtime.clear();
  auto unlimited = to_json(rec);
  EXPECT_FALSE(unlimited["host"]["container"]["memory"].contains("limit_bytes"));
  EXPECT_FALSE(unlimited["host"]["container"].contains("runtime"));
  EXPECT_EQ(to_json(run_record_from_json(unlimited)), unlimited);
  // Records of versions before it have none, and a wrong type is an error naming the field.
  EXPECT_FALSE(run_record_from_json(to_json(sample_record())).host.container);
  j["host"]["container"]["cpuset"]["cpus"] = "2-3";
  try {
    run_record_from_json(j);
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("host.container.cpuset.cpus"), std::string::npos) << e.what();
  }
}

TEST(RunRecord, ProbeSwitchesMustBeAnObject) {
  auto j = to_json(sample_record());
  j["runs"][1]["probe_switches"] = 7;
  try {
    run_record_from_json(j);
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("probe_switches is not an object"), std::string::npos) << e.what();
  }
}

TEST(RunRecord, RejectsForeignJson) {
  EXPECT_THROW(run_record_from_json(nlohmann::json::array()), std::runtime_error);
  EXPECT_THROW(run_record_from_json({{"schema", "noisewatch.check/1"}}), std::runtime_error);
  EXPECT_THROW(run_record_from_json({{"schema", "noisewatch.run/1"}}), std::runtime_error);
  nlohmann::json bad = {{"schema", "noisewatch.run/1"}, {"runs", {{{"wall_ns", "fast"}}}}};
  try {
    run_record_from_json(bad);
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("runs[0].wall_ns"), std::string::npos);
  }
}

}  // namespace
}  // namespace nw

namespace nw {
namespace {

TEST(RunRecord, OutOfRangeNumbersAreErrorsNotUndefinedBehaviour) {
  // Found by the fuzzer: 5e70 into a uint64 field.
  for (const char* bad : {R"({"schema":"noisewatch.run/1","runs":[{"wall_ns":5.07e70}]})",
                          R"({"schema":"noisewatch.run/1","runs":[{"wall_ns":-1}]})",
                          R"({"schema":"noisewatch.run/1","runs":[{"wall_ns":1,"index":1e12}]})",
                          R"({"schema":"noisewatch.run/1","cpus":[1e300],"runs":[]})"}) {
    EXPECT_THROW(run_record_from_json(nlohmann::json::parse(bad)), std::runtime_error) << bad;
  }
  auto ok = run_record_from_json(nlohmann::json::parse(R"({"schema":"noisewatch.run/1","runs":[{"wall_ns":1.5e9}]})"));
  EXPECT_EQ(ok.samples[0].wall_ns, 1'500'000'000u);
}

}  // namespace
}  // namespace nw

namespace nw {
namespace {

TEST(RunRecord, CpuTimeRoundTripsAndIsOptional) {
  RunRecord rec = sample_record();
  rec.samples[1].cpu_ns = 9'500'000;
  rec.samples[1].cpu_irq_ns = 100'000;
  rec.samples[1].user_ns = 10'000'000;
  rec.samples[1].sys_ns = 500'000;
  auto back = run_record_from_json(to_json(rec));
  ASSERT_TRUE(back.samples[1].cpu_ns);
  EXPECT_EQ(*back.samples[1].cpu_ns, 9'500'000u);
  EXPECT_EQ(*back.samples[1].cpu_irq_ns, 100'000u);
  // The benchmark's own CPU time: the probe's, less interrupts; getrusage only for old records.
  EXPECT_EQ(back.samples[1].own_cpu_ns(), 9'400'000u);
  EXPECT_FALSE(back.samples[2].cpu_ns);
  EXPECT_FALSE(to_json(rec)["runs"][2].contains("cpu_ns"));
  back.samples[2].user_ns = 3;
  back.samples[2].sys_ns = 4;
  EXPECT_EQ(back.samples[2].own_cpu_ns(), 7u);
}

TEST(RunRecord, StolenTimeLeavesOutTheWorkloadsOwn) {
  RunSample r;
  r.noise = {{"preemption:stress", 1, 100, 100, nullptr},
             {"irq:local_timer", 3, 20, 10, nullptr},
             {"blocking", 1, 1000, 1000, nullptr},
             {"contention:worker", 5, 300, 90, nullptr}};
  EXPECT_EQ(r.stolen_ns(), 120u);
}

}  // namespace
}  // namespace nw
