// SPDX-License-Identifier: Apache-2.0
// Container detection and what a process's cgroups grant it besides CPU bandwidth, read from the
// fixture trees of tests/data/cgroup (README.md there says what each tree is).
#include <gtest/gtest.h>

#include "system/cgroup_limits.h"
#include "system/container.h"
#include "system/host_info.h"

namespace nw::sys {
namespace {

const std::string kTrees = std::string(NW_SOURCE_DIR) + "/tests/data/cgroup/";

ContainerGuess from_cgroup(const std::string& text) { return guess_container({.proc_cgroup = text}); }

TEST(Container, EachRuntimesCgroupPathNamesIt) {
  struct Case {
    const char* cgroup;
    const char* runtime;
  };
  for (const Case& c :
       {Case{"12:cpu,cpuacct:/docker/ab12\n", "docker"}, Case{"0::/system.slice/docker-ab12.scope\n", "docker"},
        Case{"0::/machine.slice/libpod-ab12.scope/container\n", "podman"}, Case{"3:cpuset:/lxc/web\n", "lxc"},
        Case{"0::/lxc.payload.web\n", "lxc"},
        Case{"0::/system.slice/containerd.service/cri-containerd-ab12.scope\n", "containerd"},
        // A pod on Docker or containerd shows its runtime too: Kubernetes wins.
        Case{"4:memory:/kubepods/burstable/pod1/ab12\n3:cpuset:/docker/ab12\n", "kubernetes"},
        Case{"0::/kubepods.slice/kubepods-pod1.slice/cri-containerd-ab12.scope\n", "kubernetes"}}) {
    auto g = from_cgroup(c.cgroup);
    EXPECT_TRUE(g.detected) << c.cgroup;
    EXPECT_EQ(g.runtime, c.runtime) << c.cgroup;
  }
  auto two = from_cgroup("4:memory:/kubepods/burstable/pod1/ab12\n3:cpuset:/docker/ab12\n");
  EXPECT_EQ(two.evidence, (std::vector<std::string>{"cgroup /kubepods/burstable/pod1/ab12", "cgroup /docker/ab12"}));
}

TEST(Container, DaemonsAndTheHostAreNotContainers) {
  for (const char* host :
       {"0::/\n", "0::/system.slice/docker.service\n", "0::/system.slice/containerd.service\n",
        "1:name=systemd:/user.slice/user-1000.slice/session-2.scope\n4:memory:/process_api/b5cd\n"}) {
    auto g = from_cgroup(host);
    EXPECT_FALSE(g.detected) << host;
    EXPECT_TRUE(g.evidence.empty()) << host;
  }
}

TEST(Container, FilesAndEnvironmentSpeakInsideACgroupNamespace) {
  // In a cgroup namespace /proc/self/cgroup says "0::/": only the files and the environment tell.
  auto docker = guess_container({.proc_cgroup = "0::/\n", .dockerenv = true});
  EXPECT_TRUE(docker.detected);
  EXPECT_EQ(docker.runtime, "docker");
  EXPECT_EQ(docker.evidence, std::vector<std::string>{"/.dockerenv"});
  auto podman = guess_container({.proc_cgroup = "0::/\n", .containerenv = "engine=\"podman-4.3.1\"\nname=\"bench\"\n"});
  EXPECT_EQ(podman.runtime, "podman");
  EXPECT_EQ(podman.evidence, std::vector<std::string>{"/run/.containerenv (engine podman-4.3.1)"});
  auto empty_env = guess_container({.proc_cgroup = "0::/\n", .containerenv = ""});  // written empty by others
  EXPECT_TRUE(empty_env.detected);
  EXPECT_EQ(empty_env.runtime, "");
  auto k8s = guess_container({.proc_cgroup = "0::/\n", .k8s_env = true});
  EXPECT_EQ(k8s.runtime, "kubernetes");
  EXPECT_EQ(k8s.evidence, std::vector<std::string>{"KUBERNETES_SERVICE_HOST"});
}

TEST(Container, ImageLeftoversInTheHostsPidNamespaceAreNoEvidence) {
  // This project's VMs: a root file system made from a Docker image (/.dockerenv), PID 2 kthreadd.
  auto vm =
      guess_container({.proc_cgroup = "0::/\n", .dockerenv = true, .containerenv = "", .host_pid_namespace = true});
  EXPECT_FALSE(vm.detected);
  EXPECT_TRUE(vm.evidence.empty());
  // The cgroup path still tells (a container run with --pid=host).
  auto shared = guess_container(
      {.proc_cgroup = "0::/system.slice/docker-ab12.scope\n", .dockerenv = true, .host_pid_namespace = true});
  EXPECT_EQ(shared.evidence, std::vector<std::string>{"cgroup /system.slice/docker-ab12.scope"});
}

TEST(Container, DetectedOnTheTreesAndUnknownWithoutProcSelf) {
  auto v1 = detect_container(Sysroot(kTrees + "v1"));
  ASSERT_TRUE(v1);
  EXPECT_EQ(v1->runtime, "docker");
  auto pinned = detect_container(Sysroot(kTrees + "v1-pinned"));
  ASSERT_TRUE(pinned);
  EXPECT_EQ(pinned->evidence, (std::vector<std::string>{"cgroup /docker/cd34", "/.dockerenv"}));
  auto pod = detect_container(Sysroot(kTrees + "v2-pinned"));
  ASSERT_TRUE(pod);
  EXPECT_EQ(pod->runtime, "kubernetes");
  EXPECT_FALSE(detect_container(Sysroot(kTrees + "does-not-exist"))) << "unknown, not \"no container\"";
}

TEST(CgroupLimits, CpusetOfTheGroupOrTheNearestAncestorWithOne) {
  auto v1 = read_cpuset(Sysroot(kTrees + "v1"));
  ASSERT_TRUE(v1);
  EXPECT_EQ(v1->group.path, "/docker/ab12");
  EXPECT_EQ(v1->group.dir, "/sys/fs/cgroup/cpuset/docker/ab12");
  EXPECT_EQ(v1->cpus, (std::vector<int>{0, 1}));
  auto pinned = read_cpuset(Sysroot(kTrees + "v1-pinned"));
  ASSERT_TRUE(pinned);
  EXPECT_EQ(pinned->cpus, (std::vector<int>{2, 3}));
  // v2 without the cpuset controller below the root: the root's effective CPUs.
  auto v2 = read_cpuset(Sysroot(kTrees + "v2"));
  ASSERT_TRUE(v2);
  EXPECT_EQ(v2->group.path, "/");
  EXPECT_EQ(v2->cpus, (std::vector<int>{0, 1}));
  auto pod = read_cpuset(Sysroot(kTrees + "v2-pinned"));
  ASSERT_TRUE(pod);
  EXPECT_EQ(pod->group.path, "/kubepods.slice/kubepods-pod7f3a.slice/cri-containerd-ef56.scope");
  EXPECT_EQ(pod->cpus, (std::vector<int>{2, 3}));
  EXPECT_FALSE(read_cpuset(Sysroot(kTrees + "does-not-exist")));
}

TEST(CgroupLimits, CpuWeightInEitherVersionsUnit) {
  auto v1 = cpu_cgroup_of(Sysroot(kTrees + "v1"));
  ASSERT_TRUE(v1);
  EXPECT_EQ(read_cpu_weight(Sysroot(kTrees + "v1"), *v1), 1024);
  auto v2 = cpu_cgroup_of(Sysroot(kTrees + "v2"));
  ASSERT_TRUE(v2);
  EXPECT_EQ(read_cpu_weight(Sysroot(kTrees + "v2"), *v2), 4);
}

TEST(CgroupLimits, MemoryLimitWithTheLeastRoomUpTheHierarchy) {
  auto v1 = read_memory_limit(Sysroot(kTrees + "v1"));
  ASSERT_TRUE(v1 && v1->limit_bytes);
  EXPECT_EQ(v1->group.path, "/docker/ab12");
  EXPECT_EQ(*v1->limit_bytes, 536870912);
  EXPECT_EQ(v1->usage_bytes, 104857600);
  // The pod's 256 MiB is nearer than the container's own "max".
  auto v2 = read_memory_limit(Sysroot(kTrees + "v2"));
  ASSERT_TRUE(v2 && v2->limit_bytes);
  EXPECT_EQ(v2->group.path, "/kubepods.slice/pod1");
  EXPECT_NEAR(v2->used(), 0.931, 0.001);
  // Same limit on pod and container: the pod holds more, so it has less room.
  auto pod = read_memory_limit(Sysroot(kTrees + "v2-pinned"));
  ASSERT_TRUE(pod && pod->limit_bytes);
  EXPECT_EQ(pod->group.path, "/kubepods.slice/kubepods-pod7f3a.slice");
  EXPECT_EQ(pod->usage_bytes, 316000000);
  EXPECT_FALSE(read_memory_limit(Sysroot(kTrees + "does-not-exist")));
}

TEST(CgroupLimits, UnlimitedIsNoLimitInEitherVersion) {
  EXPECT_FALSE(parse_memory_limit("max"));
  EXPECT_FALSE(parse_memory_limit("9223372036854771712"));  // v1, 4 KiB pages
  EXPECT_FALSE(parse_memory_limit("9223372036854710272"));  // v1, 64 KiB pages
  EXPECT_FALSE(parse_memory_limit(""));
  EXPECT_FALSE(parse_memory_limit("lots"));
  EXPECT_EQ(parse_memory_limit("536870912"), 536870912);
}

TEST(HostInfo, ContainerFieldsFromATree) {
  auto c = read_container_info(Sysroot(kTrees + "v1-pinned"));
  ASSERT_TRUE(c);
  EXPECT_TRUE(c->detected);
  EXPECT_EQ(c->runtime, "docker");
  EXPECT_EQ(c->cpuset_path, "/docker/cd34");
  EXPECT_EQ(c->cpuset_cpus, (std::vector<int>{2, 3}));
  EXPECT_EQ(c->memory_path, "/docker/cd34");
  EXPECT_EQ(c->memory_limit_bytes, 268435456);
  EXPECT_EQ(c->memory_usage_bytes, 255852544);
  auto h = read_host_info(kTrees + "v1-pinned");
  ASSERT_TRUE(h.cgroup && h.container);
  EXPECT_EQ(h.cgroup->weight, 1024);
  EXPECT_EQ(h.cgroup->quota_us, 200000);
  EXPECT_FALSE(read_container_info(Sysroot(kTrees + "does-not-exist")));
}

}  // namespace
}  // namespace nw::sys
