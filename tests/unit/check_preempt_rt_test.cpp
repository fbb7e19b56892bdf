// SPDX-License-Identifier: Apache-2.0
// The preempt-rt rule on a real PREEMPT_RT tree (tests/data/sysroots/rt-guest-debian12, Debian 12's
// 6.1 rt kernel in a 2-CPU guest) and on scratch trees for the edges.
#include <filesystem>

#include "check/check_context.h"
#include "check/rules.h"
#include "support/check_test_util.h"
#include "system/processes.h"

namespace nw::check::testing {
namespace {

Finding preempt_rt(const std::string& dir, std::vector<int> cpus) {
  sys::Sysroot root(dir);
  auto ctx = make_context(root, cpus);
  return check_preempt_rt(ctx);
}

TEST(CheckPreemptRt, StatGivesPolicyAndPriority) {
  // An IRQ thread's line as the rt guest's /proc/127/stat has it: fields 40 and 41.
  auto p = sys::parse_proc_stat(
      "127 (irq/29-virtio1-req.1) S 2 0 0 0 -1 2129984 0 0 0 0 0 0 0 0 -51 0 1 0 339 0 0 18446744073709551615 0 0 "
      "0 0 0 0 0 2147483647 0 1 0 0 17 1 50 1 0 0 0 0 0 0 0 0 0 0 0",
      1000, 100);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->comm, "irq/29-virtio1-req.1");
  EXPECT_EQ(p->rt_priority, 50);
  EXPECT_EQ(p->policy, 1);
  EXPECT_TRUE(sys::realtime_policy(p->policy));
  // A short line (an old snapshot's) leaves them unknown, not SCHED_OTHER.
  auto shortline = sys::parse_proc_stat("5 (x) S 1 1 1 0 -1 0 0 0 0 0 1 1 0 0 20 0 1 0 10 0 0", 1000, 100);
  ASSERT_TRUE(shortline);
  EXPECT_EQ(shortline->policy, -1);
}

TEST(CheckPreemptRt, TheRtGuestsIrqThreadsOnTheBenchmarkCpuWarn) {
  auto f = preempt_rt(fixture_sysroot("rt-guest-debian12"), {1});
  EXPECT_EQ(f.status, Status::warn) << f.summary;
  EXPECT_EQ(f.cpus, std::vector<int>{1});
  EXPECT_NE(f.summary.find("PREEMPT_RT kernel: 7 IRQ handler threads may run on CPU 1"), std::string::npos)
      << f.summary;
  EXPECT_NE(f.summary.find("(SCHED_FIFO 50)"), std::string::npos) << f.summary;
  EXPECT_NE(f.summary.find("kernel.sched_rt_runtime_us=950000 of 1000000"), std::string::npos) << f.summary;
  EXPECT_EQ(f.detail["preempt_rt"], true);
  EXPECT_EQ(f.detail["sched_rt_runtime_us"], 950000);
  bool disk = false;
  for (const auto& t : f.detail["irq_threads"]) {
    EXPECT_EQ(t["policy"], 1) << t.dump();
    EXPECT_EQ(t["rt_priority"], 50) << t.dump();
    disk |= t["comm"] == "irq/29-virtio1-req.1" && t["irq"] == 29;
  }
  EXPECT_TRUE(disk) << f.detail.dump();
  // The fix moves those IRQs (their threads follow) and offers to lift RT throttling.
  ASSERT_GE(f.fix.size(), 2u);
  EXPECT_NE(f.fix[0].find("for i in 1 4 9 26 27 29 32; do echo 0 |"), std::string::npos) << f.fix[0];
  EXPECT_NE(f.fix.back().find("sysctl -w kernel.sched_rt_runtime_us=-1"), std::string::npos) << f.fix.back();
}

// The same tree with every IRQ thread on CPU 0 and RT throttling off: nothing left to say.
TEST(CheckPreemptRt, ThreadsElsewhereAndNoThrottlingIsOk) {
  ScratchRoot m;
  std::filesystem::copy(fixture_sysroot("rt-guest-debian12"), m.dir(), std::filesystem::copy_options::recursive);
  for (const auto& e : std::filesystem::directory_iterator(m.dir() + "/proc"))
    if (std::filesystem::exists(e.path() / "status"))
      m.write("/proc/" + e.path().filename().string() + "/status",
              "Name:\tx\nCpus_allowed:\t1\nCpus_allowed_list:\t0\n");
  auto info = preempt_rt(m.dir(), {1});
  EXPECT_EQ(info.status, Status::info) << "RT throttling alone: " << info.summary;
  EXPECT_NE(info.summary.find("none of the 14 IRQ handler threads may run on CPU 1"), std::string::npos)
      << info.summary;
  ASSERT_EQ(info.fix.size(), 1u);
  m.write("/proc/sys/kernel/sched_rt_runtime_us", "-1\n");
  auto ok = preempt_rt(m.dir(), {1});
  EXPECT_EQ(ok.status, Status::ok) << ok.summary;
  EXPECT_TRUE(ok.fix.empty());
}

TEST(CheckPreemptRt, AnOrdinaryKernelIsOkAndAnEmptyTreeUnknown) {
  auto vm = preempt_rt(fixture_sysroot("vm-firecracker-2cpu"), {1});
  EXPECT_EQ(vm.status, Status::ok) << vm.summary;
  EXPECT_NE(vm.summary.find("not a PREEMPT_RT kernel"), std::string::npos);
  EXPECT_EQ(vm.detail["preempt_rt"], false);
  ScratchRoot none;
  none.write("/sys/devices/system/cpu/online", "0-1\n");
  none.write("/proc/sys/kernel/version", "#1 SMP PREEMPT_DYNAMIC Debian 6.1.119-1\n");
  none.write("/proc/1/stat", "1 (init) S 0 1 1 0 -1 0 0 0 0 0 1 1 0 0 20 0 1 0 10 0 0\n");
  auto plain = preempt_rt(none.dir(), {1});
  EXPECT_EQ(plain.status, Status::ok) << plain.summary;
  EXPECT_EQ(plain.detail["preempt_rt"], false);
  EXPECT_TRUE(plain.detail["irq_threads"].empty());
  EXPECT_EQ(preempt_rt(fixture_sysroot("minimal-online-only"), {1}).status, Status::unknown);
}

TEST(CheckPreemptRt, ThreadirqsOnAnOrdinaryKernelIsNamed) {
  ScratchRoot m;
  m.write("/sys/devices/system/cpu/online", "0-1\n");
  m.write("/proc/cmdline", "root=/dev/vda threadirqs\n");
  m.write("/proc/77/stat",
          "77 (irq/24-nvme0q1) S 2 0 0 0 -1 2129984 0 0 0 0 0 0 0 0 -51 0 1 0 339 0 0 18446744073709551615 0 0 0 0 0 "
          "0 0 2147483647 0 1 0 0 17 1 50 1 0 0 0 0 0 0 0 0 0 0 0\n");
  m.write("/proc/77/status", "Name:\tirq/24-nvme0q1\nCpus_allowed_list:\t1\n");
  auto f = preempt_rt(m.dir(), {1});
  EXPECT_EQ(f.status, Status::warn) << f.summary;
  EXPECT_NE(f.summary.find("threadirqs on the command line: 1 IRQ handler thread may run on CPU 1: "
                           "irq/24-nvme0q1 (SCHED_FIFO 50)"),
            std::string::npos)
      << f.summary;
  EXPECT_EQ(f.detail["preempt_rt"], false);
  EXPECT_EQ(preempt_rt(m.dir(), {0}).status, Status::ok) << "the thread may not run on CPU 0";
}

}  // namespace
}  // namespace nw::check::testing
