// SPDX-License-Identifier: Apache-2.0
// A container is a machine of its own: inside a cgroup v1 cpuset holding CPU 0 only (what
// `docker run --cpuset-cpus 0` makes), `check` measures CPU 0 and `run` pins to it, naming the
// other CPUs as not available rather than failing on them. Needs root and a v1 cpuset mount. And
// an affinity inherited narrower than the cpuset is no limit.
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/files.h"
#include "support/run_helpers.h"
#include "system/cpulist.h"

namespace nw::e2e {
namespace {

const std::string kCpusetRoot = "/sys/fs/cgroup/cpuset";

// Why no v1 cpuset cgroup can be made here; "" when one can.
std::string cpuset_unsupported() {
  if (geteuid() != 0) return "needs root to create a cgroup";
  struct statfs fs {};
  if (statfs(kCpusetRoot.c_str(), &fs) != 0 || fs.f_type != CGROUP_SUPER_MAGIC)
    return kCpusetRoot + " is not a cgroup v1 mount";
  if (access((kCpusetRoot + "/cpuset.cpus").c_str(), W_OK) != 0) return kCpusetRoot + " is not a cpuset hierarchy";
  return "";
}

bool write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text << std::flush;
  return bool(out);
}

// A child cpuset of the root holding `cpus`, removed when it goes out of scope, whatever the test
// did: processes left in it are moved back to the root first (rmdir needs it empty).
class CpusetCgroup {
 public:
  explicit CpusetCgroup(const std::string& cpus) : path_(kCpusetRoot + "/nw-e2e-" + std::to_string(getpid())) {
    if (mkdir(path_.c_str(), 0755) != 0) {
      error_ = "mkdir " + path_ + " failed";
      return;
    }
    // A new v1 cpuset starts with no CPUs and no memory nodes: both must be set before a task may join.
    std::string mems = test::slurp(kCpusetRoot + "/cpuset.mems");
    if (!write_file(path_ + "/cpuset.cpus", cpus) || !write_file(path_ + "/cpuset.mems", mems))
      error_ = "cannot set cpuset.cpus=" + cpus + " / cpuset.mems=" + mems + " in " + path_;
  }
  ~CpusetCgroup() {
    for (int attempt = 0; attempt < 50; ++attempt) {
      std::istringstream pids(test::slurp(path_ + "/cgroup.procs"));
      for (std::string pid; pids >> pid;) write_file(kCpusetRoot + "/cgroup.procs", pid);
      if (rmdir(path_.c_str()) == 0 || errno == ENOENT) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));  // a task still exiting
    }
    ADD_FAILURE() << "could not remove " << path_;
  }
  CpusetCgroup(const CpusetCgroup&) = delete;
  CpusetCgroup& operator=(const CpusetCgroup&) = delete;

  const std::string& error() const { return error_; }

  // Runs `command` (a shell command line) as a member of this cpuset, as a container would.
  Proc run(const std::string& command) const {
    return e2e::run({"/bin/sh", "-c", "echo $$ > " + path_ + "/cgroup.procs && exec " + command});
  }

 private:
  std::string path_, error_;
};

class CpusetE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto why = cpuset_unsupported(); !why.empty()) GTEST_SKIP() << why;
    cgroup_.emplace("0");
    ASSERT_EQ(cgroup_->error(), "");
    // The online CPUs the cpuset leaves out, which the output must name.
    for (int c : sys::parse_cpulist(test::slurp("/sys/devices/system/cpu/online")))
      if (c != 0) others_.push_back(c);
  }

  std::optional<CpusetCgroup> cgroup_;
  std::vector<int> others_;
};

TEST_F(CpusetE2E, CheckMeasuresTheCpusetsCpuAndExitsByItsFindings) {
  Proc r = cgroup_->run(noisewatch() + " check --duration 1 --format json");
  ASSERT_TRUE(r.status == 0 || r.status == 1 || r.status == 2) << "exit " << r.status << ": " << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["cpus"].size(), 1u) << r.out;
  EXPECT_EQ(j["cpus"][0]["cpu"], 0);
  EXPECT_GT(j["cpus"][0]["measured_ns"].get<uint64_t>(), 900'000'000u);
  EXPECT_EQ(j["target_cpus"], nlohmann::json({0}));
  EXPECT_EQ(j["unavailable_cpus"], nlohmann::json(others_));
  EXPECT_EQ(j["recommended_cpu"], 0);
}

TEST_F(CpusetE2E, RunPinsToTheCpusetsCpuAndNamesTheOthers) {
  std::string json = temp_path("run.json");
  Proc r = cgroup_->run(noisewatch() + " --runs 2 --json " + json + " -- true");
  ASSERT_EQ(r.status, 0) << r.err;
  auto rec = load_json(json);
  unlink(json.c_str());
  EXPECT_EQ(rec["cpus"], nlohmann::json({0}));
  EXPECT_EQ(rec["runs"].size(), 3u);  // 2 + the default warm-up
  if (!others_.empty()) {
    std::string why = rec["cpu_reason"];
    EXPECT_NE(why.find("not available to this process (cpuset/affinity)"), std::string::npos) << why;
    EXPECT_NE(r.err.find("not available to this process (cpuset/affinity)"), std::string::npos) << r.err;
  }
}

TEST_F(CpusetE2E, AnExplicitCpuOutsideTheCpusetIsAOneLineError) {
  if (others_.empty()) GTEST_SKIP() << "needs a second online CPU";
  const std::string cpu = std::to_string(others_.front());
  for (const std::string& args : {" check --duration 0 --cpu " + cpu, " --cpu " + cpu + " --runs 1 -- true"}) {
    Proc r = cgroup_->run(noisewatch() + args);
    EXPECT_EQ(r.status, 125) << args << ": " << r.err;
    EXPECT_NE(r.err.find("not available to this process (cpuset/affinity allows CPU 0)"), std::string::npos)
        << args << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << ": " << r.err;
  }
}

// Under isolcpus every process inherits an affinity without the isolated CPUs, yet moving onto one
// is allowed and is the point: what limits noisewatch is the cpuset, not the affinity it was
// started with. `taskset -c 0` gives this machine that inherited affinity.
TEST(InheritedAffinityE2E, IsNoLimitTheCpusetIs) {
  const auto online = sys::parse_cpulist(test::slurp("/sys/devices/system/cpu/online"));
  if (std::find(online.begin(), online.end(), 1) == online.end()) GTEST_SKIP() << "needs CPU 1 online";
  const std::string json = temp_path("inherited.json");
  Proc r = run({"/usr/bin/taskset", "-c", "0", noisewatch(), "--cpu", "1", "--runs", "1", "--warmup", "0", "--json",
                json, "--", "/bin/true"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(load_json(json)["cpus"], nlohmann::json({1}));
  unlink(json.c_str());
  Proc c = run({"/usr/bin/taskset", "-c", "0", noisewatch(), "check", "--duration", "0", "--format", "json"});
  ASSERT_TRUE(c.status == 0 || c.status == 1 || c.status == 2) << "exit " << c.status << ": " << c.err;
  EXPECT_EQ(nlohmann::json::parse(c.out)["unavailable_cpus"], nlohmann::json::array()) << c.out;
}

}  // namespace
}  // namespace nw::e2e
