// SPDX-License-Identifier: Apache-2.0
// The knob catalogue: the right knob, named process/IRQ/CPU, exact commands, ranking.
#include <gtest/gtest.h>

#include <algorithm>

#include "report_synthetic.h"
#include "reports/advice.h"
#include "reports/report.h"

namespace nw {
namespace {

const Recommendation* find_rec(const RunRecord& rec, const std::string& id) {
  for (const auto& r : rec.recommendations)
    if (r.id == id) return &r;
  return nullptr;
}

bool any_command_contains(const Recommendation& r, const std::string& text) {
  return std::any_of(r.commands.begin(), r.commands.end(),
                     [&](const std::string& c) { return c.find(text) != std::string::npos; });
}

RunRecord hog_record(const std::string& comm, int pid) {
  auto rec = test::synthetic_record(20, 1e6, [&](int i, RunSample& r, auto&) {
    if (i % 2) r.noise.push_back({"preemption:" + comm, 50, uint64_t(8e6), uint64_t(1e6), {{"pid", pid}}});
  });
  rec = test::analyzed(rec);
  return rec;
}

TEST(ReportAdvice, StopsTheNamedProcessFirst) {
  auto rec = hog_record("stress-ng", 4242);
  ASSERT_FALSE(rec.recommendations.empty());
  const auto& top = rec.recommendations.front();
  EXPECT_EQ(top.id, "stop-process:stress-ng");
  EXPECT_NE(top.title.find("stress-ng (pid 4242)"), std::string::npos) << top.title;
  EXPECT_EQ(top.addresses, std::vector<std::string>{"preemption:stress-ng"});
  EXPECT_TRUE(any_command_contains(top, "pkill -STOP -x stress-ng"));
  EXPECT_GT(top.share, 0.8);
  EXPECT_FALSE(top.reboot);
  EXPECT_FALSE(top.tradeoff.empty());
  // Also: isolate the CPU (kernel command line, reboot) and real-time priority.
  const auto* iso = find_rec(rec, "isolcpus");
  ASSERT_NE(iso, nullptr);
  EXPECT_TRUE(iso->reboot);
  EXPECT_TRUE(any_command_contains(*iso, "isolcpus=domain,managed_irq,1"));
  ASSERT_NE(find_rec(rec, "sched-fifo"), nullptr);
  EXPECT_TRUE(any_command_contains(*find_rec(rec, "sched-fifo"), "chrt -f 1 ./bench"));
}

TEST(ReportAdvice, KernelThreadsAreIsolatedNotStopped) {
  auto rec = hog_record("kworker/1:2", 77);
  EXPECT_EQ(find_rec(rec, "stop-process:kworker/1:2"), nullptr);
  EXPECT_EQ(find_rec(rec, "sched-fifo"), nullptr);
  ASSERT_NE(find_rec(rec, "isolcpus"), nullptr);
  auto unbound = hog_record("kworker/u8:1", 78);
  const auto* wq = find_rec(unbound, "workqueue-cpumask");
  ASSERT_NE(wq, nullptr);
  // Housekeeping CPU 0 of a 2-CPU machine, as a hex mask.
  EXPECT_TRUE(any_command_contains(*wq, "echo 1 > /sys/devices/virtual/workqueue/cpumask"));
}

TEST(ReportAdvice, MovesTheNamedIrqByNumber) {
  auto rec = test::synthetic_record(20, 1e6, [](int i, RunSample& r, auto&) {
    r.noise.push_back({"irq:virtio1-req.0", 10, uint64_t((i % 4) * 3e6), 50000, {{"irq", 24}}});
  });
  rec = test::analyzed(rec);
  const auto* mv = find_rec(rec, "move-irq:virtio1-req.0");
  ASSERT_NE(mv, nullptr);
  EXPECT_TRUE(any_command_contains(*mv, "for i in 24; do echo 0 > /proc/irq/$i/smp_affinity_list; done"));
  EXPECT_NE(find_rec(rec, "irqbalance"), nullptr);
  EXPECT_NE(find_rec(rec, "irqaffinity"), nullptr);
  EXPECT_EQ(find_rec(rec, "nohz-full"), nullptr);  // a device IRQ is not the tick
}

// PREEMPT_RT: the device's handler ran in its thread (detail.threaded_count): the advice says the
// thread outranks the benchmark and moves with its IRQ.
TEST(ReportAdvice, AThreadedIrqIsMovedWithItsThread) {
  auto rec = test::synthetic_record(20, 1e6, [](int i, RunSample& r, auto&) {
    r.noise.push_back({"irq:virtio1-req.1",
                       10,
                       uint64_t((i % 4) * 3e6),
                       50000,
                       {{"irq", 29}, {"threaded_count", 8}, {"threaded_ns", uint64_t((i % 4) * 2e6)}}});
  });
  rec = test::analyzed(rec);
  const auto* mv = find_rec(rec, "move-irq:virtio1-req.1");
  ASSERT_NE(mv, nullptr);
  EXPECT_NE(mv->title.find("Move IRQ 29 (virtio1-req.1) off CPU"), std::string::npos) << mv->title;
  EXPECT_NE(mv->title.find("real-time thread (irq/29-…, SCHED_FIFO 50)"), std::string::npos) << mv->title;
  EXPECT_TRUE(any_command_contains(*mv, "for i in 29; do echo 0 > /proc/irq/$i/smp_affinity_list; done"));
  // Not threaded: no word of a thread.
  auto plain = test::analyzed(test::synthetic_record(20, 1e6, [](int i, RunSample& r, auto&) {
    r.noise.push_back({"irq:virtio1-req.1", 10, uint64_t((i % 4) * 3e6), 50000, {{"irq", 29}}});
  }));
  ASSERT_NE(find_rec(plain, "move-irq:virtio1-req.1"), nullptr);
  EXPECT_EQ(find_rec(plain, "move-irq:virtio1-req.1")->title.find("thread"), std::string::npos);
}

TEST(ReportAdvice, ApicVectorsAreNotDeviceIrqs) {
  // A CPU's own vector (spurious, thermal, ...) cannot be moved with smp_affinity or irqaffinity.
  auto rec = test::synthetic_record(
      20, 1e6, [](int i, RunSample& r, auto&) { r.noise.push_back(test::time_entry("irq:spurious", (i % 4) * 3e6)); });
  rec = test::analyzed(rec);
  EXPECT_EQ(find_rec(rec, "move-irq:spurious"), nullptr);
  EXPECT_EQ(find_rec(rec, "irqaffinity"), nullptr);
  EXPECT_EQ(find_rec(rec, "irqbalance"), nullptr);
  EXPECT_NE(find_rec(rec, "quieter-cpu"), nullptr);  // it is still the CPU's noise
}

TEST(ReportAdvice, IrqWithoutNumberMovesEveryDeviceIrq) {
  auto rec = test::synthetic_record(
      20, 1e6, [](int i, RunSample& r, auto&) { r.noise.push_back(test::time_entry("irq:eth0-rx-1", (i % 4) * 3e6)); });
  rec = test::analyzed(rec);
  const auto* mv = find_rec(rec, "move-irq:eth0-rx-1");
  ASSERT_NE(mv, nullptr);
  EXPECT_NE(mv->title.find("eth0-rx-1 among them"), std::string::npos) << mv->title;
  EXPECT_TRUE(any_command_contains(*mv, "for i in /proc/irq/[0-9]*; do echo 0 > $i/smp_affinity_list; done"));
}

TEST(ReportAdvice, TickAndRcuNeedKernelParameters) {
  auto rec = test::synthetic_record(20, 0.2e6, [](int i, RunSample& r, auto&) {
    r.noise.push_back(test::time_entry("irq:local_timer", (i % 3) * 1e6));
    r.noise.push_back(test::time_entry("softirq:RCU", (i % 5) * 0.6e6));
  });
  rec = test::analyzed(rec);
  const auto* nohz = find_rec(rec, "nohz-full");
  const auto* rcu = find_rec(rec, "rcu-nocbs");
  ASSERT_NE(nohz, nullptr);
  ASSERT_NE(rcu, nullptr);
  EXPECT_TRUE(nohz->reboot);
  EXPECT_TRUE(rcu->reboot);
  // Both parameters in one boot-loader edit, carried by the higher-ranked of the two.
  const auto* first = nohz->share >= rcu->share ? nohz : rcu;
  EXPECT_TRUE(any_command_contains(*first, "&nohz_full=1 rcu_nocbs=1 rcu_nocb_poll ") ||
              any_command_contains(*first, "&rcu_nocbs=1 rcu_nocb_poll nohz_full=1 "));
}

TEST(ReportAdvice, NamesAQuieterCpuThanCpu0) {
  auto rec = test::synthetic_record(20, 1e6, [](int i, RunSample& r, auto&) {
    r.noise.push_back(test::time_entry("softirq:NET_RX", (i % 4) * 2e6));
  });
  rec.cpus = {0};
  rec.host.online_cpus = 4;
  rec = test::analyzed(rec);
  const auto* q = find_rec(rec, "quieter-cpu");
  ASSERT_NE(q, nullptr);
  EXPECT_NE(q->title.find("CPU 3"), std::string::npos) << q->title;
  EXPECT_TRUE(any_command_contains(*q, "noisewatch --cpu 3 -- ./bench"));
}

TEST(ReportAdvice, SmtNmiCstatesFrequency) {
  auto rec = test::synthetic_record(20, 0.2e6, [](int i, RunSample& r, auto&) {
    r.noise.push_back(test::time_entry("smt:cc1plus", (i % 4) * 2e6));
    r.noise.push_back(test::time_entry("nmi:perf_event_nmi_handler", (i % 3) * 1e6));
    r.noise.push_back(test::time_entry("wakeup:idle", (i % 5) * 1e6));
  });
  rec = test::analyzed(rec);
  EXPECT_NE(find_rec(rec, "smt-off"), nullptr);
  EXPECT_NE(find_rec(rec, "nmi-watchdog"), nullptr);
  EXPECT_NE(find_rec(rec, "c-states"), nullptr);
  EXPECT_EQ(find_rec(rec, "performance-governor"), nullptr);  // no frequency data, no advice on it
}

TEST(ReportAdvice, RankedBySharePlacingSpeculativeKnobsLast) {
  auto rec = test::synthetic_record(30, 4e6, [](int i, RunSample& r, auto&) {
    if (i % 2) r.noise.push_back(test::time_entry("preemption:backup", 6e6));
  });
  rec = test::analyzed(rec);
  ASSERT_GE(rec.recommendations.size(), 3u);
  bool seen_speculative = false;
  double last = 2;
  for (const auto& r : rec.recommendations) {
    bool spec = r.addresses == std::vector<std::string>{"unexplained"};
    if (spec && !seen_speculative) last = 2;  // a new tier starts
    seen_speculative |= spec;
    if (!spec) EXPECT_FALSE(seen_speculative) << r.id << " ranked after a speculative knob";
    EXPECT_LE(r.share, last) << r.id;
    last = r.share;
  }
  EXPECT_NE(find_rec(rec, "aslr-off"), nullptr);  // a third of the variance is unexplained
  EXPECT_TRUE(any_command_contains(*find_rec(rec, "aslr-off"), "setarch -R ./bench"));
  EXPECT_NE(find_rec(rec, "clean-env"), nullptr);
}

TEST(ReportAdvice, UnpinnedWithMigrationsAsksToPin) {
  auto rec = test::synthetic_record(20, 20e3, [](int, RunSample& r, auto& rng) {
    int n = std::uniform_int_distribution<int>(0, 30)(rng);
    r.noise.push_back({"migration", uint64_t(n), 0, 0, nullptr});
    r.wall_ns = uint64_t(n * 40e3);
  });
  rec.pinned = false;
  rec = test::analyzed(rec);
  const auto* pin = find_rec(rec, "pin-cpu");
  ASSERT_NE(pin, nullptr);
  EXPECT_TRUE(any_command_contains(*pin, "taskset -c 1 ./bench"));
}

TEST(ReportAdvice, VirtualMachineSuggestsADedicatedHost) {
  auto rec = test::synthetic_record(20, 5e6, nullptr);
  rec.host.virtualized = true;
  rec = test::analyzed(rec);
  EXPECT_NE(find_rec(rec, "dedicated-host"), nullptr);
  EXPECT_EQ(find_rec(rec, "aslr-off"), nullptr);  // the host explains it first
}

TEST(ReportAdvice, CatalogueHasEveryKnobOfTheIssue) {
  auto ids = report::recommendation_ids();
  for (const char* id : {"pin-cpu",      "quieter-cpu",           "isolcpus",     "nohz-full",  "rcu-nocbs",
                         "irqaffinity",  "kthread-cpus",          "move-irq",     "irqbalance", "workqueue-cpumask",
                         "stop-process", "performance-governor",  "turbo-off",    "smt-off",    "aslr-off",
                         "clean-env",    "transparent-hugepages", "nmi-watchdog", "sched-fifo", "nice",
                         "c-states",     "dedicated-host",        "fix-inputs",   "more-warmup"})
    EXPECT_NE(std::find(ids.begin(), ids.end(), id), ids.end()) << id;
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(std::adjacent_find(ids.begin(), ids.end()), ids.end()) << "duplicate knob id";
}

TEST(ReportAdvice, FrequencyKnobs) {
  auto rec = test::synthetic_record(20, 0.2e6, [](int i, RunSample& r, auto&) {
    double khz = (i % 2) ? 2.0e6 : 3.0e6;
    r.mean_khz = khz;
    r.wall_ns = uint64_t(1e9 * (3.0e6 / khz - 1));
  });
  rec = test::analyzed(rec);
  const auto* gov = find_rec(rec, "performance-governor");
  ASSERT_NE(gov, nullptr);
  EXPECT_TRUE(any_command_contains(*gov, "echo performance > /sys/devices/system/cpu/cpu1/cpufreq/scaling_governor"));
  const auto* fixed = find_rec(rec, "fixed-frequency");
  ASSERT_NE(fixed, nullptr);
  EXPECT_TRUE(any_command_contains(*fixed, "cpu$c/cpufreq/scaling_min_freq"));
  const auto* turbo = find_rec(rec, "turbo-off");
  ASSERT_NE(turbo, nullptr);
  EXPECT_TRUE(any_command_contains(*turbo, "intel_pstate/no_turbo"));
  EXPECT_EQ(turbo->addresses, std::vector<std::string>{"frequency"});
  // Each can be proved alone: `run --tune` applies it for one run and restores it.
  EXPECT_TRUE(any_command_contains(*turbo, "noisewatch --tune --tune-only turbo-off -- ./bench"));
}

TEST(ReportAdvice, QuotesTheCommandForTheShell) {
  auto rec = hog_record("stress-ng", 1);
  rec.command = {"./bench", "--name", "a b"};
  rec = test::analyzed(rec);
  EXPECT_TRUE(any_command_contains(*find_rec(rec, "sched-fifo"), "chrt -f 1 ./bench --name 'a b'"));
}

TEST(ReportAdvice, HeadingsSayHowTheyAreOrdered) {
  // On a VM: a hog with about a tenth of the variance, the rest unexplained (the host). The
  // measured knob comes first under "ranked by the share"; the dedicated host, which only may
  // address the unexplained 90 %, comes under its own heading instead of above a 9 % knob that
  // the heading ranks.
  auto rec = test::synthetic_record(40, 3e6, [](int i, RunSample& r, auto&) {
    if (i % 2) r.noise.push_back({"preemption:backup", 20, uint64_t(2e6), uint64_t(1e6), {{"pid", 9}}});
  });
  rec.host.virtualized = true;
  rec = test::analyzed(rec);
  const auto* host = find_rec(rec, "dedicated-host");
  const auto* stop = find_rec(rec, "stop-process:backup");
  ASSERT_NE(host, nullptr);
  ASSERT_NE(stop, nullptr);
  ASSERT_GT(host->share, stop->share);
  for (auto f : {report::Format::text, report::Format::markdown, report::Format::html}) {
    auto out = report::render(rec, f, false);
    auto ranked = out.find("ranked by the share of the variance they address");
    auto maybe = out.find("May reduce the unexplained part");
    ASSERT_NE(ranked, std::string::npos) << out;
    ASSERT_NE(maybe, std::string::npos) << out;
    EXPECT_LT(ranked, out.find("Stop backup"));
    EXPECT_LT(out.find("Stop backup"), maybe);
    EXPECT_LT(maybe, out.find("Benchmark on a dedicated host"));
    EXPECT_NE(out.find("up to"), std::string::npos);
  }
  // Within the ranked group, shares never increase.
  double last = 2;
  for (const auto& r : rec.recommendations) {
    if (report::tier_of(r) != report::Tier::measured) break;
    EXPECT_LE(r.share, last) << r.id;
    last = r.share;
  }
}

}  // namespace
}  // namespace nw
