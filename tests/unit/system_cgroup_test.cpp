// SPDX-License-Identifier: Apache-2.0
// The CPU controller's view of a process, read from fixture trees of cgroup v1 and v2
// (tests/data/cgroup/README.md): the group, its quota or its ancestor's, cpu.stat in either unit.
#include <gtest/gtest.h>

#include "system/cgroup.h"

namespace nw::sys {
namespace {

const std::string kTrees = std::string(NW_SOURCE_DIR) + "/tests/data/cgroup/";

TEST(Cgroup, V1ContainerWithItsOwnQuota) {
  Sysroot root(kTrees + "v1");
  auto cg = cpu_cgroup_of(root);
  ASSERT_TRUE(cg);
  EXPECT_EQ(cg->version, 1);
  EXPECT_EQ(cg->path, "/docker/ab12");
  EXPECT_EQ(cg->dir, "/sys/fs/cgroup/cpu/docker/ab12");
  auto q = quota_group(root, *cg);
  ASSERT_TRUE(q);
  EXPECT_EQ(q->group.path, "/docker/ab12");
  auto quota = read_cpu_quota(root, q->group);
  ASSERT_TRUE(quota && quota->quota_us);
  EXPECT_EQ(*quota->quota_us, 150000);
  EXPECT_EQ(q->quota.quota_us, quota->quota_us) << "the quota found is the one read";
  EXPECT_DOUBLE_EQ(quota->cpus(), 1.5);
  auto stat = read_throttle_stat(root, q->group);
  ASSERT_TRUE(stat);
  EXPECT_EQ(stat->nr_throttled, 22u);
  EXPECT_EQ(stat->throttled_ns, 1510000000u);
}

TEST(Cgroup, V2ContainerThrottledByItsPod) {
  Sysroot root(kTrees + "v2");
  auto cg = cpu_cgroup_of(root);
  ASSERT_TRUE(cg);
  EXPECT_EQ(cg->version, 2);
  EXPECT_EQ(cg->path, "/kubepods.slice/pod1/ctr");
  auto unlimited = read_cpu_quota(root, *cg);
  ASSERT_TRUE(unlimited);
  EXPECT_FALSE(unlimited->quota_us);
  auto q = quota_group(root, *cg);
  ASSERT_TRUE(q);
  EXPECT_EQ(q->group.path, "/kubepods.slice/pod1");
  EXPECT_EQ(*read_cpu_quota(root, q->group)->quota_us, 50000);
  EXPECT_EQ(q->quota.quota_us, 50000);
  auto stat = read_throttle_stat(root, q->group);
  ASSERT_TRUE(stat);
  EXPECT_EQ(stat->throttled_ns, 250000000u);  // throttled_usec
}

TEST(Cgroup, AncestorsStopAtTheMountsRoot) {
  CpuCgroup cg{1, "/a/b", "/m/a/b", "/m", "/"};
  auto all = self_and_ancestors(cg);
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[1].dir, "/m/a");
  EXPECT_EQ(all[2].path, "/");
  EXPECT_EQ(all[2].dir, "/m");
  // In a cgroup namespace the mount shows only the container's subtree.
  CpuCgroup ns{1, "/docker/x/sub", "/m/sub", "/m", "/docker/x"};
  auto visible = self_and_ancestors(ns);
  ASSERT_EQ(visible.size(), 2u);
  EXPECT_EQ(visible[1].dir, "/m");
}

TEST(Cgroup, ParsesCpuMaxAndRejectsGarbage) {
  auto unlimited = parse_cpu_max("max 100000\n");
  ASSERT_TRUE(unlimited);
  EXPECT_FALSE(unlimited->quota_us);
  auto half = parse_cpu_max("50000 100000");
  ASSERT_TRUE(half && half->quota_us);
  EXPECT_DOUBLE_EQ(half->cpus(), 0.5);
  EXPECT_FALSE(parse_cpu_max(""));
  EXPECT_FALSE(parse_cpu_max("lots 100000"));
  EXPECT_FALSE(parse_cpu_max("50000 0"));
}

TEST(Cgroup, NoCpuControllerIsNoGroup) {
  Sysroot root(kTrees + "does-not-exist");
  EXPECT_FALSE(cpu_cgroup_of(root));
}

}  // namespace
}  // namespace nw::sys
