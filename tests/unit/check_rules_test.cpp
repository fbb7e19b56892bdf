// SPDX-License-Identifier: Apache-2.0
// Single rules on scratch trees: the edges the whole-machine trees do not reach.
#include "check/check_context.h"
#include "check/rules.h"
#include "common/errors.h"
#include "support/check_test_util.h"

namespace nw::check::testing {
namespace {

struct Machine : ScratchRoot {
  Machine(const std::string& online = "0-3") { write("/sys/devices/system/cpu/online", online + "\n"); }
  Finding run(Finding (*rule)(const CheckContext&), std::vector<int> cpus) const {
    sys::Sysroot root(dir());
    auto ctx = make_context(root, cpus);
    return rule(ctx);
  }
};

TEST(CheckRules, GovernorPerformanceIsOkAndOthersWarnPerCpu) {
  Machine m;
  for (int c : {0, 1})
    m.write("/sys/devices/system/cpu/cpu" + std::to_string(c) + "/cpufreq/scaling_governor", "performance\n");
  m.write("/sys/devices/system/cpu/cpu2/cpufreq/scaling_governor", "schedutil\n");
  EXPECT_EQ(m.run(check_cpu_governor, {0, 1}).status, Status::ok);
  auto f = m.run(check_cpu_governor, {0, 1, 2});
  EXPECT_EQ(f.status, Status::warn);
  EXPECT_EQ(f.cpus, std::vector<int>{2});
  EXPECT_NE(f.summary.find("schedutil on CPU 2"), std::string::npos);
  EXPECT_EQ(m.run(check_cpu_governor, {3}).status, Status::unknown) << "no cpufreq directory";
}

TEST(CheckRules, TurboFromIntelNoTurbo) {
  Machine m;
  m.write("/sys/devices/system/cpu/intel_pstate/no_turbo", "1\n");
  m.write("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", "performance\n");
  EXPECT_EQ(m.run(check_turbo_boost, {0}).status, Status::ok);
  m.write("/sys/devices/system/cpu/intel_pstate/no_turbo", "0\n");
  EXPECT_EQ(m.run(check_turbo_boost, {0}).status, Status::warn);
}

TEST(CheckRules, TurboUnknownWithCpufreqButNoControl) {
  Machine m;
  m.write("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", "performance\n");
  auto f = m.run(check_turbo_boost, {0});
  EXPECT_EQ(f.status, Status::unknown);
  EXPECT_NE(f.summary.find("no turbo control"), std::string::npos);
}

TEST(CheckRules, TransparentHugepagesModes) {
  Machine m;
  m.write("/sys/kernel/mm/transparent_hugepage/enabled", "[always] madvise never\n");
  EXPECT_EQ(m.run(check_transparent_hugepages, {0}).status, Status::warn);
  m.write("/sys/kernel/mm/transparent_hugepage/enabled", "always madvise [never]\n");
  EXPECT_EQ(m.run(check_transparent_hugepages, {0}).status, Status::ok);
  m.write("/sys/kernel/mm/transparent_hugepage/enabled", "garbage\n");
  EXPECT_EQ(m.run(check_transparent_hugepages, {0}).status, Status::unknown);
}

TEST(CheckRules, AslrAndNmiWatchdogValues) {
  Machine m;
  m.write("/proc/sys/kernel/randomize_va_space", "1\n");
  EXPECT_EQ(m.run(check_aslr, {0}).status, Status::warn);
  m.write("/proc/sys/kernel/randomize_va_space", "0\n");
  EXPECT_EQ(m.run(check_aslr, {0}).status, Status::ok);
  EXPECT_EQ(m.run(check_nmi_watchdog, {0}).status, Status::unknown);
  m.write("/proc/sys/kernel/nmi_watchdog", "1\n");
  EXPECT_EQ(m.run(check_nmi_watchdog, {0}).status, Status::warn);
}

TEST(CheckRules, IrqAffinityFallsBackToTheHexMaskAndIgnoresVectors) {
  Machine m;
  m.write("/proc/interrupts",
          "           CPU0       CPU1       CPU2       CPU3\n"
          " 30:         10          0          5          0   PCI-MSI 1-edge      eth0\n"
          " 31:          7          0          0          0   PCI-MSI 2-edge      eth1\n"
          "LOC:       1000       1000       1000       1000   Local timer interrupts\n");
  m.write("/proc/irq/30/smp_affinity", "f\n");       // 0-3: may land on CPU 2
  m.write("/proc/irq/31/smp_affinity_list", "0\n");  // stays on CPU 0
  auto f = m.run(check_irq_affinity, {2});
  EXPECT_EQ(f.status, Status::warn);
  EXPECT_NE(f.summary.find("30 eth0 (5 on CPU 2, 15 total)"), std::string::npos) << f.summary;
  EXPECT_EQ(f.summary.find("eth1"), std::string::npos);
  EXPECT_EQ(f.summary.find("LOC"), std::string::npos);
  ASSERT_TRUE(f.detail.contains("irqs"));
  EXPECT_EQ(f.detail["irqs"].size(), 1u);
  EXPECT_NE(f.fix[0].find("echo 0-1,3 |"), std::string::npos) << f.fix[0];
  EXPECT_EQ(m.run(check_irq_affinity, {3}).status, Status::warn);
  m.write("/proc/irq/30/smp_affinity", "1\n");
  EXPECT_EQ(m.run(check_irq_affinity, {2}).status, Status::ok);
}

TEST(CheckRules, PowerSupplyKinds) {
  Machine m;
  EXPECT_EQ(m.run(check_power_supply, {0}).status, Status::unknown);
  m.mkdir("/sys/class/power_supply");
  EXPECT_EQ(m.run(check_power_supply, {0}).status, Status::info) << "an empty class: desktop or VM";
  m.write("/sys/class/power_supply/BAT1/type", "Battery\n");
  m.write("/sys/class/power_supply/BAT1/status", "Discharging\n");
  EXPECT_EQ(m.run(check_power_supply, {0}).status, Status::fail) << "battery without mains, discharging";
  m.write("/sys/class/power_supply/ADP1/type", "Mains\n");
  m.write("/sys/class/power_supply/ADP1/online", "1\n");
  EXPECT_EQ(m.run(check_power_supply, {0}).status, Status::ok);
  m.write("/sys/class/power_supply/ADP1/online", "0\n");
  auto f = m.run(check_power_supply, {0});
  EXPECT_EQ(f.status, Status::fail) << "mains offline: on battery";
  EXPECT_NE(f.summary.find("not comparable"), std::string::npos) << f.summary;
}

TEST(CheckRules, IdleStatesAboveTenMicrosecondsOnlyWhenEnabled) {
  Machine m;
  auto state = [&](int cpu, int i, const char* name, int latency, int disable) {
    std::string b = "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/cpuidle/state" + std::to_string(i);
    m.write(b + "/name", std::string(name) + "\n");
    m.write(b + "/latency", std::to_string(latency) + "\n");
    m.write(b + "/disable", std::to_string(disable) + "\n");
  };
  state(1, 0, "POLL", 0, 0);
  state(1, 1, "C1", 10, 0);
  state(1, 2, "C6", 133, 1);
  EXPECT_EQ(m.run(check_cpu_idle_states, {1}).status, Status::ok) << "10 us is the limit; C6 is disabled";
  state(1, 2, "C6", 133, 0);
  auto f = m.run(check_cpu_idle_states, {1});
  EXPECT_EQ(f.status, Status::warn);
  // The catalogue's c-states command for the CPU with the deep state (src/knobs/family_cpu.cpp).
  EXPECT_NE(f.fix[0].find("/sys/devices/system/cpu/cpu1/cpuidle/state*;"), std::string::npos) << f.fix[0];
  EXPECT_NE(f.fix[0].find("echo 1 | sudo tee $s/disable"), std::string::npos) << f.fix[0];
}

TEST(CheckRules, LoadBelowOneIsOk) {
  Machine m;
  m.write("/proc/loadavg", "0.99 2.00 3.00 1/100 42\n");
  EXPECT_EQ(m.run(check_load, {0}).status, Status::ok);
  m.write("/proc/loadavg", "1.00 2.00 3.00 1/100 42\n");
  EXPECT_EQ(m.run(check_load, {0}).status, Status::warn);
}

TEST(CheckRules, NumaBalancingNeedsSeveralNodes) {
  Machine m;
  m.write("/proc/sys/kernel/numa_balancing", "1\n");
  m.write("/sys/devices/system/node/online", "0\n");
  EXPECT_EQ(m.run(check_numa_balancing, {0}).status, Status::ok);
  m.write("/sys/devices/system/node/online", "0-1\n");
  EXPECT_EQ(m.run(check_numa_balancing, {0}).status, Status::warn);
  m.write("/proc/sys/kernel/numa_balancing", "0\n");
  EXPECT_EQ(m.run(check_numa_balancing, {0}).status, Status::ok);
}

TEST(CheckRules, HybridFromTheCpuinfoFlagAlone) {
  Machine m;
  m.write("/proc/cpuinfo", "processor\t: 0\nflags\t\t: fpu sse hybrid_cpu\n\n");
  EXPECT_EQ(m.run(check_hybrid_cpu, {0}).status, Status::warn);
  m.write("/proc/cpuinfo", "processor\t: 0\nflags\t\t: fpu sse\n\n");
  EXPECT_EQ(m.run(check_hybrid_cpu, {0}).status, Status::ok);
}

TEST(CheckRules, IsolationFromIsolcpusFlagsAndNohzFullImpliesRcuNocbs) {
  Machine m;
  m.write("/proc/cmdline", "ro isolcpus=managed_irq,domain,2-3 nohz_full=3\n");
  EXPECT_EQ(m.run(check_cpu_isolation, {2, 3}).status, Status::ok);
  EXPECT_EQ(m.run(check_nohz_full, {3}).status, Status::ok);
  EXPECT_EQ(m.run(check_nohz_full, {2}).status, Status::warn);
  EXPECT_EQ(m.run(check_rcu_nocbs, {3}).status, Status::ok) << "nohz_full implies rcu_nocbs";
  EXPECT_EQ(m.run(check_rcu_nocbs, {2}).status, Status::warn);
}

TEST(CheckRules, BadCpuIsOneLineError) {
  Machine m("0-1");
  sys::Sysroot root(m.dir());
  try {
    make_context(root, std::vector<int>{99});
    FAIL() << "CPU 99 accepted";
  } catch (const nw::Error& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("CPU 99 is not online"), std::string::npos) << msg;
    EXPECT_NE(msg.find("0-1"), std::string::npos) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos);
  }
  EXPECT_THROW(parse_cpu_option("two"), nw::Error);
  EXPECT_THROW(parse_cpu_option(""), nw::Error);
  EXPECT_EQ(parse_cpu_option("1,3-4"), (std::vector<int>{1, 3, 4}));
}

TEST(CheckRules, TreeWithoutOnlineCpusIsAnError) {
  ScratchRoot empty;
  sys::Sysroot root(empty.dir());
  EXPECT_THROW(make_context(root, std::nullopt), nw::Error);
}

// cpu-quota on the cgroup trees of tests/data/cgroup (v1: a container with 1.5 CPUs of its own;
// v2: a pod of 0.5 CPU above the container), and on a scratch tree without a quota.
Finding cpu_quota_on(const std::string& tree, std::vector<int> cpus) {
  sys::Sysroot root(std::string(NW_SOURCE_DIR) + "/tests/data/cgroup/" + tree);
  auto ctx = make_context(root, cpus);
  return check_cpu_quota(ctx);
}

TEST(CheckRules, CpuQuotaWarnsAtOrAboveTheCpusAndFailsBelow) {
  auto one = cpu_quota_on("v1", {0});
  EXPECT_EQ(one.status, Status::warn) << one.summary;
  EXPECT_NE(one.summary.find("1.50 CPUs"), std::string::npos) << one.summary;
  EXPECT_NE(one.summary.find("22 of 90 periods"), std::string::npos) << one.summary;
  ASSERT_FALSE(one.fix.empty());
  bool removes = false;
  for (const auto& line : one.fix)
    removes = removes || line.find("/sys/fs/cgroup/cpu/docker/ab12/cpu.cfs_quota_us") != std::string::npos;
  EXPECT_TRUE(removes) << "the fix names the group's own file";
  auto two = cpu_quota_on("v1", {0, 1});
  EXPECT_EQ(two.status, Status::fail) << two.summary;
  auto pod = cpu_quota_on("v2", {0});
  EXPECT_EQ(pod.status, Status::fail) << pod.summary;
  EXPECT_NE(pod.summary.find("/kubepods.slice/pod1 (above this process's /kubepods.slice/pod1/ctr)"), std::string::npos)
      << pod.summary;
  bool v2_fix = false;
  for (const auto& line : pod.fix)
    v2_fix = v2_fix || line.find("echo max > /sys/fs/cgroup/kubepods.slice/pod1/cpu.max") != std::string::npos;
  EXPECT_TRUE(v2_fix);
}

TEST(CheckRules, CpuQuotaOkWithoutOneAndUnknownWithoutTheController) {
  Machine m("0-1");
  m.write("/proc/self/mountinfo", "32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n");
  m.write("/proc/self/cgroup", "1:cpu:/\n");
  m.write("/sys/fs/cgroup/cpu/cpu.cfs_quota_us", "-1\n");
  m.write("/sys/fs/cgroup/cpu/cpu.cfs_period_us", "100000\n");
  EXPECT_EQ(m.run(check_cpu_quota, {1}).status, Status::ok);
  Machine bare("0-1");
  EXPECT_EQ(bare.run(check_cpu_quota, {1}).status, Status::unknown);
}

}  // namespace
}  // namespace nw::check::testing
