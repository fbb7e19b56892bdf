// SPDX-License-Identifier: Apache-2.0
// End-to-end tests of `noisewatch bisect` on repositories made here with git: 32 commits of a small
// C benchmark where one commit adds 3 % more work (more on a noisy machine: planted_slowdown),
// built with cc -O2 in each commit's own work tree, while a hog strikes the benchmark CPU at random
// times. Also: no slowdown between the endpoints, a commit that does not build, and git's own
// driver with `compare --git-bisect`.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>

#include "compare/live_decision.h"
#include "record/run_record.h"
#include "stats/descriptive.h"
#include "support/run_helpers.h"

namespace nw::e2e {
namespace {

namespace fs = std::filesystem;

Proc sh(const std::string& script) { return run({"/bin/sh", "-c", script}); }

// The benchmark's turns: 10-25 ms of work on VMs of the CI kind. Exec, a few ms on some of them,
// must not dominate: with 8e6 turns 10 % more work read as 4.5 % on one, and its runs of ~4 ms
// differed by 14 % (pair_noise) where these differ by 6 %.
constexpr double kTurns = 3e7;

std::string bench_source(double loops, bool broken = false) {
  return "#include <stdio.h>\n"
         "int main(void) {\n"
         "  volatile unsigned long x = 0;\n"
         "  for (unsigned long i = 0; i < " +
         std::to_string(long(loops)) +
         "UL; ++i) x += i;\n"
         "  return x == 42 ? 1 : 0;\n" +
         std::string(broken ? "  this does not compile\n" : "") + "}\n";
}

// This machine's run-to-run noise for the good benchmark as bisect sees it: the spread of
// log(B/A) over `pairs` pairs of `noisewatch compare` on CPU 1 with the good build on both sides, each
// run timed as bisect times it (undisturbed: wall less what noise took; compare::complete_pairs),
// 1.4826 x their median absolute deviation (bisect decides on medians, and one run that meets a
// stray interrupt must not count as the machine's noise). Measured once per test process, on a
// quiet machine: the hog of the random-noise test comes later, so a subtraction that failed to
// take the hog out would make that test fail rather than plant a larger slowdown. (Timed bare,
// without noisewatch, identical runs on one VM differed by 0.023 where noisewatch's undisturbed
// times differed by 0.019-0.056 from one measurement to the next: exec and the run's set-up vary,
// and bisect sees those.)
double measure_pair_noise(int pairs, const std::string& where) {
  const std::string dir = temp_path("bisect-noise");
  fs::create_directories(dir);
  std::ofstream(dir + "/bench.c") << bench_source(kTurns);
  double noise = 0;
  if (sh("cc -O2 -o " + dir + "/bench " + dir + "/bench.c").status != 0) {
    ADD_FAILURE() << "cc could not build the benchmark";
  } else {
    const std::string json = dir + "/pairs.json";
    Proc p = run({noisewatch(), "compare", "--cpu", "1", "--min-runs", std::to_string(pairs), "--max-runs",
                  std::to_string(pairs), "-q", "--json", json, "--", dir + "/bench", ":::", dir + "/bench"});
    // Shown the same (0) or not told apart in those pairs (2); anything else measured nothing.
    EXPECT_TRUE(p.status == 0 || p.status == 2) << p.err;
    std::vector<double> r;
    if (fs::exists(json))
      for (const auto& pair : compare::complete_pairs(load_run_record(json), compare::PairTime::undisturbed))
        r.push_back(std::log(pair.b_ns / pair.a_ns));
    EXPECT_GE(r.size(), size_t(pairs));
    noise = 1.4826 * stats::mad(r);
  }
  fs::remove_all(dir);
  std::cout << "[ noise    ] pair noise " << where << ": " << noise << " (log ratio, undisturbed times)\n";
  return noise;
}

// A hog on CPU 1 for random stretches at random times while it runs (killed with its group).
struct RandomHog {
  pid_t pid;
  RandomHog() {
    const std::string loop = "while :; do " + bin("nw_hog") +
                             " 0.$(( $(od -An -N1 -tu1 /dev/urandom) % 4 + 1 )) 1; sleep "
                             "0.$(( $(od -An -N1 -tu1 /dev/urandom) % 9 + 1 )); done";
    pid = spawn({"/usr/bin/setsid", "/bin/sh", "-c", loop}, "/dev/null", "/dev/null");
  }
  ~RandomHog() {
    kill(-pid, SIGKILL);
    waitpid(pid, nullptr, 0);
  }
};

double pair_noise() {
  static const double noise = measure_pair_noise(20, "on this machine");
  return noise;
}

// The slowdown the slow commit plants: 3 %, or four times the pair noise bisect faces where that is
// larger, so that a step can be decided within bisect's pair budget (60 pairs). Why four: the
// runs' fixed part (exec, set-up) dilutes the plant (5.7 % more work read as 1.03-1.047), and a
// step decides against half the regression, not against 1. History, VMs of the CI kind,
// 2026-12-06: 3 % read as bad/good 1.005-1.037 at the endpoints and nothing was decided in 120
// pairs; three times the noise (6.9 % and 5.7 %) left steps undecided at 60 pairs. Quiet
// machines keep 3 %.
constexpr double kPlantOverNoise = 4;
double planted_slowdown() { return std::max(0.03, kPlantOverNoise * pair_noise()); }

// Where identical runs differ by more than 7.5 % at one standard deviation (a planted slowdown
// over 30 %), something else on CPU 1 decides every step (0.24 with stray hog loops left running
// there: bad commits read 1.30-1.36 against an endpoint of 1.68). The decision tests say so.
constexpr double kMostPlanted = 0.3;
#define SKIP_IF_THE_HOST_DECIDES()                                                             \
  if (planted_slowdown() > kMostPlanted)                                                       \
  GTEST_SKIP() << "this machine's own run-to-run noise (" << pair_noise() << " in log ratio) " \
               << "is too large for a bisect to be decided on it"

struct Repo {
  std::string dir;
  std::vector<std::string> commits;  // commits[i] is commit i (0: the good one)
  ~Repo() { fs::remove_all(dir); }
};

// 32 commits: commit `slow` multiplies the work by 1 + slowdown (0: none does); commit
// `broken` (0: none) does not compile, the next one fixes it.
std::unique_ptr<Repo> make_repo(int slow, int broken = 0, double slowdown = planted_slowdown()) {
  auto r = std::make_unique<Repo>();
  r->dir = temp_path("bisect-repo");
  fs::create_directories(r->dir);
  const std::string git = "git -C " + r->dir + " -c user.name=t -c user.email=t@t ";
  EXPECT_EQ(sh(git + "init -q").status, 0);
  double work = 1.0;
  for (int i = 0; i < 32; ++i) {
    if (slow > 0 && i == slow) work *= 1 + slowdown;
    std::ofstream(r->dir + "/bench.c") << bench_source(kTurns * work, i == broken && broken > 0);
    std::ofstream(r->dir + "/NOTES", std::ios::app) << "commit " << i << "\n";
    EXPECT_EQ(sh(git + "add -A && " + git + "commit -q -m 'commit " + std::to_string(i) + "'").status, 0);
    r->commits.push_back(sh(git + "rev-parse HEAD").out.substr(0, 40));
  }
  return r;
}

std::vector<std::string> bisect_argv(const Repo& r, const std::string& json) {
  return {noisewatch(), "bisect",
          "--repo",     r.dir,
          "--good",     r.commits.front(),
          "--bad",      r.commits.back(),
          "--build",    "cc -O2 -o bench bench.c",
          "--cpu",      "1",
          "-q",         "--json",
          json,         "--",
          "./bench"};
}

TEST(BisectE2E, NamesTheSlowCommitDespiteRandomNoise) {
  SKIP_IF_THE_HOST_DECIDES();
  // What bisect faces under this hog: undisturbed times still vary more than on a quiet machine
  // (0.044 against 0.019 on one VM: the unattributed part of each run, exec and set-up, varies
  // more, and the benchmark's own CPU time rises while the hog shares its CPU). The slowdown is
  // planted above that, measured as bisect measures. (On another VM, when bisect decided on wall
  // times, which the hog disturbs, 1 of 10 trials was right, with runs a third as long.)
  double hog_noise = 0;
  {
    RandomHog hog;
    hog_noise = measure_pair_noise(60, "under the hog");
  }
  const double slowdown = std::max(planted_slowdown(), kPlantOverNoise * hog_noise);
  if (slowdown > kMostPlanted)
    GTEST_SKIP() << "undisturbed times under the hog differ by " << hog_noise << ": too noisy";
  std::mt19937 rng(20261205);
  std::uniform_int_distribution<int> pick(2, 30);
  int right = 0, tested = 0;
  double seconds = 0;
  const int trials = 10;
  for (int t = 0; t < trials; ++t) {
    const int slow = pick(rng);
    auto repo = make_repo(slow, 0, slowdown);
    const std::string json = temp_path("bisect.json");
    Proc p;
    {
      RandomHog hog;
      p = run(bisect_argv(*repo, json));
    }
    auto log = load_json(json);
    fs::remove(json);
    SCOPED_TRACE(log.dump().substr(0, 2000));
    EXPECT_TRUE(p.status == 0 || p.status == 2) << p.err;
    const bool ok = log["first_bad"] == repo->commits[slow];
    right += ok;
    if (!ok) std::cout << "[ trial    ] commit " << slow << " is the slow one; bisect said: " << log.dump() << "\n";
    for (const auto& s : log["steps"]) tested += s["role"] == "step";
    seconds += log["seconds"].get<double>();
    // Its work trees are gone, the user's own tree untouched.
    EXPECT_FALSE(fs::exists(log["cache"].get<std::string>()));
    EXPECT_EQ(sh("git -C " + repo->dir + " status --porcelain").out, "");
    const std::string trees = sh("git -C " + repo->dir + " worktree list").out;
    EXPECT_EQ(std::count(trees.begin(), trees.end(), '\n'), 1) << trees;
  }
  std::cout << "[ figures  ] bisect: " << right << " of " << trials << " right, " << double(tested) / trials
            << " commits tested on average (log2(32) + 4 = 9), " << seconds / trials << " s each\n";
  EXPECT_GE(right, 9);
  EXPECT_LE(double(tested) / trials, 9.0);
}

TEST(BisectE2E, NoSlowdownNamesNoCommit) {
  auto repo = make_repo(0);
  const std::string json = temp_path("bisect-none.json");
  Proc p = run(bisect_argv(*repo, json));
  // Shown the same (1), or not told apart (2): either way no commit is blamed.
  EXPECT_TRUE(p.status == 1 || p.status == 2) << p.err;
  auto log = load_json(json);
  EXPECT_TRUE(log["outcome"] == "no-regression" || log["outcome"] == "undecided") << log.dump();
  EXPECT_TRUE(log["first_bad"].is_null());
  EXPECT_TRUE(log["candidates"].empty());
  EXPECT_NE(p.err.find("no commit to blame"), std::string::npos) << p.err;
  fs::remove(json);
}

TEST(BisectE2E, ACommitThatDoesNotBuildIsSkippedAndTheCulpritStillFound) {
  SKIP_IF_THE_HOST_DECIDES();
  // The build breaks at commit 15, the middle the search tries first, and is fixed at 16.
  auto repo = make_repo(22, 15);
  const std::string json = temp_path("bisect-broken.json");
  Proc p = run(bisect_argv(*repo, json));
  auto log = load_json(json);
  EXPECT_EQ(p.status, 0) << p.err << log.dump();
  EXPECT_EQ(log["first_bad"], repo->commits[22]) << log.dump();
  bool skipped = false;
  for (const auto& s : log["steps"]) skipped |= s["commit"] == repo->commits[15] && s["verdict"] == "build failed";
  EXPECT_TRUE(skipped) << log["steps"].dump();
  fs::remove(json);
}

TEST(BisectE2E, BadInputIsOneLineAnd125) {
  auto repo = make_repo(5);
  Proc unknown =
      run({noisewatch(), "bisect", "--repo", repo->dir, "--good", "nosuchrev", "--bad", "HEAD", "--", "./bench"});
  EXPECT_EQ(unknown.status, 125);
  EXPECT_NE(unknown.err.find("--good nosuchrev: no such commit"), std::string::npos) << unknown.err;
  Proc reversed = run({noisewatch(), "bisect", "--repo", repo->dir, "--good", repo->commits.back(), "--bad",
                       repo->commits.front(), "--", "./bench"});
  EXPECT_EQ(reversed.status, 125);
  EXPECT_NE(reversed.err.find("not an ancestor"), std::string::npos) << reversed.err;
  Proc no_bench = run({noisewatch(), "bisect", "--repo", repo->dir, "--good", repo->commits.front(), "--bad", "HEAD"});
  EXPECT_EQ(no_bench.status, 125);
}

// git's own driver: the good build kept aside, each commit built by the script, and
// `compare --git-bisect PERCENT` (the planted slowdown) answering good (0), bad (1) or skip (125).
TEST(BisectE2E, GitBisectRunWithCompareGitBisect) {
  SKIP_IF_THE_HOST_DECIDES();
  const int slow = 11;
  auto repo = make_repo(slow);
  const std::string good_dir = temp_path("good-build");
  fs::create_directories(good_dir);
  ASSERT_EQ(sh("git -C " + repo->dir + " show " + repo->commits.front() + ":bench.c > " + good_dir +
               "/bench.c && cc -O2 -o " + good_dir + "/bench " + good_dir + "/bench.c")
                .status,
            0);
  const std::string script = temp_path("step.sh");
  std::ofstream(script) << "#!/bin/sh\ncc -O2 -o bench bench.c || exit 125\nexec " << noisewatch()
                        << " compare --cpu 1 -q --confidence 99 --git-bisect " << std::lround(planted_slowdown() * 100)
                        << " -- " << good_dir << "/bench ::: ./bench\n";
  fs::permissions(script, fs::perms::owner_all);
  const std::string git = "git -C " + repo->dir + " ";
  Proc p = sh(git + "bisect start " + repo->commits.back() + " " + repo->commits.front() + " && " + git +
              "bisect run " + script);
  EXPECT_EQ(p.status, 0) << p.out << p.err;
  EXPECT_NE(p.out.find(repo->commits[slow] + " is the first bad commit"), std::string::npos) << p.out << p.err;
  sh(git + "bisect reset");
  fs::remove_all(good_dir);
  fs::remove(script);
}

}  // namespace
}  // namespace nw::e2e
