// SPDX-License-Identifier: Apache-2.0
// `noisewatch check` and `snapshot` end to end on this machine: the real binary, the real
// /proc and /sys, the real noise probe. Needs root (real-time probe threads, eBPF).
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/files.h"

namespace {

using nw::test::slurp;

const std::string kBin = std::string(NW_BINARY_DIR) + "/noisewatch";
const std::string kWaker = std::string(NW_BINARY_DIR) + "/check_waker";

struct Result {
  int status = -1;
  std::string out, err;
};

struct TempDir {
  std::string path;
  TempDir() {
    char tmpl[] = "/tmp/nw-check-e2e-XXXXXX";
    path = mkdtemp(tmpl);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

Result run(const std::string& args) {
  TempDir t;
  std::string cmd = kBin + " " + args + " >" + t.path + "/out 2>" + t.path + "/err";
  int rc = std::system(cmd.c_str());
  Result r;
  r.status = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  r.out = slurp(t.path + "/out");
  r.err = slurp(t.path + "/err");
  return r;
}

std::map<std::string, std::string> statuses(const nlohmann::json& j) {
  std::map<std::string, std::string> m;
  for (const auto& f : j["findings"]) m[f["id"]] = f["status"];
  return m;
}

TEST(CheckE2E, LiveCheckOnThisVm) {
  auto r = run("check --duration 1 --format json");
  ASSERT_TRUE(r.status == 0 || r.status == 1 || r.status == 2) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["schema"], "noisewatch.check/1");
  EXPECT_EQ(j["exit_status"], r.status);
  auto s = statuses(j);
  EXPECT_EQ(s.size(), 25u) << "24 configuration findings and measured-noise";
  // A Firecracker guest: hypervisor flag, no cpufreq, no power supply, no thermal counters.
  EXPECT_EQ(s["virtualization"], "warn");
  EXPECT_EQ(s["cpu-governor"], "unknown");
  EXPECT_EQ(s["turbo-boost"], "unknown");
  EXPECT_EQ(s["power-supply"], "info");
  EXPECT_EQ(s["thermal-throttling"], "unknown");
  EXPECT_EQ(s["smt"], "ok");
  // Not PREEMPT_RT: ACPI's GED handler threads at most, which warn through irq-affinity instead.
  EXPECT_NE(s["preempt-rt"], "warn");
  int ncpu = int(j["target_cpus"].size());
  ASSERT_EQ(int(j["cpus"].size()), ncpu);
  double quietest = 1e6;
  for (const auto& c : j["cpus"]) {
    EXPECT_GE(c["measured_ns"].get<double>(), 0.9e9);
    EXPECT_GE(c["noise_ppm"].get<double>(), 0);
    EXPECT_LE(c["noise_ppm"].get<double>(), 1e6);
    quietest = std::min(quietest, c["noise_ppm"].get<double>());
  }
  // The only rule that can fail here is measured-noise (other helpers' builds share this VM),
  // and it fails exactly when even the quietest CPU lost 10%.
  EXPECT_EQ(s["measured-noise"], quietest >= 100'000 ? "fail" : quietest >= 10'000 ? "warn" : "ok") << quietest;
  EXPECT_EQ(r.status, s["measured-noise"] == "fail" ? 2 : 1) << "virtualization warns; only measured-noise can fail";
  EXPECT_FALSE(j["recommendation_reason"].get<std::string>().empty());
}

TEST(CheckE2E, SnapshotCopyChecksLikeTheLiveMachine) {
  TempDir t;
  std::string dir = t.path + "/snap";
  auto snap = run("snapshot " + dir);
  ASSERT_EQ(snap.status, 0) << snap.err;
  auto live = run("check --duration 0 --format json");
  auto copy = run("check --sysroot " + dir + " --format json");
  ASSERT_EQ(copy.status, live.status) << copy.err;
  auto a = statuses(nlohmann::json::parse(live.out)), b = statuses(nlohmann::json::parse(copy.out));
  // The load average moves between the two commands (other work on this VM): skip that one only.
  // The exact byte-for-byte equivalence, load included, is CheckSnapshot in the unit tests.
  a.erase("load");
  b.erase("load");
  EXPECT_EQ(a, b);
  EXPECT_TRUE(std::filesystem::exists(dir + "/proc/cmdline"));
  EXPECT_TRUE(std::filesystem::exists(dir + "/sys/devices/system/cpu/online"));
  // A second snapshot into the same directory would mix two machines' states: refused.
  auto again = run("snapshot " + dir);
  EXPECT_EQ(again.status, 125);
}

TEST(CheckE2E, PrometheusFileIsValidForPromtool) {
  TempDir t;
  std::string file = t.path + "/noisewatch.prom";
  auto r = run("check --duration 0.5 --format prometheus -o " + file);
  ASSERT_TRUE(r.status == 0 || r.status == 1 || r.status == 2) << r.err;
  EXPECT_EQ(r.out, "") << "-o leaves stdout empty";
  std::string text = slurp(file);
  EXPECT_NE(text.find("noisewatch_check_status{check=\"virtualization\"} 1"), std::string::npos);
  EXPECT_NE(text.find("noisewatch_cpu_noise_ratio{cpu=\"0\"}"), std::string::npos);
  int rc = std::system(("promtool check metrics < " + file + " >" + t.path + "/lint 2>&1").c_str());
  EXPECT_EQ(WEXITSTATUS(rc), 0) << slurp(t.path + "/lint");
  EXPECT_EQ(slurp(t.path + "/lint"), "");
}

void expect_one_line_error(const Result& r, const std::string& what) {
  EXPECT_EQ(r.status, 125) << r.out << r.err;
  EXPECT_EQ(r.err.rfind("noisewatch: ", 0), 0u) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(what), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
}

TEST(CheckE2E, BadInputIsExit125WithOneLine) {
  expect_one_line_error(run("check --sysroot /nonexistent/dir"), "--sysroot /nonexistent/dir: no such directory");
  expect_one_line_error(run("check --cpu 99 --duration 0"), "CPU 99 is not online");
  expect_one_line_error(run("check --duration -1"), "--duration -1 is negative");
  expect_one_line_error(run("check --cpu x --duration 0"), "is not a CPU list");
  expect_one_line_error(run("check --priority fifo:0 --duration 0"), "--priority");
  expect_one_line_error(run("check --format xml"), "xml");
  TempDir t;
  expect_one_line_error(run("check --duration 0 -o " + t.path + "/missing/dir/out.txt"),
                        "does not exist; create it or write elsewhere");
}

bool is_fifo(pid_t pid) { return sched_getscheduler(pid) == SCHED_FIFO; }

// One trial: a SCHED_FIFO thread on `waker_cpu` wakes every 100 us for 10 us of work while the
// probe threads measure both CPUs. Returns noise_ppm per CPU.
std::map<int, double> trial_with_waker(int waker_cpu) {
  pid_t pid = fork();
  if (pid == 0) {
    std::string cpu = std::to_string(waker_cpu);
    execl(kWaker.c_str(), "check_waker", cpu.c_str(), "100", "10", "6", "2", (char*)nullptr);
    _exit(127);
  }
  // Wait until the waker runs real-time, or the real-time probe threads would starve its start.
  for (int i = 0; i < 500 && !is_fifo(pid); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  EXPECT_TRUE(is_fifo(pid)) << "check_waker did not switch to SCHED_FIFO";
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  auto r = run("check --cpu 0-1 --duration 1.5 --priority fifo:1 --no-attribution --format json");
  kill(pid, SIGTERM);
  waitpid(pid, nullptr, 0);
  std::map<int, double> ppm;
  if (r.out.empty()) {
    ADD_FAILURE() << r.err;
    return ppm;
  }
  auto j = nlohmann::json::parse(r.out);
  for (const auto& c : j["cpus"]) ppm[c["cpu"].get<int>()] = c["noise_ppm"].get<double>();
  EXPECT_EQ(ppm.size(), 2u) << r.out;
  return ppm;
}

// The ranking sees a periodic noise source: the waker's CPU ranks below the other CPU. The
// probe threads run SCHED_FIFO (--priority fifo:1) so that the ordinary threads of whatever
// else runs on this shared VM (the load balancer spreads them over both CPUs) do not drown the
// signal; the waker alternates between the CPUs so CPU identity cannot explain the result.
TEST(CheckE2E, PeriodicWakerMakesItsCpuRankBelowTheOther) {
  ASSERT_TRUE(std::filesystem::exists(kWaker)) << "build the check_waker target first";
  if (sysconf(_SC_NPROCESSORS_ONLN) < 2) GTEST_SKIP() << "needs two CPUs";
  int wins = 0, trials = 5;
  std::vector<double> margin;
  for (int i = 0; i < trials; ++i) {
    int w = i % 2 == 0 ? 1 : 0, other = 1 - w;
    auto ppm = trial_with_waker(w);
    if (ppm.size() != 2) continue;
    margin.push_back(ppm[w] - ppm[other]);
    if (ppm[w] > ppm[other]) ++wins;
    std::printf("trial %d: waker on CPU %d: %.0f ppm vs CPU %d: %.0f ppm\n", i, w, ppm[w], other, ppm[other]);
  }
  ASSERT_EQ(int(margin.size()), trials);
  std::sort(margin.begin(), margin.end());
  EXPECT_GT(margin[trials / 2], 0) << "median margin";
  EXPECT_GE(wins, 4) << "the waker's CPU ranked below the other in " << wins << " of " << trials << " trials";
}

}  // namespace

namespace {

// Colours only on a terminal, and never with NO_COLOR: `script` gives the command a pseudo-TTY.
TEST(CheckE2E, TextColoursOnATerminalUnlessNoColor) {
  if (std::system("command -v script >/dev/null 2>&1") != 0) GTEST_SKIP() << "script(1) not installed";
  TempDir t;
  auto tty = [&](const std::string& env) {
    std::string cmd = env + " script -qec '" + kBin + " check --duration 0' /dev/null >" + t.path + "/tty 2>&1";
    std::system(cmd.c_str());
    return slurp(t.path + "/tty");
  };
  std::string coloured = tty("env -u NO_COLOR");
  EXPECT_NE(coloured.find("\x1b["), std::string::npos) << coloured.substr(0, 300);
  std::string plain = tty("NO_COLOR=1");
  EXPECT_EQ(plain.find("\x1b["), std::string::npos);
  EXPECT_NE(plain.find("virtualization"), std::string::npos);
  auto piped = run("check --duration 0");
  EXPECT_EQ(piped.out.find("\x1b["), std::string::npos) << "no colours into a pipe";
}

}  // namespace

namespace {

// With the eBPF probe, the gaps on the waker's CPU are charged to the waker by name.
TEST(CheckE2E, GapsAreAttributedToTheWaker) {
  ASSERT_TRUE(std::filesystem::exists(kWaker)) << "build the check_waker target first";
  pid_t pid = fork();
  if (pid == 0) {
    execl(kWaker.c_str(), "check_waker", "1", "100", "10", "5", "2", (char*)nullptr);
    _exit(127);
  }
  for (int i = 0; i < 500 && !is_fifo(pid); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  auto r = run("check --cpu 1 --duration 1 --priority fifo:1 --format json");
  kill(pid, SIGTERM);
  waitpid(pid, nullptr, 0);
  auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["cpus"].size(), 1u);
  const auto& cpu = j["cpus"][0];
  ASSERT_TRUE(cpu.contains("top_sources")) << j.value("notes", nlohmann::json::array()).dump();
  uint64_t waker_ns = 0, total_ns = 0;
  for (const auto& s : cpu["top_sources"]) {
    total_ns += s["time_ns"].get<uint64_t>();
    if (s["source"] == "preemption:check_waker") waker_ns = s["time_ns"].get<uint64_t>();
  }
  EXPECT_GT(waker_ns, 0u) << cpu["top_sources"].dump();
  // The waker is the largest single source of the gaps it causes.
  for (const auto& s : cpu["top_sources"])
    if (s["source"] != "preemption:check_waker" && s["source"] != "hardware/hypervisor")
      EXPECT_LE(s["time_ns"].get<uint64_t>(), waker_ns) << s.dump();
}

}  // namespace

namespace {

// The binary under a name of its own: its comm, which every thread inherits, then tells this
// process apart from other noisewatch processes on the shared VM (other helpers' tests).
struct SelfNamed {
  TempDir dir;
  std::string bin;
  explicit SelfNamed(const std::string& name) : bin(dir.path + "/" + name) {
    std::filesystem::create_symlink(kBin, bin);
  }
  Result run(const std::string& args) const {
    std::string cmd = bin + " " + args + " >" + dir.path + "/out 2>" + dir.path + "/err";
    int rc = std::system(cmd.c_str());
    return {WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, slurp(dir.path + "/out"), slurp(dir.path + "/err")};
  }
};

// Every source charged on every CPU (--top large), with the sum checks that hold by construction:
// what is attributed equals the sources listed and never exceeds the gap time measured there.
void expect_attribution_within_gaps(const nlohmann::json& j, const std::string& self) {
  ASSERT_FALSE(j["cpus"].empty());
  for (const auto& c : j["cpus"]) {
    ASSERT_TRUE(c.contains("attributed_ns")) << j.value("notes", nlohmann::json::array()).dump();
    uint64_t gap = c["gap_ns"], attributed = c["attributed_ns"], listed = 0, remainder = 0;
    for (const auto& s : c["top_sources"]) {
      std::string name = s["source"];
      EXPECT_EQ(name.find(self), std::string::npos)
          << "CPU " << c["cpu"] << ": noisewatch charged itself: " << s.dump();
      if (name == "hardware/hypervisor") remainder = s["time_ns"];
      else listed += s["time_ns"].get<uint64_t>();
    }
    EXPECT_EQ(listed, attributed) << "CPU " << c["cpu"] << ": every source is listed with --top 1000";
    EXPECT_LE(attributed, gap) << "CPU " << c["cpu"] << ": " << c["top_sources"].dump();
    EXPECT_EQ(remainder, gap - std::min(gap, attributed)) << "CPU " << c["cpu"];
    EXPECT_NEAR(c["noise_ppm"].get<double>(), double(gap) * 1e6 / c["measured_ns"].get<double>(), 1e-6);
  }
}

// Issue #12: on an idle 2-CPU VM, `preemption:noisewatch` was charged 1.38 s on CPU 1 in a 2 s
// window whose gaps totalled 128 ms. Now nothing of noisewatch runs on a measured CPU during its
// window, and a CPU is charged only inside it: with ordinary and with real-time spinners, and
// with the check_waker preempting the spinner of CPU 1 every 100 us (wake-ups that preempt are
// where the scheduler's clock lags).
TEST(CheckE2E, NoisewatchIsNotChargedAndAttributionStaysWithinTheGaps) {
  ASSERT_TRUE(std::filesystem::exists(kWaker)) << "build the check_waker target first";
  SelfNamed self("nw-selfcheck");
  const std::string cpus = sysconf(_SC_NPROCESSORS_ONLN) > 1 ? "0-1" : "0";
  for (const std::string priority : {"other", "fifo:1"})
    for (const std::string threshold : {"1", "20"}) {
      SCOPED_TRACE("--priority " + priority + " --threshold " + threshold);
      auto r = self.run("check --cpu " + cpus + " --duration 1 --top 1000 --priority " + priority + " --threshold " +
                        threshold + " --format json");
      ASSERT_FALSE(r.out.empty()) << r.err;
      expect_attribution_within_gaps(nlohmann::json::parse(r.out), "nw-selfcheck");
    }
  pid_t pid = fork();
  if (pid == 0) {
    execl(kWaker.c_str(), "check_waker", cpus == "0" ? "0" : "1", "100", "10", "5", (char*)nullptr);
    _exit(127);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  auto r = self.run("check --cpu " + cpus + " --duration 2 --top 1000 --format json");
  kill(pid, SIGTERM);
  waitpid(pid, nullptr, 0);
  ASSERT_FALSE(r.out.empty()) << r.err;
  auto j = nlohmann::json::parse(r.out);
  expect_attribution_within_gaps(j, "nw-selfcheck");
  bool waker_seen = false;
  for (const auto& c : j["cpus"])
    for (const auto& s : c["top_sources"]) waker_seen |= s["source"] == "preemption:check_waker";
  EXPECT_TRUE(waker_seen) << "the waker's preemptions are charged to it";
}

// The 3x rule live: the waker makes its CPU several times noisier than CPU 0, so CPU 0 is
// recommended although it is the housekeeping CPU, and the reason says why.
TEST(CheckE2E, ANoisyCpuIsNotRecommendedOverAQuietHousekeepingCpu) {
  if (sysconf(_SC_NPROCESSORS_ONLN) < 2) GTEST_SKIP() << "needs two CPUs";
  pid_t pid = fork();
  if (pid == 0) {
    execl(kWaker.c_str(), "check_waker", "1", "100", "30", "6", "2", (char*)nullptr);
    _exit(127);
  }
  for (int i = 0; i < 500 && !is_fifo(pid); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  auto r = run("check --cpu 0-1 --duration 1.5 --priority fifo:1 --no-attribution --format json");
  kill(pid, SIGTERM);
  waitpid(pid, nullptr, 0);
  ASSERT_FALSE(r.out.empty()) << r.err;
  auto j = nlohmann::json::parse(r.out);
  std::map<int, double> ppm;
  for (const auto& c : j["cpus"]) ppm[c["cpu"].get<int>()] = c["noise_ppm"].get<double>();
  ASSERT_EQ(ppm.size(), 2u);
  std::string why = j["recommendation_reason"];
  if (ppm[1] >= 3 * ppm[0]) {
    EXPECT_EQ(j["recommended_cpu"], 0) << why;
    EXPECT_NE(why.find("housekeeping does not break the tie"), std::string::npos) << why;
  } else {
    // The waker's 30% was not seen as 3x CPU 0's noise (a very busy VM): then CPU 1 may win the tie.
    std::printf("waker CPU 1 at %.0f ppm is less than 3x CPU 0 at %.0f ppm\n", ppm[1], ppm[0]);
    EXPECT_EQ(j["recommended_cpu"], 1) << why;
  }
  EXPECT_GT(ppm[1], ppm[0]) << "the waker's CPU is the noisier one";
}

// `run --cpu auto` measures every allowed CPU at once for one second: its cost over a run on a
// named CPU is about 1 s on any machine (it was 1 s per CPU: 2 s here, 64 s on 64 CPUs).
TEST(CheckE2E, RunCpuAutoMeasuresAboutOneSecondInTotal) {
  TempDir t;
  auto timed = [&](const std::string& cpu, const std::string& json) {
    auto t0 = std::chrono::steady_clock::now();
    auto r = run("--cpu " + cpu + " -r 1 -w 0 -q --no-counters --json " + json + " -- true");
    EXPECT_EQ(r.status, 0) << r.err;
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  std::vector<double> extra;
  for (int i = 0; i < 3; ++i) {
    double fixed = timed("0", t.path + "/fixed.json");
    double autos = timed("auto", t.path + "/auto.json");
    extra.push_back(autos - fixed);
    auto rec = nlohmann::json::parse(slurp(t.path + "/auto.json"));
    std::string why = rec["cpu_reason"];
    auto at = why.find("measured at once for ");
    ASSERT_NE(at, std::string::npos) << why;
    // The shortest window: every spinner stops at its first clock read past the 1 s deadline,
    // which a loaded CPU can delay (seen: 0.58 s late at load 8.7); the old code measured 2 s.
    double measured = std::stod(why.substr(at + 21));
    EXPECT_GE(measured, 0.99) << why;
    EXPECT_LE(measured, 1.2) << why;
  }
  std::sort(extra.begin(), extra.end());
  std::printf("--cpu auto costs %.2f s more than --cpu 0 (median of 3)\n", extra[1]);
  // 1 s of measuring plus loading the probe and starting the spinners (~1.05 s on a quiet VM;
  // up to 1.63 s seen at load average 8, where the probe's verification and the spinners' start
  // wait for CPU). The old 1 s per CPU costs at least 2 s here, and N s on N CPUs.
  const double old_cost = double(sysconf(_SC_NPROCESSORS_ONLN));
  EXPECT_LT(extra[1], std::min(1.9, old_cost - 0.1));
  EXPECT_GT(extra[1], 0.9);
}

TEST(CheckE2E, HelpExplainsTheFailuresAndTheRecommendation) {
  auto r = run("check --help");
  EXPECT_EQ(r.status, 0);
  for (const char* s : {"Failures (exit 2)", "on battery", "throttled during the measurement", "lost 10% or more",
                        "less than 3x as noisy", "Examples:"})
    EXPECT_NE(r.out.find(s), std::string::npos) << s;
}

}  // namespace
