// SPDX-License-Identifier: Apache-2.0
// Every rule on whole-machine trees (expected findings from tests/data/sysroots/README.md).
#include <regex>
#include <string>
#include <vector>

#include "support/check_test_util.h"
#include "support/files.h"

namespace nw::check::testing {
namespace {

TEST(CheckFixtures, LaptopHybridUntunedCpu2) {
  auto r = check_sysroot(fixture_sysroot("laptop-hybrid-untuned"), std::vector<int>{2});
  expect_statuses(r, {{"cpu-governor", "warn"},
                      {"frequency-range", "warn"},
                      {"turbo-boost", "warn"},
                      {"smt", "warn"},
                      {"cpu-isolation", "warn"},
                      {"nohz-full", "warn"},
                      {"rcu-nocbs", "warn"},
                      {"irq-affinity", "warn"},
                      {"irqbalance", "warn"},
                      {"aslr", "warn"},
                      {"transparent-hugepages", "ok"},
                      {"nmi-watchdog", "warn"},
                      {"hybrid-cpu", "warn"},
                      {"cpu-idle-states", "warn"},
                      {"virtualization", "ok"},
                      {"load", "ok"},
                      {"power-supply", "fail"},
                      {"thermal-throttling", "ok"},
                      {"numa-balancing", "ok"},
                      {"cpu-quota", "unknown"},
                      {"cpu-quota-cpuset", "unknown"},
                      {"memory-limit", "unknown"},
                      {"container-unpinned", "unknown"},
                      {"preempt-rt", "ok"}});
  EXPECT_EQ(r.exit_status(), 2) << "on battery: timings are not comparable";
  EXPECT_TRUE(r.cpus.empty()) << "no live measurement on a sysroot";
  EXPECT_FALSE(r.recommended_cpu.has_value());
}

TEST(CheckFixtures, LaptopSummariesCarryTheValuesRead) {
  auto r = check_sysroot(fixture_sysroot("laptop-hybrid-untuned"), std::vector<int>{2});
  EXPECT_NE(r.find("cpu-governor")->summary.find("powersave"), std::string::npos);
  EXPECT_NE(r.find("cpu-governor")->summary.find("balance_performance"), std::string::npos) << "EPP in active mode";
  EXPECT_NE(r.find("smt")->summary.find("CPU 3"), std::string::npos) << "names the sibling";
  EXPECT_NE(r.find("irq-affinity")->summary.find("nvme0q3"), std::string::npos);
  EXPECT_NE(r.find("irq-affinity")->summary.find("1026 on CPU 2"), std::string::npos) << "count on the target";
  EXPECT_NE(r.find("irqbalance")->summary.find("812"), std::string::npos);
  EXPECT_NE(r.find("hybrid-cpu")->summary.find("CPU 2: P-core"), std::string::npos);
  EXPECT_NE(r.find("hybrid-cpu")->summary.find("fastest CPUs are 0-3"), std::string::npos);
  EXPECT_NE(r.find("cpu-idle-states")->summary.find("C6 (170 us)"), std::string::npos);
  EXPECT_EQ(r.find("cpu-idle-states")->summary.find("C1E"), std::string::npos) << "1 us state is fine";
  EXPECT_NE(r.find("power-supply")->summary.find("BAT0 Discharging 63%"), std::string::npos);
  for (const auto& f : r.findings)
    if (f.status == Status::warn || f.status == Status::fail) EXPECT_FALSE(f.fix.empty()) << f.id << " without a fix";
  // The IRQ fix moves the IRQs to every CPU but the target.
  EXPECT_NE(r.find("irq-affinity")->fix[0].find("0-1,3-13"), std::string::npos);
}

TEST(CheckFixtures, LaptopDefaultTargetsAreAllOnlineCpus) {
  auto r = check_sysroot(fixture_sysroot("laptop-hybrid-untuned"));
  EXPECT_EQ(r.target_cpus.size(), 14u);
  EXPECT_NE(r.find("hybrid-cpu")->summary.find("span several kinds"), std::string::npos);
}

TEST(CheckFixtures, ServerTunedCpu4) {
  auto r = check_sysroot(fixture_sysroot("server-tuned"), std::vector<int>{4});
  for (const auto& f : r.findings) {
    // No power supply entries; no cgroup files (the tree was captured without /proc/self).
    if (f.id == "power-supply" || f.id == "cpu-quota" || f.id == "cpu-quota-cpuset" || f.id == "memory-limit" ||
        f.id == "container-unpinned") {
      EXPECT_TRUE(f.status == Status::ok || f.status == Status::info || f.status == Status::unknown) << f.summary;
      continue;
    }
    EXPECT_EQ(f.status, Status::ok) << f.id << ": " << f.summary;
  }
  EXPECT_EQ(r.findings.size(), 24u);
  EXPECT_EQ(r.exit_status(), 0);
}

TEST(CheckFixtures, ServerDefaultTargetsAreTheIsolatedCpus) {
  auto r = check_sysroot(fixture_sysroot("server-tuned"));
  EXPECT_EQ(r.target_cpus, (std::vector<int>{2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(r.exit_status(), 0);
}

TEST(CheckFixtures, ServerHousekeepingCpuIsNotIsolated) {
  // CPU 0 takes the IRQs (irqaffinity=0-1) and is not isolated: both checks must say so.
  auto r = check_sysroot(fixture_sysroot("server-tuned"), std::vector<int>{0});
  EXPECT_EQ(r.find("cpu-isolation")->status, Status::warn);
  EXPECT_EQ(r.find("irq-affinity")->status, Status::warn);
  EXPECT_EQ(r.find("nohz-full")->status, Status::warn);
  EXPECT_EQ(r.exit_status(), 1);
}

// The ids of docs/contracts.md "Finding ids (stable)", in its order: "cpu-governor, ..., and
// measured-noise (only after a live measurement)."; the words in parentheses are not ids.
std::vector<std::string> contract_finding_ids() {
  const std::string heading = "Finding ids (stable):";
  std::string doc = nw::test::slurp(std::string(NW_SOURCE_DIR) + "/docs/contracts.md");
  auto start = doc.find(heading);
  if (start == std::string::npos) return {};
  start += heading.size();
  std::string list = doc.substr(start, doc.find_first_of("(.", start) - start);
  std::vector<std::string> ids;
  static const std::regex id(R"([a-z][a-z-]*[a-z])");
  for (std::sregex_iterator m(list.begin(), list.end(), id), end; m != end; ++m)
    if (m->str() != "and") ids.push_back(m->str());
  return ids;
}

// The rules run in the contract's order, and the contract lists every rule: a rule added to
// kRules and not to docs/contracts.md (or the other way) fails here.
TEST(CheckFixtures, FindingsFollowTheContractOrder) {
  auto r = check_sysroot(fixture_sysroot("server-tuned"), std::vector<int>{4});
  std::vector<std::string> ids;
  for (const auto& f : r.findings) ids.push_back(f.id);
  ids.push_back("measured-noise");  // only after a live measurement, last
  auto contract = contract_finding_ids();
  ASSERT_GE(contract.size(), 20u) << "docs/contracts.md has no \"Finding ids (stable):\" list";
  EXPECT_EQ(ids, contract) << "kRules (src/check/rules.cpp) and docs/contracts.md \"Finding ids (stable)\" differ";
}

// Captured from the development VM with `noisewatch snapshot` (Firecracker, 2 vCPUs, no cpufreq).
TEST(CheckOwnTrees, FirecrackerVm) {
  auto r = check_sysroot(fixture_sysroot("vm-firecracker-2cpu"));
  EXPECT_EQ(r.target_cpus, (std::vector<int>{0, 1}));
  expect_statuses(r, {{"cpu-governor", "unknown"},
                      {"frequency-range", "unknown"},
                      {"turbo-boost", "unknown"},
                      {"smt", "ok"},
                      {"cpu-isolation", "warn"},
                      {"nohz-full", "warn"},
                      {"rcu-nocbs", "warn"},
                      {"irq-affinity", "warn"},
                      {"irqbalance", "ok"},
                      {"aslr", "warn"},
                      {"transparent-hugepages", "ok"},
                      {"nmi-watchdog", "ok"},
                      {"hybrid-cpu", "ok"},
                      {"cpu-idle-states", "ok"},
                      {"virtualization", "warn"},
                      {"load", "warn"},
                      {"power-supply", "info"},
                      {"thermal-throttling", "unknown"},
                      {"numa-balancing", "ok"},
                      {"cpu-quota", "unknown"},
                      {"cpu-quota-cpuset", "unknown"},
                      {"memory-limit", "unknown"},
                      {"container-unpinned", "unknown"},
                      {"preempt-rt", "ok"}});
  EXPECT_NE(r.find("virtualization")->summary.find("steal time"), std::string::npos);
  EXPECT_NE(r.find("load")->summary.find("busiest: "), std::string::npos);
  EXPECT_EQ(r.exit_status(), 1);
}

// Crafted: EPYC, 2 NUMA nodes, SMT on, amd-pstate active with per-policy boost, CPUs isolated
// by the `isolated` file only, THP always, throttled CPU 3, busy machine on mains.
TEST(CheckOwnTrees, EpycNumaAmdPstate) {
  auto r = check_sysroot(fixture_sysroot("epyc-numa2-amd-pstate"));
  EXPECT_EQ(r.target_cpus, (std::vector<int>{2, 3})) << "default: the isolated CPUs";
  expect_statuses(r, {{"cpu-governor", "ok"},
                      {"frequency-range", "warn"},
                      {"turbo-boost", "warn"},
                      {"smt", "warn"},
                      {"cpu-isolation", "ok"},
                      {"nohz-full", "warn"},
                      {"rcu-nocbs", "ok"},
                      {"irq-affinity", "warn"},
                      {"irqbalance", "ok"},
                      {"aslr", "ok"},
                      {"transparent-hugepages", "warn"},
                      {"nmi-watchdog", "ok"},
                      {"hybrid-cpu", "ok"},
                      {"cpu-idle-states", "warn"},
                      {"virtualization", "ok"},
                      {"load", "warn"},
                      {"power-supply", "ok"},
                      {"thermal-throttling", "warn"},
                      {"numa-balancing", "warn"},
                      {"cpu-quota", "unknown"},
                      {"cpu-quota-cpuset", "unknown"},
                      {"memory-limit", "unknown"},
                      {"container-unpinned", "unknown"},
                      {"preempt-rt", "ok"}});
  EXPECT_EQ(r.find("frequency-range")->cpus, std::vector<int>{3}) << "CPU 2 has min = max";
  EXPECT_EQ(r.find("thermal-throttling")->cpus, std::vector<int>{3});
  EXPECT_NE(r.find("cpu-governor")->summary.find("EPP performance"), std::string::npos);
  EXPECT_NE(r.find("turbo-boost")->summary.find("cpu2/cpufreq/boost=1"), std::string::npos);
  EXPECT_NE(r.find("smt")->summary.find("CPU 2 shares its core with CPU 6"), std::string::npos);
  EXPECT_NE(r.find("irq-affinity")->summary.find("mlx5_comp0"), std::string::npos);
  EXPECT_EQ(r.find("irq-affinity")->summary.find("nvme0q1"), std::string::npos) << "IRQ 51 stays on 0-1";
  EXPECT_NE(r.find("load")->summary.find("stress-ng (pid 9001, running"), std::string::npos);
  EXPECT_NE(r.find("numa-balancing")->summary.find("2 NUMA nodes"), std::string::npos);
  EXPECT_NE(r.find("nmi-watchdog")->summary.find("command line"), std::string::npos);
}

TEST(CheckOwnTrees, EpycNonIsolatedCpuWithoutDeepStatesOrThrottling) {
  auto r = check_sysroot(fixture_sysroot("epyc-numa2-amd-pstate"), std::vector<int>{2});
  EXPECT_EQ(r.find("frequency-range")->status, Status::ok);
  EXPECT_EQ(r.find("thermal-throttling")->status, Status::ok);
  auto r0 = check_sysroot(fixture_sysroot("epyc-numa2-amd-pstate"), std::vector<int>{0});
  EXPECT_EQ(r0.find("cpu-isolation")->status, Status::warn);
  EXPECT_EQ(r0.find("rcu-nocbs")->status, Status::warn);
}

// Only the online CPU list: every check whose files are absent says unknown, never guesses.
TEST(CheckOwnTrees, MinimalTreeIsAllUnknown) {
  auto r = check_sysroot(fixture_sysroot("minimal-online-only"));
  EXPECT_EQ(r.target_cpus, (std::vector<int>{0, 1, 2, 3}));
  for (const auto& f : r.findings) EXPECT_EQ(f.status, Status::unknown) << f.id << ": " << f.summary;
  EXPECT_EQ(r.exit_status(), 0);
}

}  // namespace
}  // namespace nw::check::testing
