// SPDX-License-Identifier: Apache-2.0
// `noisewatch check` inside a real podman container (issue #24 section 3): run with
// --cpuset-cpus 0 --cpus 0.5 --memory 256m on this machine's own root file system (--rootfs /:O,
// an overlay: no image registry needed), it must name the runtime and fire the rules that those
// settings call for. Skips, saying why, when podman is absent or cannot start a container here.
#include <sys/resource.h>
#include <unistd.h>

#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/run_helpers.h"

namespace nw::e2e {
namespace {

std::string which(const std::string& name) {
  for (const char* dir : {"/usr/bin/", "/usr/local/bin/", "/usr/sbin/", "/bin/"})
    if (access((dir + name).c_str(), X_OK) == 0) return dir + name;
  return "";
}

// podman run's options for this machine, or "" with `why` set. Podman raises the container's
// RLIMIT_NOFILE and RLIMIT_NPROC to its defaults, which a root without CAP_SYS_RESOURCE (this
// project's VMs) may not: lower limits are passed instead (the current open-file limit; 1024
// processes, as the current process limit was refused too on the VM, and check needs a few). crun refuses a cgroup v2
// tree holding any controller beside v1 hierarchies (hybrid mode; the VMs' has hugetlb): runc is tried then.
std::vector<std::string> podman_run(std::string& why) {
  const std::string podman = which("podman");
  if (podman.empty()) {
    why = "podman is not installed (apt-get install podman runc)";
    return {};
  }
  if (geteuid() != 0) {
    why = "needs root: a rootless container cannot be given a cpuset and a quota on cgroup v1";
    return {};
  }
  struct rlimit files {};
  getrlimit(RLIMIT_NOFILE, &files);
  const std::string nofile = std::to_string(files.rlim_cur);
  std::vector<std::string> base = {
      podman,           "run", "--rm", "--network", "none", "--ulimit", "nofile=" + nofile + ":" + nofile, "--ulimit",
      "nproc=1024:1024"};
  std::vector<std::vector<std::string>> tries = {base};
  if (const std::string runc = which("runc"); !runc.empty()) {
    tries.push_back(base);
    tries.back().insert(tries.back().begin() + 2, {"--runtime", runc});
  }
  for (const auto& t : tries) {
    auto probe = t;
    probe.insert(probe.end(), {"--rootfs", "/:O", "true"});
    Proc p = run(probe);
    if (p.status == 0) return t;
    why += (why.empty() ? "podman cannot run a container here: " : "; ") + p.err.substr(0, p.err.find('\n'));
  }
  return {};
}

TEST(PodmanE2E, CheckInsideAPinnedContainerWithAQuotaAndAMemoryLimit) {
  std::string why;
  auto cmd = podman_run(why);
  if (cmd.empty()) GTEST_SKIP() << why;
  cmd.insert(cmd.end(), {"--cpuset-cpus", "0", "--cpus", "0.5", "--memory", "256m", "--rootfs", "/:O", noisewatch(),
                         "check", "--duration", "0", "--format", "json"});
  Proc p = run(cmd);
  ASSERT_TRUE(p.status == 1 || p.status == 2) << "exit " << p.status << ": " << p.err;
  auto j = nlohmann::json::parse(p.out);
  std::map<std::string, nlohmann::json> f;
  for (const auto& x : j["findings"]) f[x["id"]] = x;
  EXPECT_EQ(j["target_cpus"], nlohmann::json({0}));
  const auto& pinned = f["container-unpinned"];
  EXPECT_EQ(pinned["status"], "ok") << pinned.dump();
  EXPECT_NE(pinned["summary"].get<std::string>().find("a podman container (cgroup /libpod_parent/libpod-"),
            std::string::npos)
      << pinned.dump();
  // podman writes /run/.containerenv empty unless --privileged: the file, without its engine.
  EXPECT_NE(pinned["summary"].get<std::string>().find("/run/.containerenv"), std::string::npos) << pinned.dump();
  EXPECT_EQ(f["cpu-quota-cpuset"]["status"], "warn") << f["cpu-quota-cpuset"].dump();
  EXPECT_EQ(f["cpu-quota-cpuset"]["detail"]["cpuset_cpus"], nlohmann::json({0}));
  EXPECT_EQ(f["cpu-quota"]["status"], "fail") << "0.5 CPU below the 1 CPU measured: " << f["cpu-quota"].dump();
  const auto& memory = f["memory-limit"];
  EXPECT_EQ(memory["status"], "info") << memory.dump();
  EXPECT_EQ(memory["detail"]["limit_bytes"], 256LL << 20);
  EXPECT_EQ(p.status, 2);
}

}  // namespace
}  // namespace nw::e2e
