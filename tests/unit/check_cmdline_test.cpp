// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include "system/kernel_cmdline.h"

namespace nw::sys {
namespace {

TEST(CheckCmdline, ParsesParametersFlagsAndStopsAtInitArguments) {
  auto c = parse_kernel_cmdline("BOOT_IMAGE=/vmlinuz ro quiet nohz_full=2-7 -- --firecracker-init nohz_full=1\n");
  EXPECT_TRUE(c.has("ro"));
  EXPECT_EQ(c.get("ro"), "");
  EXPECT_EQ(c.get("nohz_full"), "2-7") << "arguments after -- belong to init";
  EXPECT_FALSE(c.has("--firecracker-init"));
}

TEST(CheckCmdline, IsolcpusWithFlags) {
  auto c = parse_kernel_cmdline("isolcpus=nohz,managed_irq,2-4,6");
  std::vector<std::string> flags;
  auto cpus = c.isolcpus(&flags);
  ASSERT_TRUE(cpus);
  EXPECT_EQ(*cpus, (std::vector<int>{2, 3, 4, 6}));
  EXPECT_EQ(flags, (std::vector<std::string>{"nohz", "managed_irq"}));
  EXPECT_FALSE(parse_kernel_cmdline("quiet").isolcpus());
}

TEST(CheckCmdline, CpuListsWithLastCpuShorthandAndBareRcuNocbs) {
  std::vector<int> online{0, 1, 2, 3};
  auto c = parse_kernel_cmdline("nohz_full=1-N rcu_nocbs");
  EXPECT_EQ(c.cpus("nohz_full", online), (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(c.cpus("rcu_nocbs", online), online) << "bare rcu_nocbs offloads every CPU";
  EXPECT_FALSE(c.cpus("irqaffinity", online));
  EXPECT_FALSE(parse_kernel_cmdline("nohz_full=x-y").cpus("nohz_full", online));
}

}  // namespace
}  // namespace nw::sys
