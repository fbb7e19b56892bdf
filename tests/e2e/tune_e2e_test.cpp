// SPDX-License-Identifier: Apache-2.0
// `noisewatch tune` and the per-benchmark knobs of `run`, end to end: the real binary on this VM.
// Live tests change real machine state, only through the knobs this VM has (ASLR, THP, workqueue
// cpumask, default IRQ affinity, timer migration), with a journal in a temporary directory, and
// always put every value back, even when an assertion fails (LiveState's destructor).
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

#include "support/run_helpers.h"

namespace nw::e2e {
namespace {

namespace fs = std::filesystem;
using nw::test::slurp;

const std::string kLiveKnobs = "aslr-off,transparent-hugepages,workqueue-cpumask,irq-default-affinity,timer-migration";
const std::vector<std::string> kLiveFiles = {
    "/proc/sys/kernel/randomize_va_space",         "/proc/sys/kernel/timer_migration",
    "/sys/kernel/mm/transparent_hugepage/enabled", "/sys/kernel/mm/transparent_hugepage/defrag",
    "/sys/devices/virtual/workqueue/cpumask",      "/proc/irq/default_smp_affinity"};

// The chosen word of "always [madvise] never", or the content itself.
std::string writable(const std::string& content) {
  auto open = content.find('['), close = content.find(']');
  if (open != std::string::npos && close != std::string::npos) return content.substr(open + 1, close - open - 1);
  return content;
}

// The machine's values of the live knobs, saved first and put back last whatever happens, and a
// journal in a temporary directory that never collides with /run/noisewatch/tune.json.
class LiveState {
 public:
  LiveState() {
    char tmpl[] = "/tmp/nw-tune-e2e-XXXXXX";
    dir_ = mkdtemp(tmpl);
    for (const auto& f : kLiveFiles) saved_[f] = slurp(f);
  }
  ~LiveState() {
    run({noisewatch(), "tune", "restore", "--journal", journal()});
    for (const auto& [f, v] : saved_)
      if (slurp(f) != v) std::ofstream(f) << writable(v);
    fs::remove_all(dir_);
  }
  std::string journal() const { return dir_ + "/tune.json"; }
  std::string path(const std::string& name) const { return dir_ + "/" + name; }
  const std::map<std::string, std::string>& saved() const { return saved_; }
  // Files whose content differs from what was saved.
  std::vector<std::string> changed() const {
    std::vector<std::string> out;
    for (const auto& [f, v] : saved_)
      if (slurp(f) != v) out.push_back(f);
    return out;
  }

 private:
  std::string dir_;
  std::map<std::string, std::string> saved_;
};

bool wait_for_file(const std::string& path, int seconds) {
  for (int i = 0; i < seconds * 50; ++i) {
    if (fs::exists(path) && fs::file_size(path) > 0) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

// `run --tune` of many long repetitions in the background; returns once the benchmark runs (its
// pid in live.path("pid")), so the tuning is in place and the session forwards signals.
pid_t start_tuned_run(const LiveState& live) {
  pid_t nw = spawn({noisewatch(), "--cpu", "1", "--runs", "50", "--warmup", "0", "-q", "--tune", "--tune-only",
                    kLiveKnobs, "--journal", live.journal(), "--", bin("nw_spin"), "300", live.path("pid")},
                   live.path("out"), live.path("err"));
  if (!wait_for_file(live.path("pid"), 60)) ADD_FAILURE() << "the benchmark never started: " << slurp(live.path("err"));
  return nw;
}

TEST(TuneE2E, SysrootApplyStatusRestoreRoundTrip) {
  char tmpl[] = "/tmp/nw-tune-e2e-XXXXXX";
  std::string dir = mkdtemp(tmpl);
  std::string orig = std::string(NW_SOURCE_DIR) + "/tests/data/sysroots/tune-epyc-smt-amd-pstate";
  fs::copy(orig, dir + "/root", fs::copy_options::recursive);
  Proc a = run({noisewatch(), "tune", "apply", "--sysroot", dir + "/root", "--cpu", "2-3"});
  EXPECT_EQ(a.status, 0) << a.err;
  EXPECT_NE(a.out.find("applied    turbo-off"), std::string::npos) << a.out;
  // rcu_nocbs=2-3 is on the tree's command line already: the edit sets only the others.
  EXPECT_NE(a.out.find("&isolcpus=domain,managed_irq,2-3 nohz_full=2-3 irqaffinity=0-1,4-7 kthread_cpus=0-1,4-7 /"),
            std::string::npos)
      << a.out;
  EXPECT_EQ(a.out.find("rcu_nocb_poll"), std::string::npos) << a.out;
  // The journal sits in the tree: restore finds it with --sysroot alone.
  EXPECT_TRUE(fs::exists(dir + "/root/run/noisewatch/tune.json"));
  Proc s = run({noisewatch(), "tune", "status", "--sysroot", dir + "/root"});
  EXPECT_EQ(s.status, 0) << s.err;
  EXPECT_NE(s.out.find("benchmark CPU 2-3"), std::string::npos) << s.out;
  EXPECT_NE(s.out.find("Restore pending"), std::string::npos) << s.out;
  Proc r = run({noisewatch(), "tune", "restore", "--sysroot", dir + "/root"});
  EXPECT_EQ(r.status, 0) << r.err;
  fs::remove_all(dir + "/root/run");
  Proc diff = run({"/usr/bin/diff", "-r", orig, dir + "/root"});
  EXPECT_EQ(diff.status, 0) << "the tree differs after restore:\n" << diff.out;
  Proc again = run({noisewatch(), "tune", "restore", "--sysroot", dir + "/root"});
  EXPECT_EQ(again.status, 0);
  EXPECT_NE(again.out.find("nothing to restore"), std::string::npos) << again.out;
  fs::remove_all(dir);
}

TEST(TuneE2E, BadOptionsAreOneLineErrors) {
  Proc p = run({noisewatch(), "tune", "apply", "--dry-run", "--only", "no-such-knob"});
  EXPECT_EQ(p.status, 125);
  EXPECT_NE(p.err.find("unknown knob 'no-such-knob'"), std::string::npos) << p.err;
  p = run({noisewatch(), "tune", "apply", "--dry-run", "--only", "sched-fifo"});
  EXPECT_EQ(p.status, 125);
  EXPECT_NE(p.err.find("noisewatch run --fifo"), std::string::npos) << p.err;
  p = run({noisewatch(), "--fifo", "5", "--nice", "3", "--", "/bin/true"});
  EXPECT_EQ(p.status, 125);
  EXPECT_NE(p.err.find("--fifo and --nice contradict"), std::string::npos) << p.err;
  p = run({noisewatch(), "--env", "NOEQUALS", "--", "/bin/true"});
  EXPECT_EQ(p.status, 125);
  EXPECT_NE(p.err.find("expected NAME=VALUE"), std::string::npos) << p.err;
  p = run({noisewatch(), "--fifo", "100", "--", "/bin/true"});
  EXPECT_EQ(p.status, 125) << p.err;
}

TEST(TuneE2E, LiveApplyStatusRestore) {
  LiveState live;
  Proc a = run({noisewatch(), "tune", "apply", "--cpu", "1", "--only", kLiveKnobs, "--journal", live.journal()});
  ASSERT_EQ(a.status, 0) << a.out << a.err;
  EXPECT_EQ(slurp("/proc/sys/kernel/randomize_va_space"), "0\n");
  EXPECT_EQ(slurp("/proc/sys/kernel/timer_migration"), "0\n");
  EXPECT_NE(slurp("/sys/kernel/mm/transparent_hugepage/enabled").find("[never]"), std::string::npos);
  EXPECT_EQ(slurp("/sys/devices/virtual/workqueue/cpumask"), "1\n");
  EXPECT_EQ(slurp("/proc/irq/default_smp_affinity"), "1\n");
  auto j = load_json(live.journal());
  EXPECT_EQ(j["schema"], "noisewatch.tune/1");
  EXPECT_EQ(j["cpus"], nlohmann::json::array({1}));
  for (const auto& c : j["changes"]) EXPECT_EQ(c["before"], live.saved().at(c["path"])) << c.dump();

  Proc s = run({noisewatch(), "tune", "status", "--journal", live.journal()});
  EXPECT_EQ(s.status, 0) << s.err;
  for (const char* id :
       {"aslr-off", "timer-migration", "transparent-hugepages", "workqueue-cpumask", "irq-default-affinity"}) {
    auto at = s.out.find(std::string("\n  ") + id + " ");
    ASSERT_NE(at, std::string::npos) << id << "\n" << s.out;
    auto line = s.out.substr(at + 1, s.out.find('\n', at + 1) - at - 1);
    EXPECT_NE(line.find("tuned*"), std::string::npos) << line;
  }
  // A second apply would stack: refused.
  Proc twice = run({noisewatch(), "tune", "apply", "--cpu", "1", "--only", "aslr-off", "--journal", live.journal()});
  EXPECT_EQ(twice.status, 125);
  EXPECT_NE(twice.err.find("undo it first"), std::string::npos) << twice.err;

  Proc r = run({noisewatch(), "tune", "restore", "--journal", live.journal()});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_EQ(live.changed(), std::vector<std::string>{}) << "restore must give back the same bytes";
  EXPECT_FALSE(fs::exists(live.journal()));
}

TEST(TuneE2E, RunTuneAppliesForTheRunAndRestoresAfter) {
  LiveState live;
  std::string json = live.path("run.json");
  // The benchmark reads the ASLR setting: it sees the tuned value in every run.
  Proc p = run({noisewatch(), "--cpu", "1", "--runs", "2", "--warmup", "0", "--json", json, "--tune", "--tune-only",
                kLiveKnobs, "--journal", live.journal(), "--", "/bin/cat", "/proc/sys/kernel/randomize_va_space"});
  ASSERT_EQ(p.status, 0) << p.err;
  EXPECT_EQ(p.out, "0\n0\n");
  EXPECT_NE(p.err.find("tuning restored (6 values put back)"), std::string::npos) << p.err;
  EXPECT_EQ(live.changed(), std::vector<std::string>{});
  EXPECT_FALSE(fs::exists(live.journal()));
  auto rec = load_json(json);
  ASSERT_TRUE(rec.contains("setup")) << rec.dump().substr(0, 400);
  EXPECT_EQ(rec["setup"]["tune"]["changes"].size(), 6u);
  EXPECT_EQ(rec["setup"]["tune"]["journal"], live.journal());
}

TEST(TuneE2E, RunTuneRestoresOnSigint) {
  LiveState live;
  pid_t nw = start_tuned_run(live);
  EXPECT_TRUE(fs::exists(live.journal()));
  EXPECT_EQ(slurp("/proc/sys/kernel/randomize_va_space"), "0\n");
  kill(nw, SIGINT);
  int st = 0;
  waitpid(nw, &st, 0);
  EXPECT_EQ(shell_status(st), 130) << slurp(live.path("err"));
  EXPECT_EQ(live.changed(), std::vector<std::string>{}) << slurp(live.path("err"));
  EXPECT_FALSE(fs::exists(live.journal()));
}

// kill -9 leaves the machine tuned and the journal on disk; `tune restore` then puts it back,
// and a later `run --tune` would have done the same before tuning again.
TEST(TuneE2E, RunTuneKilledThenRestored) {
  for (bool by_next_run : {false, true}) {
    LiveState live;
    pid_t nw = start_tuned_run(live);
    kill(nw, SIGKILL);
    waitpid(nw, nullptr, 0);
    // The benchmark outlives noisewatch: stop it, it is ours.
    int bench = std::stoi(slurp(live.path("pid")));
    kill(bench, SIGKILL);
    EXPECT_TRUE(fs::exists(live.journal()));
    EXPECT_EQ(slurp("/proc/sys/kernel/randomize_va_space"), "0\n");
    EXPECT_FALSE(live.changed().empty());
    if (by_next_run) {
      Proc next = run({noisewatch(), "--cpu", "1", "--runs", "1", "--warmup", "0", "--tune", "--tune-only", kLiveKnobs,
                       "--journal", live.journal(), "--", "/bin/true"});
      EXPECT_EQ(next.status, 0) << next.err;
      EXPECT_NE(next.err.find("restoring the tuning a killed noisewatch left behind"), std::string::npos) << next.err;
    } else {
      // `tune apply` does not stack on it either.
      Proc apply = run({noisewatch(), "tune", "apply", "--only", "aslr-off", "--journal", live.journal()});
      EXPECT_EQ(apply.status, 125);
      Proc r = run({noisewatch(), "tune", "restore", "--journal", live.journal()});
      EXPECT_EQ(r.status, 0) << r.out << r.err;
      EXPECT_NE(r.out.find("6 values put back"), std::string::npos) << r.out;
    }
    EXPECT_EQ(live.changed(), std::vector<std::string>{}) << (by_next_run ? "next run --tune" : "tune restore");
    EXPECT_FALSE(fs::exists(live.journal()));
  }
}

// The [stack] mapping of the benchmark itself (cat /proc/self/maps) is where ASLR shows.
std::vector<std::string> stacks(const std::string& maps_output) {
  std::vector<std::string> out;
  for (const auto& l : lines(maps_output))
    if (l.find("[stack]") != std::string::npos) out.push_back(l.substr(0, l.find(' ')));
  return out;
}

TEST(TuneE2E, NoAslrGivesTheSameStackInEveryRun) {
  Proc fixed = run({noisewatch(), "--cpu", "1", "--runs", "4", "--warmup", "0", "-q", "--no-aslr", "--", "/bin/cat",
                    "/proc/self/maps"});
  ASSERT_EQ(fixed.status, 0) << fixed.err;
  auto s = stacks(fixed.out);
  ASSERT_EQ(s.size(), 4u) << fixed.out;
  EXPECT_EQ(std::set<std::string>(s.begin(), s.end()).size(), 1u) << fixed.out;
  if (slurp("/proc/sys/kernel/randomize_va_space") == "0\n") GTEST_SKIP() << "ASLR is off machine-wide right now";
  Proc random =
      run({noisewatch(), "--cpu", "1", "--runs", "4", "--warmup", "0", "-q", "--", "/bin/cat", "/proc/self/maps"});
  ASSERT_EQ(random.status, 0) << random.err;
  auto r = stacks(random.out);
  ASSERT_EQ(r.size(), 4u);
  EXPECT_GT(std::set<std::string>(r.begin(), r.end()).size(), 1u) << "without --no-aslr the stack moves";
}

// Fields of /proc/self/stat after the command name: 19 nice, 41 policy.
std::string stat_field(const std::string& stat, int field) {
  std::istringstream rest(stat.substr(stat.rfind(')') + 2));
  std::string v;
  for (int i = 3; i <= field && rest >> v; ++i) {
  }
  return v;
}

TEST(TuneE2E, FifoAndNiceReachTheBenchmark) {
  Proc fifo = run({noisewatch(), "--cpu", "1", "--runs", "1", "--warmup", "0", "-q", "--fifo", "5", "--", "/bin/cat",
                   "/proc/self/stat"});
  ASSERT_EQ(fifo.status, 0) << fifo.err;
  EXPECT_EQ(stat_field(fifo.out, 41), "1") << "SCHED_FIFO is policy 1: " << fifo.out;
  EXPECT_EQ(stat_field(fifo.out, 18), "-6") << "priority field of a FIFO task is -1 - rt_priority: " << fifo.out;
  Proc nice = run({noisewatch(), "--cpu", "1", "--runs", "1", "--warmup", "0", "-q", "--nice", "7", "--", "/bin/cat",
                   "/proc/self/stat"});
  ASSERT_EQ(nice.status, 0) << nice.err;
  EXPECT_EQ(stat_field(nice.out, 19), "7") << nice.out;
  EXPECT_EQ(stat_field(nice.out, 41), "0") << nice.out;
}

TEST(TuneE2E, CleanEnvPassesOnlyTheStatedSet) {
  std::string json = temp_path("env.json");
  Proc p = run({noisewatch(), "--cpu", "1", "--runs", "1", "--warmup", "0", "-q", "--clean-env", "--env", "FOO=bar",
                "--env", "LANG=C.UTF-8", "--json", json, "--", "/usr/bin/env"});
  ASSERT_EQ(p.status, 0) << p.err;
  std::set<std::string> names;
  for (const auto& l : lines(p.out)) names.insert(l.substr(0, l.find('=')));
  EXPECT_EQ(names, (std::set<std::string>{"PATH", "HOME", "LANG", "FOO"})) << p.out;
  EXPECT_NE(p.out.find("LANG=C.UTF-8\n"), std::string::npos) << "--env replaces LANG=C";
  EXPECT_NE(p.out.find("FOO=bar\n"), std::string::npos);
  auto rec = load_json(json);
  EXPECT_EQ(rec["setup"]["clean_env"], true);
  EXPECT_EQ(rec["setup"]["env"], nlohmann::json::array({"FOO", "LANG"}));
  unlink(json.c_str());
}

}  // namespace
}  // namespace nw::e2e
