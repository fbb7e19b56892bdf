// SPDX-License-Identifier: Apache-2.0
// The container rules (cpu-quota-cpuset, memory-limit, container-unpinned) on the cgroup trees of
// tests/data/cgroup: v1 and v2 unpinned containers, v1-pinned and v2-pinned ones with a quota.
#include "check/check_context.h"
#include "check/rules.h"
#include "support/check_test_util.h"

namespace nw::check::testing {
namespace {

Finding on_tree(Finding (*rule)(const CheckContext&), const std::string& tree, std::vector<int> cpus) {
  sys::Sysroot root(std::string(NW_SOURCE_DIR) + "/tests/data/cgroup/" + tree);
  auto ctx = make_context(root, cpus);
  return rule(ctx);
}

bool has_line(const std::vector<std::string>& fix, const std::string& part) {
  for (const auto& line : fix)
    if (line.find(part) != std::string::npos) return true;
  return false;
}

TEST(CheckContainerRules, QuotaWithACpusetWarnsInEitherVersion) {
  auto v1 = on_tree(check_cpu_quota_cpuset, "v1-pinned", {2, 3});
  EXPECT_EQ(v1.status, Status::warn) << v1.summary;
  EXPECT_NE(v1.summary.find("cgroup /docker/cd34 has a CPU quota of 2.00 CPUs although cpuset /docker/cd34 gives it "
                            "CPUs 2-3"),
            std::string::npos)
      << v1.summary;
  EXPECT_NE(v1.summary.find("kubernetes#70585"), std::string::npos);
  EXPECT_TRUE(has_line(v1.fix, "keep --cpuset-cpus=2-3 and drop --cpus")) << "the cpuset's CPUs, not a placeholder";
  EXPECT_TRUE(has_line(v1.fix, "echo -1 > /sys/fs/cgroup/cpu/docker/cd34/cpu.cfs_quota_us"));
  EXPECT_TRUE(has_line(v1.fix, "DisableCPUQuotaWithExclusiveCPUs"));
  auto v2 = on_tree(check_cpu_quota_cpuset, "v2-pinned", {2, 3});
  EXPECT_EQ(v2.status, Status::warn) << v2.summary;
  EXPECT_TRUE(has_line(
      v2.fix, "echo max > /sys/fs/cgroup/kubepods.slice/kubepods-pod7f3a.slice/cri-containerd-ef56.scope/cpu.max"));
  EXPECT_EQ(v2.detail["cpuset_cpus"], nlohmann::json({2, 3}));
}

TEST(CheckContainerRules, QuotaWithoutPinningIsLeftToCpuQuota) {
  // v1: a quota but a cpuset of every online CPU; v2: the pod's quota, the root's cpuset.
  for (const char* tree : {"v1", "v2"}) {
    auto f = on_tree(check_cpu_quota_cpuset, tree, {0});
    EXPECT_EQ(f.status, Status::ok) << tree << ": " << f.summary;
    EXPECT_NE(f.summary.find("holds every online CPU (0-1)"), std::string::npos) << f.summary;
  }
}

TEST(CheckContainerRules, MemoryNearTheLimitWarnsAndRoomIsInfo) {
  auto full = on_tree(check_memory_limit, "v1-pinned", {2});
  EXPECT_EQ(full.status, Status::warn) << full.summary;
  EXPECT_NE(full.summary.find("cgroup /docker/cd34 has a memory limit of 256 MiB and uses 244 MiB of it (95 %"),
            std::string::npos)
      << full.summary;
  EXPECT_TRUE(has_line(full.fix, "echo -1 > /sys/fs/cgroup/memory/docker/cd34/memory.limit_in_bytes"));
  EXPECT_TRUE(has_line(full.fix, "docker update --memory="));
  auto pod = on_tree(check_memory_limit, "v2", {0});
  EXPECT_EQ(pod.status, Status::warn) << pod.summary;
  EXPECT_NE(pod.summary.find("cgroup /kubepods.slice/pod1 (above this process's /kubepods.slice/pod1/ctr)"),
            std::string::npos)
      << pod.summary;
  EXPECT_TRUE(has_line(pod.fix, "echo max > /sys/fs/cgroup/kubepods.slice/pod1/memory.max"));
  for (const char* tree : {"v1", "v2-pinned"}) {
    auto room = on_tree(check_memory_limit, tree, {0});
    EXPECT_EQ(room.status, Status::info) << tree << ": " << room.summary;
    EXPECT_TRUE(room.fix.empty()) << tree;
    EXPECT_NE(room.summary.find("of room"), std::string::npos) << room.summary;
  }
}

TEST(CheckContainerRules, MemoryWithoutALimitIsOkAndWithoutTheControllerUnknown) {
  ScratchRoot m;
  m.write("/sys/devices/system/cpu/online", "0-1\n");
  m.write("/proc/self/mountinfo", "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n");
  m.write("/proc/self/cgroup", "4:memory:/\n");
  m.write("/sys/fs/cgroup/memory/memory.limit_in_bytes", "9223372036854771712\n");
  m.write("/sys/fs/cgroup/memory/memory.usage_in_bytes", "1073741824\n");
  sys::Sysroot root(m.dir());
  auto f = check_memory_limit(make_context(root, std::vector<int>{0}));
  EXPECT_EQ(f.status, Status::ok) << f.summary;
  EXPECT_NE(f.summary.find("no memory limit on cgroup / or above it (cgroup v1); it uses 1024 MiB"), std::string::npos)
      << f.summary;
  ScratchRoot bare;
  bare.write("/sys/devices/system/cpu/online", "0-1\n");
  sys::Sysroot none(bare.dir());
  auto ctx = make_context(none, std::vector<int>{0});
  for (auto rule : {check_memory_limit, check_cpu_quota_cpuset, check_container_unpinned})
    EXPECT_EQ(rule(ctx).status, Status::unknown) << rule(ctx).summary;
}

TEST(CheckContainerRules, AContainerSharingEveryCpuWarnsAndAPinnedOneIsOk) {
  auto docker = on_tree(check_container_unpinned, "v1", {0});
  EXPECT_EQ(docker.status, Status::warn) << docker.summary;
  EXPECT_NE(docker.summary.find("a docker container (cgroup /docker/ab12) whose cpuset /docker/ab12 holds every online "
                                "CPU (0-1)"),
            std::string::npos)
      << docker.summary;
  EXPECT_TRUE(has_line(docker.fix, "--cpuset-cpus=0 (a running one: docker update --cpuset-cpus=0 <container>)"));
  EXPECT_TRUE(has_line(docker.fix, "--cpu-manager-policy=static"));
  EXPECT_TRUE(has_line(docker.fix, "noisewatch tune never writes to a cgroup it did not create"));
  auto pod = on_tree(check_container_unpinned, "v2", {1});
  EXPECT_EQ(pod.status, Status::warn) << pod.summary;
  EXPECT_NE(pod.summary.find("a kubernetes container"), std::string::npos) << pod.summary;
  for (const char* tree : {"v1-pinned", "v2-pinned"}) {
    auto pinned = on_tree(check_container_unpinned, tree, {2});
    EXPECT_EQ(pinned.status, Status::ok) << tree << ": " << pinned.summary;
    EXPECT_NE(pinned.summary.find("pinned to CPUs 2-3"), std::string::npos) << pinned.summary;
  }
}

TEST(CheckContainerRules, NotAContainerIsOk) {
  ScratchRoot m;
  m.write("/sys/devices/system/cpu/online", "0-1\n");
  m.write("/proc/self/cgroup", "0::/user.slice/user-1000.slice/session-2.scope\n");
  sys::Sysroot root(m.dir());
  auto f = check_container_unpinned(make_context(root, std::vector<int>{0}));
  EXPECT_EQ(f.status, Status::ok) << f.summary;
  EXPECT_NE(f.summary.find("not a container"), std::string::npos);
}

}  // namespace
}  // namespace nw::check::testing
