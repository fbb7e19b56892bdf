// SPDX-License-Identifier: Apache-2.0
// `tune apply` and `tune restore` on writable copies of the fixture trees: every knob's files,
// the journal, and the byte-exact round trip.
#include <algorithm>

#include <gtest/gtest.h>

#include "common/errors.h"
#include "knobs/catalogue.h"
#include "support/tune_test_util.h"
#include "system/sysroot.h"
#include "tune/apply.h"
#include "tune/restore.h"

namespace nw::tune {
namespace {

using testing::FakeServices;
using testing::TreeCopy;

struct Applied {
  ApplyResult result;
  std::optional<Journal> journal;
};

Applied apply_tree(const TreeCopy& t, std::vector<int> cpus, std::vector<std::string> only = {},
                   std::vector<std::string> skip = {}, Services* services = nullptr, bool dry_run = false) {
  sys::Sysroot root(t.root());
  ApplyOptions o;
  o.targets = targets_for(root, cpus);
  o.selection = select_knobs(only, skip);
  o.dry_run = dry_run;
  FakeServices none;
  JournalFile jf(t.journal());
  Applied a{apply(root, jf, services ? *services : none, o), std::nullopt};
  a.journal = jf.load();
  return a;
}

const KnobResult& result_of(const ApplyResult& r, const std::string& id) {
  for (const auto& k : r.knobs)
    if (k.knob->id == id) return k;
  throw std::runtime_error("no result for " + id);
}

RestoreResult restore_tree(const TreeCopy& t, Services* services = nullptr) {
  FakeServices none;
  return restore(JournalFile(t.journal()), RestoreOptions{}, services ? services : &none);
}

const std::string kCpu2 = "/sys/devices/system/cpu/cpu2";

TEST(TuneApply, IntelLaptopEveryKnobOnCpu2) {
  TreeCopy t("laptop-hybrid-untuned");
  auto before = t.snapshot();
  FakeServices services;
  services.running["irqbalance.service"] = true;
  auto a = apply_tree(t, {2}, {}, {}, &services);

  EXPECT_EQ(t.file(kCpu2 + "/cpufreq/scaling_governor"), "performance\n");
  EXPECT_EQ(t.file(kCpu2 + "/cpufreq/energy_performance_preference"), "performance\n");
  EXPECT_EQ(t.file("/sys/devices/system/cpu/intel_pstate/no_turbo"), "1\n");
  EXPECT_EQ(t.file(kCpu2 + "/cpufreq/scaling_min_freq"), t.file(kCpu2 + "/cpufreq/scaling_max_freq"));
  // Exit latencies 0, 1, 170, 200, 230 us: the last three are deep.
  for (int s : {0, 1}) EXPECT_EQ(t.file(kCpu2 + "/cpuidle/state" + std::to_string(s) + "/disable"), "0\n");
  for (int s : {2, 3, 4}) EXPECT_EQ(t.file(kCpu2 + "/cpuidle/state" + std::to_string(s) + "/disable"), "1\n");
  EXPECT_EQ(t.file("/sys/devices/system/cpu/cpu3/cpuidle/state4/disable"), "0\n");  // not a target
  EXPECT_EQ(t.file("/proc/sys/kernel/randomize_va_space"), "0\n");
  EXPECT_EQ(t.file("/proc/sys/kernel/nmi_watchdog"), "0\n");
  EXPECT_EQ(t.file("/proc/sys/kernel/timer_migration"), "0\n");
  EXPECT_EQ(t.file("/sys/kernel/mm/transparent_hugepage/enabled"), "never\n");
  EXPECT_EQ(t.file("/sys/kernel/mm/transparent_hugepage/defrag"), "never\n");
  for (int irq : {9, 120, 135, 160})
    EXPECT_EQ(t.file("/proc/irq/" + std::to_string(irq) + "/smp_affinity_list"), "0-1,3-13\n") << irq;
  EXPECT_EQ(t.file("/proc/irq/default_smp_affinity"), "3ffb\n");
  EXPECT_EQ(t.file("/sys/devices/virtual/workqueue/cpumask"), "3ffb\n");
  EXPECT_EQ(t.file("/sys/devices/system/cpu/cpu3/online"), "1\n");  // smt-off is opt-in
  EXPECT_EQ(services.calls, (std::vector<std::string>{"stop irqbalance.service"}));

  EXPECT_EQ(result_of(a.result, "numa-balancing").outcome, Outcome::already);  // 0 on the laptop
  EXPECT_EQ(result_of(a.result, "aslr-off").outcome, Outcome::applied);
  EXPECT_FALSE(a.result.any_failed());
  // Nothing else was touched.
  auto changed = testing::changed_files(before, t.snapshot());
  EXPECT_EQ(changed.size(), size_t(a.result.changes) - 1) << "every change but the service is one file";

  ASSERT_TRUE(a.journal);
  EXPECT_EQ(a.journal->cpus, (std::vector<int>{2}));
  EXPECT_EQ(a.journal->sysroot, t.root());
  EXPECT_EQ(a.journal->owner.command, "tune apply");
  EXPECT_EQ(int(a.journal->changes.size()), a.result.changes);
  for (const auto& c : a.journal->changes)
    if (c.service.empty()) EXPECT_EQ(c.before, before.at(c.path)) << c.path;
  // The boot parameters are printed, never written.
  EXPECT_EQ(a.result.boot_missing.size(), 5u);
  ASSERT_FALSE(a.result.boot_edit.empty());
  EXPECT_NE(a.result.boot_edit[1].find("isolcpus=domain,managed_irq,2 "), std::string::npos);
}

TEST(TuneApply, RestoreIsByteExactAndRemovesTheJournal) {
  for (auto [tree, cpu] :
       {std::pair{"laptop-hybrid-untuned", 2}, {"tune-epyc-smt-amd-pstate", 2}, {"tune-vm-firecracker-2cpu", 1}}) {
    TreeCopy t(tree);
    auto before = t.snapshot();
    FakeServices services;
    services.running["irqbalance.service"] = true;
    // Every knob, smt-off included.
    std::vector<std::string> all;
    for (const auto* k : knobs::runtime_knobs()) all.emplace_back(k->id);
    auto a = apply_tree(t, {cpu}, all, {}, &services);
    ASSERT_GT(a.result.changes, 0) << tree;
    EXPECT_FALSE(testing::changed_files(before, t.snapshot()).empty()) << tree;
    auto r = restore_tree(t, &services);
    EXPECT_TRUE(r.failures.empty()) << tree << ": " << (r.failures.empty() ? "" : r.failures.front());
    EXPECT_EQ(testing::changed_files(before, t.snapshot()), std::vector<std::string>{}) << tree;
    EXPECT_FALSE(JournalFile(t.journal()).exists()) << tree;
    EXPECT_TRUE(services.running["irqbalance.service"]) << tree;
  }
}

TEST(TuneApply, AmdServerPerPolicyBoostAndSmtSiblingOnRequest) {
  TreeCopy t("tune-epyc-smt-amd-pstate");
  auto before = t.snapshot();
  auto a = apply_tree(t, {2}, {"turbo-off", "performance-governor", "smt-off"});
  EXPECT_EQ(t.file(kCpu2 + "/cpufreq/boost"), "0\n");
  EXPECT_EQ(t.file("/sys/devices/system/cpu/cpu3/cpufreq/boost"), "1\n");
  EXPECT_EQ(t.file(kCpu2 + "/cpufreq/scaling_governor"), "performance\n");
  EXPECT_EQ(t.file(kCpu2 + "/cpufreq/energy_performance_preference"), "performance\n");
  // CPU 6 shares CPU 2's core.
  EXPECT_EQ(t.file("/sys/devices/system/cpu/cpu6/online"), "0\n");
  EXPECT_EQ(t.file("/sys/devices/system/cpu/cpu7/online"), "1\n");
  EXPECT_EQ(testing::changed_files(before, t.snapshot()).size(), 4u);
  EXPECT_EQ(a.result.knobs.size(), 3u);
  restore_tree(t);
  EXPECT_EQ(testing::changed_files(before, t.snapshot()), std::vector<std::string>{});
}

TEST(TuneApply, AmdServerDefaultSelectionOnCpu2) {
  TreeCopy t("tune-epyc-smt-amd-pstate");
  auto a = apply_tree(t, {2});
  EXPECT_EQ(t.file(kCpu2 + "/cpufreq/scaling_min_freq"), "3700000\n");
  EXPECT_EQ(t.file(kCpu2 + "/cpuidle/state2/disable"), "1\n");  // C2, 18 us
  EXPECT_EQ(t.file(kCpu2 + "/cpuidle/state1/disable"), "0\n");  // C1, 1 us
  EXPECT_EQ(t.file("/proc/sys/kernel/numa_balancing"), "0\n");
  EXPECT_EQ(t.file("/proc/sys/kernel/nmi_watchdog"), "0\n");
  EXPECT_EQ(t.file("/sys/kernel/mm/transparent_hugepage/enabled"), "never\n");
  // IRQs 9, 50 (0-7) and 52 (2) reach CPU 2; 0 (CPU 0), 51 (0-1) and 53 (3) do not.
  for (int irq : {9, 50, 52}) EXPECT_EQ(t.file("/proc/irq/" + std::to_string(irq) + "/smp_affinity_list"), "0-1,3-7\n");
  for (auto [irq, aff] : {std::pair{0, "0\n"}, {51, "0-1\n"}, {53, "3\n"}})
    EXPECT_EQ(t.file("/proc/irq/" + std::to_string(irq) + "/smp_affinity_list"), aff);
  EXPECT_EQ(t.file("/sys/devices/virtual/workqueue/cpumask"), "fb\n");
  EXPECT_EQ(t.file("/sys/devices/system/cpu/cpu6/online"), "1\n");  // smt-off only when asked
  // rcu_nocbs=2-3 is on the command line already: the other four boot parameters are missing.
  std::vector<std::string> boot;
  for (const auto* k : a.result.boot_missing) boot.emplace_back(k->id);
  EXPECT_EQ(boot, (std::vector<std::string>{"isolcpus", "nohz-full", "irqaffinity", "kthread-cpus"}));
}

// An IO-APIC IRQ moves at its next interrupt: its effective_affinity_list still names the old CPU
// right after the write (seen in a guest). tune says so instead of implying the move is done.
TEST(TuneApply, AnIrqStillDeliveredToTheBenchmarkCpuIsSaid) {
  TreeCopy t("tune-epyc-smt-amd-pstate");
  t.write("/proc/irq/52/effective_affinity_list", "2\n");  // not yet moved
  t.write("/proc/irq/50/effective_affinity_list", "0\n");  // moved already (or never on CPU 2)
  auto a = apply_tree(t, {2}, {"irq-affinity"});
  const auto& r = result_of(a.result, "irq-affinity");
  EXPECT_EQ(r.outcome, Outcome::applied);
  EXPECT_EQ(r.deferred, 1);
  EXPECT_NE(
      r.message.find("1 IRQ still delivered to CPU 2 (effective_affinity_list): each moves at its next interrupt"),
      std::string::npos)
      << r.message;
  bool said = false;
  for (const auto& d : r.details)
    said |= d == "/proc/irq/52/smp_affinity_list: 2 -> 0-1,3-7 (still delivered to CPU 2 until its next interrupt)";
  EXPECT_TRUE(said) << ::testing::PrintToString(r.details);
  // Without the file (older kernels, fixture trees), nothing is claimed either way.
  TreeCopy plain("tune-epyc-smt-amd-pstate");
  EXPECT_EQ(result_of(apply_tree(plain, {2}, {"irq-affinity"}).result, "irq-affinity").deferred, 0);
}

TEST(TuneApply, AcpiCpufreqGlobalBoost) {
  TreeCopy t("tune-vm-firecracker-2cpu");
  t.write("/sys/devices/system/cpu/cpufreq/boost", "1\n");
  apply_tree(t, {1}, {"turbo-off"});
  EXPECT_EQ(t.file("/sys/devices/system/cpu/cpufreq/boost"), "0\n");
  restore_tree(t);
  EXPECT_EQ(t.file("/sys/devices/system/cpu/cpufreq/boost"), "1\n");
}

TEST(TuneApply, SmtSiblingThatCannotGoOfflineIsSaid) {
  TreeCopy t("tune-epyc-smt-amd-pstate");
  auto a = apply_tree(t, {4}, {"smt-off"});  // CPU 4's sibling is CPU 0: no online file
  const auto& r = result_of(a.result, "smt-off");
  EXPECT_EQ(r.outcome, Outcome::absent);
  EXPECT_NE(r.message.find("CPU 0 cannot be taken offline"), std::string::npos) << r.message;
}

TEST(TuneApply, VmHasNoFrequencyIdleOrSmtKnobs) {
  TreeCopy t("tune-vm-firecracker-2cpu");
  auto a = apply_tree(t, {1});
  for (const char* id : {"performance-governor", "turbo-off", "fixed-frequency", "c-states"})
    EXPECT_EQ(result_of(a.result, id).outcome, Outcome::absent) << id;
  EXPECT_NE(result_of(a.result, "performance-governor").message.find("no cpufreq driver for CPU 1"), std::string::npos);
  for (const char* id : {"aslr-off", "timer-migration", "transparent-hugepages", "irq-affinity", "irq-default-affinity",
                         "workqueue-cpumask"})
    EXPECT_EQ(result_of(a.result, id).outcome, Outcome::applied) << id;
  EXPECT_EQ(result_of(a.result, "irqbalance").outcome, Outcome::already);
  EXPECT_EQ(t.file("/sys/devices/virtual/workqueue/cpumask"), "1\n");
  EXPECT_EQ(t.file("/proc/irq/default_smp_affinity"), "1\n");
}

TEST(TuneApply, OneRefusedKnobDoesNotStopTheOthers) {
  TreeCopy t("tune-vm-firecracker-2cpu");
  // A file the kernel refuses to write even to root, yet can be read: /proc/version.
  std::filesystem::remove(t.root() + "/proc/sys/kernel/randomize_va_space");
  std::filesystem::create_symlink("/proc/version", t.root() + "/proc/sys/kernel/randomize_va_space");
  auto before = t.snapshot();
  auto a = apply_tree(t, {1});
  const auto& aslr = result_of(a.result, "aslr-off");
  EXPECT_EQ(aslr.outcome, Outcome::failed);
  EXPECT_NE(aslr.message.find("/proc/sys/kernel/randomize_va_space"), std::string::npos) << aslr.message;
  EXPECT_TRUE(a.result.any_failed());
  EXPECT_EQ(result_of(a.result, "timer-migration").outcome, Outcome::applied);
  // The refused value never changed, so the journal does not hold it.
  ASSERT_TRUE(a.journal);
  for (const auto& c : a.journal->changes) EXPECT_NE(c.knob, "aslr-off");
  restore_tree(t);
  EXPECT_EQ(testing::changed_files(before, t.snapshot()), std::vector<std::string>{});
}

TEST(TuneApply, DryRunChangesNothingAndWritesNoJournal) {
  TreeCopy t("laptop-hybrid-untuned");
  auto before = t.snapshot();
  auto a = apply_tree(t, {2}, {}, {}, nullptr, true);
  EXPECT_EQ(result_of(a.result, "aslr-off").outcome, Outcome::planned);
  EXPECT_EQ(result_of(a.result, "aslr-off").details.front(), "/proc/sys/kernel/randomize_va_space: 2 -> 0");
  EXPECT_FALSE(a.journal);
  EXPECT_EQ(testing::changed_files(before, t.snapshot()), std::vector<std::string>{});
}

TEST(TuneApply, RefusesToStackOnAPendingJournal) {
  TreeCopy t("tune-vm-firecracker-2cpu");
  apply_tree(t, {1}, {"aslr-off"});
  try {
    apply_tree(t, {1}, {"timer-migration"});
    FAIL() << "a second apply stacked on the first";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("noisewatch tune restore --journal " + t.journal()), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(t.file("/proc/sys/kernel/timer_migration"), "1\n");
}

TEST(TuneApply, SecondApplyFindsEverythingAlreadySet) {
  TreeCopy t("tune-epyc-smt-amd-pstate");
  apply_tree(t, {2, 3});
  restore_tree(t);
  auto first = apply_tree(t, {2, 3});
  JournalFile(t.journal()).remove();  // keep the tuned tree as it is
  auto second = apply_tree(t, {2, 3});
  EXPECT_GT(first.result.changes, 0);
  EXPECT_EQ(second.result.changes, 0);
  EXPECT_FALSE(second.journal) << "nothing changed: no journal";
  for (const auto& k : second.result.knobs)
    EXPECT_TRUE(k.outcome == Outcome::already || k.outcome == Outcome::absent) << k.knob->id << ": " << k.message;
}

TEST(TuneRestore, NothingToRestoreWithoutAJournal) {
  TreeCopy t("tune-vm-firecracker-2cpu");
  auto r = restore_tree(t);
  EXPECT_TRUE(r.nothing);
}

TEST(TuneRestore, ServiceRestartedAfterTheIrqsAreBack) {
  TreeCopy t("laptop-hybrid-untuned");
  FakeServices services;
  services.running["irqbalance.service"] = true;
  apply_tree(t, {2}, {"irqbalance", "irq-affinity"}, {}, &services);
  auto r = restore_tree(t, &services);
  EXPECT_EQ(services.calls, (std::vector<std::string>{"stop irqbalance.service", "start irqbalance.service"}));
  // Reverse order: the IRQ files first, the service last.
  EXPECT_EQ(r.details.back(), "irqbalance.service: started again");
}

TEST(TuneRestore, RefusesAJournalOfAnotherRoot) {
  TreeCopy t("tune-vm-firecracker-2cpu");
  apply_tree(t, {1}, {"aslr-off"});
  RestoreOptions o;
  o.sysroot = "/somewhere/else";
  o.sysroot_given = true;
  EXPECT_THROW(restore(JournalFile(t.journal()), o), Error);
  EXPECT_EQ(t.file("/proc/sys/kernel/randomize_va_space"), "0\n");
}

TEST(TuneSelection, OnlySkipAndTheirErrors) {
  auto s = select_knobs({}, {"transparent-hugepages"});
  for (const auto* k : s.runtime) EXPECT_NE(k->id, "transparent-hugepages");
  EXPECT_TRUE(std::none_of(s.runtime.begin(), s.runtime.end(), [](auto* k) { return k->id == "smt-off"; }));
  auto only = select_knobs({"smt-off", "isolcpus"}, {});
  ASSERT_EQ(only.runtime.size(), 1u);
  EXPECT_EQ(only.runtime[0]->id, "smt-off");
  ASSERT_EQ(only.boot.size(), 1u);
  // irqbalance alone has nothing to protect.
  auto lone = select_knobs({"irqbalance"}, {});
  EXPECT_TRUE(lone.runtime.empty());
  EXPECT_NE(lone.notes.front().find("matters only with irq-affinity"), std::string::npos);
  EXPECT_THROW(select_knobs({"no-such"}, {}), Error);
  try {
    select_knobs({"sched-fifo"}, {});
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("noisewatch run --fifo"), std::string::npos) << e.what();
  }
}

TEST(TuneSelection, TargetsDefaultToTheCpuRunWouldPick) {
  TreeCopy t("tune-epyc-smt-amd-pstate");
  sys::Sysroot root(t.root());
  auto d = make_targets(root, "");
  // Not CPU 0; among 1-7 the fewest device IRQs: CPU 4 (only IRQs 9 and 50 reach it, as every CPU from 4 on).
  EXPECT_EQ(d.cpus, (std::vector<int>{4}));
  EXPECT_EQ(d.housekeeping, (std::vector<int>{0, 1, 2, 3, 5, 6, 7}));
  EXPECT_THROW(make_targets(root, "9"), Error);
  EXPECT_THROW(make_targets(root, "x"), Error);
}

}  // namespace
}  // namespace nw::tune
