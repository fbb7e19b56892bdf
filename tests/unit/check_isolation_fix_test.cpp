// SPDX-License-Identifier: Apache-2.0
// The boot-parameter fixes (isolcpus=, nohz_full=, rcu_nocbs=) on whole-machine trees: they
// never take every online CPU from housekeeping, they say which CPUs stay, and since the edit
// replaces a parameter's old value, they keep the CPUs it already covered.
#include <algorithm>
#include <set>

#include "check/check_context.h"
#include "support/check_test_util.h"
#include "system/cpulist.h"

namespace nw::check::testing {
namespace {

struct BootFix {
  std::vector<int> named;  // the CPUs the parameter lists
  std::string note;        // the line saying which CPUs stay for housekeeping
};

const std::map<std::string, std::string> kParam = {
    {"cpu-isolation", "isolcpus=domain,managed_irq,"}, {"nohz-full", "nohz_full="}, {"rcu-nocbs", "rcu_nocbs="}};

// The CPUs the fix's GRUB line puts after its parameter; nullopt when no such line.
std::optional<BootFix> boot_fix(const Finding& f) {
  const std::string& param = kParam.at(f.id);
  for (const auto& line : f.fix) {
    auto at = line.find("GRUB_CMDLINE_LINUX");
    auto p = line.find(param);
    if (at == std::string::npos || p == std::string::npos) continue;
    auto from = p + param.size();
    BootFix b;
    b.named = sys::parse_cpulist(line.substr(from, line.find(' ', from) - from));
    if (!f.fix.empty() && f.fix[0].rfind("# ", 0) == 0) b.note = f.fix[0];
    return b;
  }
  return std::nullopt;
}

std::vector<int> ints(const std::string& list) { return sys::parse_cpulist(list); }

// The 2-CPU VM of issue #12: it was told `isolcpus=domain,managed_irq,0-1`.
TEST(CheckIsolationFix, TwoCpuVmKeepsCpu0ForHousekeeping) {
  auto r = check_sysroot(fixture_sysroot("vm-firecracker-2cpu"));
  ASSERT_EQ(r.target_cpus, ints("0-1"));
  for (const auto& [id, param] : kParam) {
    const Finding* f = r.find(id);
    ASSERT_NE(f, nullptr);
    ASSERT_EQ(f->status, Status::warn) << id;
    auto fix = boot_fix(*f);
    ASSERT_TRUE(fix) << id << ": no boot-parameter line in " << nlohmann::json(f->fix).dump();
    EXPECT_EQ(fix->named, ints("1")) << id;
    EXPECT_EQ(fix->note,
              "# CPU 0 stays for housekeeping (timers, RCU, IRQs, kernel threads): the benchmark CPUs covered every "
              "online CPU, so CPU 0 is left out of the isolated set")
        << id;
  }
  EXPECT_NE(r.find("rcu-nocbs")->fix[1].find("rcu_nocbs=1 rcu_nocb_poll "), std::string::npos)
      << r.find("rcu-nocbs")->fix[1];
}

TEST(CheckIsolationFix, LaptopNamesTheTargetAndTheRestStay) {
  auto one = check_sysroot(fixture_sysroot("laptop-hybrid-untuned"), std::vector<int>{2});
  auto fix = boot_fix(*one.find("cpu-isolation"));
  ASSERT_TRUE(fix);
  EXPECT_EQ(fix->named, ints("2"));
  EXPECT_EQ(fix->note, "# CPU 0-1,3-13 stay for housekeeping (timers, RCU, IRQs, kernel threads)");
  // Every CPU as target (the default on this untuned laptop): CPU 0 stays.
  auto all = check_sysroot(fixture_sysroot("laptop-hybrid-untuned"));
  ASSERT_EQ(all.target_cpus.size(), 14u);
  for (const auto& [id, param] : kParam) {
    auto f = boot_fix(*all.find(id));
    ASSERT_TRUE(f) << id;
    EXPECT_EQ(f->named, ints("1-13")) << id;
  }
}

// CPUs 2-7 are isolated already; asking for all eight must still leave CPU 0.
TEST(CheckIsolationFix, ServerWithEveryCpuAsTargetKeepsOne) {
  auto r = check_sysroot(fixture_sysroot("server-tuned"), ints("0-7"));
  for (const auto& [id, param] : kParam) {
    const Finding* f = r.find(id);
    ASSERT_EQ(f->status, Status::warn) << id;
    auto fix = boot_fix(*f);
    ASSERT_TRUE(fix) << id;
    EXPECT_EQ(fix->named, ints("1-7")) << id;
    EXPECT_NE(fix->note.find("# CPU 0 stays for housekeeping"), std::string::npos) << id << ": " << fix->note;
  }
}

// CPUs 2-7 are isolated already; the fix for CPU 1 replaces isolcpus=2-7 with a list that keeps
// them, and CPU 0 is the one left.
TEST(CheckIsolationFix, ServerKeepsTheCpusItIsolatesAlready) {
  auto r = check_sysroot(fixture_sysroot("server-tuned"), ints("1"));
  const Finding* f = r.find("cpu-isolation");
  ASSERT_EQ(f->status, Status::warn);
  auto fix = boot_fix(*f);
  ASSERT_TRUE(fix);
  EXPECT_EQ(fix->named, ints("1-7"));
  EXPECT_EQ(fix->note.rfind("# CPU 0 stays for housekeeping", 0), 0u) << fix->note;
}

// Whatever the tree and the targets, the CPUs the fix names (the edit replaces the old value:
// they are what is isolated after the reboot) never cover every online CPU, the note names CPUs
// that are left, and every CPU isolated before stays isolated unless it is the one left.
TEST(CheckIsolationFix, NeverIsolatesEveryOnlineCpu) {
  const std::vector<std::string> trees = {"vm-firecracker-2cpu", "laptop-hybrid-untuned", "server-tuned",
                                          "epyc-numa2-amd-pstate"};
  int fixes_seen = 0;
  for (const auto& tree : trees) {
    std::string dir = fixture_sysroot(tree);
    sys::Sysroot root(dir);
    auto online = make_context(root, std::nullopt).topo.online;
    std::vector<std::optional<std::vector<int>>> target_sets = {std::nullopt, online, std::vector<int>{online.front()},
                                                                std::vector<int>{online.back()}};
    for (const auto& targets : target_sets) {
      auto r = check_sysroot(dir, targets);
      for (const auto& [id, param] : kParam) {
        const Finding* f = r.find(id);
        if (f->status != Status::warn) continue;
        auto fix = boot_fix(*f);
        ASSERT_TRUE(fix) << tree << " " << id;
        ++fixes_seen;
        std::set<int> covered(fix->named.begin(), fix->named.end());
        EXPECT_LT(covered.size(), online.size()) << tree << " " << id << ": " << fix->note;
        ASSERT_EQ(fix->note.rfind("# CPU ", 0), 0u) << tree << " " << id << " does not say which CPUs stay";
        auto stay = ints(fix->note.substr(6, fix->note.find(' ', 6) - 6));
        for (int c : stay) {
          EXPECT_TRUE(std::binary_search(online.begin(), online.end(), c)) << tree << " " << id;
          EXPECT_EQ(covered.count(c), 0u) << tree << " " << id << ": CPU " << c << " is named and said to stay";
        }
        auto before = make_context(root, targets).isolated.value_or(std::vector<int>{});
        if (id == "cpu-isolation")
          for (int c : before)
            if (std::find(stay.begin(), stay.end(), c) == stay.end())
              EXPECT_EQ(covered.count(c), 1u) << tree << ": CPU " << c << " was isolated and the fix drops it";
      }
    }
  }
  EXPECT_GT(fixes_seen, 20) << "the trees should give many fixes to check";
}

TEST(CheckIsolationFix, OneOnlineCpuGetsNoBootParameter) {
  ScratchRoot m;
  m.write("/sys/devices/system/cpu/online", "0\n");
  m.write("/sys/devices/system/cpu/isolated", "\n");
  m.write("/proc/cmdline", "ro quiet\n");
  auto r = check_sysroot(m.dir());
  const Finding* f = r.find("cpu-isolation");
  ASSERT_EQ(f->status, Status::warn);
  ASSERT_EQ(f->fix.size(), 1u) << nlohmann::json(f->fix).dump();
  EXPECT_NE(f->fix[0].find("# only one online CPU: nothing can be isolated"), std::string::npos) << f->fix[0];
  EXPECT_FALSE(boot_fix(*f));
}

}  // namespace
}  // namespace nw::check::testing
