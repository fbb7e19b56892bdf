// SPDX-License-Identifier: Apache-2.0
// A container made by hand from cgroup v1 groups (issue #24 section 3): a cpuset, cpu and memory
// group of its own, named as podman names its containers (libpod-<id>) so that noisewatch takes
// it for one. `check` run inside fires cpu-quota-cpuset, memory-limit and container-unpinned as
// the group's settings say, and the record of `run` carries the same facts in host.container.
// Needs root and v1 cpuset, cpu and memory hierarchies under /sys/fs/cgroup (skips otherwise).
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/files.h"
#include "support/run_helpers.h"

namespace nw::e2e {
namespace {

const std::string kCgroups = "/sys/fs/cgroup/";
const std::vector<std::string> kControllers = {"cpuset", "cpu", "memory"};

std::string unsupported() {
  if (geteuid() != 0) return "needs root to create cgroups";
  for (const auto& c : kControllers) {
    struct statfs fs {};
    if (statfs((kCgroups + c).c_str(), &fs) != 0 || fs.f_type != CGROUP_SUPER_MAGIC)
      return kCgroups + c + " is not a cgroup v1 hierarchy";
  }
  return "";
}

bool write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text << std::flush;
  return bool(out);
}

std::string first_line(const std::string& path) {
  std::string s = test::slurp(path);
  return s.substr(0, s.find('\n'));
}

struct Settings {
  std::string cpus;             // cpuset.cpus ("" = the root's: every online CPU)
  std::optional<int> quota_us;  // per 100 ms
  std::optional<long long> memory_bytes;
};

// One group per controller at the hierarchy's root, removed however the test ends: the
// processes left in them are moved back to the root first (rmdir needs them empty).
class HandMadeContainer {
 public:
  explicit HandMadeContainer(const Settings& s) : name_("libpod-nwe2e" + std::to_string(getpid())) {
    for (const auto& c : kControllers) {
      std::string dir = kCgroups + c + "/" + name_;
      if (mkdir(dir.c_str(), 0755) != 0) {
        error_ = "mkdir " + dir + " failed";
        return;
      }
      made_.push_back(c);
    }
    // A new v1 cpuset has no CPUs and no memory nodes: both must be set before a task may join.
    const std::string cpus = s.cpus.empty() ? first_line(kCgroups + "cpuset/cpuset.cpus") : s.cpus;
    set("cpuset", "cpuset.cpus", cpus);
    set("cpuset", "cpuset.mems", first_line(kCgroups + "cpuset/cpuset.mems"));
    if (s.quota_us) {
      set("cpu", "cpu.cfs_period_us", "100000");
      set("cpu", "cpu.cfs_quota_us", std::to_string(*s.quota_us));
    }
    if (s.memory_bytes) set("memory", "memory.limit_in_bytes", std::to_string(*s.memory_bytes));
  }
  ~HandMadeContainer() {
    for (const auto& c : made_) {
      std::string dir = kCgroups + c + "/" + name_;
      bool gone = false;
      for (int attempt = 0; attempt < 50 && !gone; ++attempt) {
        std::istringstream pids(test::slurp(dir + "/cgroup.procs"));
        for (std::string pid; pids >> pid;) write_file(kCgroups + c + "/cgroup.procs", pid);
        gone = rmdir(dir.c_str()) == 0 || errno == ENOENT;
        if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(100));  // a task still exiting
      }
      if (!gone) ADD_FAILURE() << "could not remove " << dir;
    }
  }
  HandMadeContainer(const HandMadeContainer&) = delete;
  HandMadeContainer& operator=(const HandMadeContainer&) = delete;

  const std::string& error() const { return error_; }
  std::string path() const { return "/" + name_; }

  // Runs `command` (a shell command line) as a member of every group, as a container's process.
  Proc run(const std::string& command) const {
    std::string join;
    for (const auto& c : kControllers) join += "echo $$ > " + kCgroups + c + "/" + name_ + "/cgroup.procs && ";
    return e2e::run({"/bin/sh", "-c", join + command});
  }

 private:
  void set(const std::string& controller, const std::string& file, const std::string& value) {
    if (error_.empty() && !write_file(kCgroups + controller + "/" + name_ + "/" + file, value))
      error_ = "cannot write " + value + " to " + controller + "/" + name_ + "/" + file;
  }

  std::string name_, error_;
  std::vector<std::string> made_;
};

struct Check {
  int status = -1;
  std::map<std::string, nlohmann::json> findings;
};

Check check_in(const HandMadeContainer& c, const std::string& before = "") {
  Proc p = c.run(before + "exec " + noisewatch() + " check --duration 0 --format json");
  Check out{p.status, {}};
  EXPECT_TRUE(p.status == 0 || p.status == 1 || p.status == 2) << "exit " << p.status << ": " << p.err;
  auto j = nlohmann::json::parse(p.out);
  for (const auto& f : j["findings"]) out.findings[f["id"]] = f;
  return out;
}

class ContainerE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto why = unsupported(); !why.empty()) GTEST_SKIP() << why;
  }
};

TEST_F(ContainerE2E, QuotaWithACpusetWarnsAndThePinnedContainerIsOk) {
  HandMadeContainer c({"0", 50000, 1LL << 30});
  ASSERT_EQ(c.error(), "");
  auto r = check_in(c);
  const auto& quota_cpuset = r.findings["cpu-quota-cpuset"];
  EXPECT_EQ(quota_cpuset["status"], "warn") << quota_cpuset.dump();
  EXPECT_EQ(quota_cpuset["detail"]["cgroup"], c.path());
  EXPECT_EQ(quota_cpuset["detail"]["cpuset_cpus"], nlohmann::json({0}));
  EXPECT_EQ(r.findings["cpu-quota"]["status"], "fail") << "0.5 CPU below the 1 CPU measured";
  EXPECT_EQ(r.findings["container-unpinned"]["status"], "ok") << r.findings["container-unpinned"].dump();
  const auto& memory = r.findings["memory-limit"];
  EXPECT_EQ(memory["status"], "info") << memory.dump();
  EXPECT_EQ(memory["detail"]["limit_bytes"], 1LL << 30);
  EXPECT_EQ(r.status, 2);
}

TEST_F(ContainerE2E, AContainerOnEveryCpuWarnsWithThePinningFix) {
  HandMadeContainer c({});
  ASSERT_EQ(c.error(), "");
  auto r = check_in(c);
  const auto& unpinned = r.findings["container-unpinned"];
  ASSERT_EQ(unpinned["status"], "warn") << unpinned.dump();
  EXPECT_EQ(unpinned["detail"]["runtime"], "podman");
  EXPECT_EQ(unpinned["detail"]["cpuset"], c.path());
  std::string fix = unpinned["fix"].dump();
  EXPECT_NE(fix.find("--cpuset-cpus="), std::string::npos) << fix;
  EXPECT_NE(fix.find("--cpu-manager-policy=static"), std::string::npos) << fix;
  EXPECT_EQ(r.findings["cpu-quota-cpuset"]["status"], "ok");
  EXPECT_EQ(r.findings["memory-limit"]["status"], "ok") << "no limit on the group or the root";
}

TEST_F(ContainerE2E, MemoryFilledToTheLimitWarns) {
  // 64 MiB written into a file from a 32 MiB group: its page cache fills the limit and stays there.
  HandMadeContainer c({"0", std::nullopt, 32LL << 20});
  ASSERT_EQ(c.error(), "");
  const std::string file = temp_path("fill");
  auto r = check_in(c, "head -c 64M /dev/zero > " + file + " && ");
  unlink(file.c_str());
  const auto& memory = r.findings["memory-limit"];
  EXPECT_EQ(memory["status"], "warn") << memory.dump();
  EXPECT_GE(memory["detail"]["usage_bytes"].get<double>(), 0.9 * (32 << 20)) << memory.dump();
  EXPECT_NE(memory["fix"].dump().find("/sys/fs/cgroup/memory" + c.path() + "/memory.limit_in_bytes"), std::string::npos)
      << memory.dump();
}

TEST_F(ContainerE2E, RunRecordsTheContainerInTheHost) {
  HandMadeContainer c({"0", 80000, 1LL << 30});
  ASSERT_EQ(c.error(), "");
  const std::string json = temp_path("run.json");
  Proc p = c.run("exec " + noisewatch() + " --runs 1 -q --json " + json + " -- true");
  ASSERT_EQ(p.status, 0) << p.err;
  auto rec = load_json(json);
  unlink(json.c_str());
  const auto& host = rec["host"];
  ASSERT_TRUE(host.contains("container")) << host.dump();
  const auto& ct = host["container"];
  EXPECT_EQ(ct["detected"], true);
  EXPECT_EQ(ct["runtime"], "podman");
  EXPECT_EQ(ct["evidence"][0], "cgroup " + c.path()) << ct.dump();
  EXPECT_EQ(ct["cpuset"], nlohmann::json({{"path", c.path()}, {"cpus", {0}}}));
  EXPECT_EQ(ct["memory"]["path"], c.path());
  EXPECT_EQ(ct["memory"]["limit_bytes"], 1LL << 30);
  EXPECT_GT(ct["memory"]["usage_bytes"].get<int64_t>(), 0);
  EXPECT_EQ(host["cgroup"]["weight"], 1024) << "cpu.shares of a new v1 group";
  EXPECT_EQ(host["cgroup"]["quota_us"], 80000);
}

}  // namespace
}  // namespace nw::e2e
