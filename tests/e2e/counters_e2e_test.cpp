// SPDX-License-Identifier: Apache-2.0
// Counters against the real kernel: a child held before execve (as the runner holds it),
// counters attached, released, reaped; what the counters say is checked against what the
// kernel says about the same process through wait4's rusage.
#include <sched.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/errors.h"
#include "probes/counter_analysis.h"
#include "probes/counters.h"

namespace nw::probes {
namespace {

// What the child's own rusage said just before execve: the counters start at execve, rusage
// counts from fork, so the difference is what the counters must not see.
struct PreExec {
  long switches = 0, faults = 0;
};

struct Reaped {
  int status = 0;
  rusage ru{};
  PreExec pre;
};

class HeldChild {
 public:
  // pin_cpu >= 0: pinned there. realtime: SCHED_FIFO, so that no other task preempts the child
  // in the short windows the counters do not cover (before execve completes, after exit).
  explicit HeldChild(std::vector<std::string> argv, int pin_cpu = -1, bool realtime = false) {
    if (pipe(go_) != 0 || pipe(report_) != 0) throw std::runtime_error("pipe");
    pid_ = fork();
    if (pid_ < 0) throw std::runtime_error("fork");
    if (pid_ == 0) {
      close(go_[1]);
      close(report_[0]);
      if (pin_cpu >= 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(pin_cpu, &set);
        sched_setaffinity(0, sizeof set, &set);
      }
      if (realtime) {
        sched_param sp{};
        sp.sched_priority = 1;
        if (sched_setscheduler(0, SCHED_FIFO, &sp) != 0) _exit(125);
      }
      char c;
      if (read(go_[0], &c, 1) != 1) _exit(126);
      rusage ru{};
      getrusage(RUSAGE_SELF, &ru);
      PreExec pre{ru.ru_nvcsw + ru.ru_nivcsw, ru.ru_minflt + ru.ru_majflt};
      if (write(report_[1], &pre, sizeof pre) != sizeof pre) _exit(126);
      std::vector<char*> args;
      for (auto& a : argv) args.push_back(a.data());
      args.push_back(nullptr);
      execv(args[0], args.data());
      _exit(127);
    }
    close(go_[0]);
    close(report_[1]);
  }
  ~HeldChild() {
    if (go_[1] >= 0) close(go_[1]);
    close(report_[0]);
    if (!reaped_) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }
  pid_t pid() const { return pid_; }
  void release() {
    char c = 'g';
    ASSERT_EQ(write(go_[1], &c, 1), 1);
    close(go_[1]);
    go_[1] = -1;
  }
  Reaped reap() {
    Reaped r;
    EXPECT_EQ(wait4(pid_, &r.status, 0, &r.ru), pid_);
    reaped_ = true;
    EXPECT_EQ(read(report_[0], &r.pre, sizeof r.pre), ssize_t(sizeof r.pre));
    return r;
  }

 private:
  int go_[2] = {-1, -1}, report_[2] = {-1, -1};
  pid_t pid_ = -1;
  bool reaped_ = false;
};

std::string workload(const char* name) { return std::string(NW_BINARY_DIR) + "/" + name; }

double cpu_ns(const rusage& ru) {
  return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e9 + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e3;
}

struct Measured {
  std::map<std::string, nw::CounterValue> counters;
  Reaped reaped;
};

Measured measure(Counters& counters, std::vector<std::string> argv, int pin_cpu = -1, bool realtime = false) {
  HeldChild child(std::move(argv), pin_cpu, realtime);
  counters.attach(child.pid());
  child.release();
  Measured m;
  m.reaped = child.reap();
  m.counters = counters.read_and_close();
  return m;
}

const std::vector<std::string> kSoftware{"task-clock", "context-switches", "cpu-migrations", "page-faults"};

TEST(CountersE2E, TaskClockMatchesRusageCpuTime) {
  Counters counters(kSoftware);
  auto m = measure(counters, {workload("counters_work"), "300", "0", "0", "1", "0"});
  ASSERT_TRUE(WIFEXITED(m.reaped.status) && WEXITSTATUS(m.reaped.status) == 0);
  double rusage_ns = cpu_ns(m.reaped.ru);
  const auto& tc = m.counters.at("task-clock");
  EXPECT_EQ(tc.scaling, 1.0);
  EXPECT_GE(rusage_ns, 0.29e9);
  EXPECT_NEAR(tc.value, rusage_ns, 0.05 * rusage_ns);
}

TEST(CountersE2E, InheritedByThreadsAndChildren) {
  Counters counters({"task-clock"});
  // 2 threads and 1 forked child, 150 ms each: 450 ms of CPU in three tasks.
  auto m = measure(counters, {workload("counters_work"), "150", "0", "0", "2", "1"});
  ASSERT_EQ(m.reaped.status, 0);
  double rusage_ns = cpu_ns(m.reaped.ru);
  EXPECT_GE(rusage_ns, 0.44e9);
  EXPECT_NEAR(m.counters.at("task-clock").value, rusage_ns, 0.05 * rusage_ns);
}

TEST(CountersE2E, ContextSwitchesEqualTheKernelsCount) {
  Counters counters(kSoftware);
  // The counters start at the end of execve and stop when the exiting task detaches them; the
  // kernel's count runs from fork to reap. Pinned (so execve's sched_exec() does not migrate
  // the child, a switch) and SCHED_FIFO (so nothing preempts it in the uncovered windows), the
  // only difference left is the exiting task's final switch, which the kernel counts after
  // perf_event_exit_task() -- unless the parent reaps it a moment before that increment.
  auto m = measure(counters, {workload("counters_work"), "50", "40", "0", "1", "0"}, 1, true);
  ASSERT_EQ(m.reaped.status, 0);
  long kernel = m.reaped.ru.ru_nvcsw + m.reaped.ru.ru_nivcsw - m.reaped.pre.switches;
  EXPECT_GE(kernel, 40);  // one per sleep at least
  auto counted = long(m.counters.at("context-switches").raw);
  EXPECT_THAT(counted, ::testing::AnyOf(kernel - 1, kernel)) << "kernel: " << kernel;
}

TEST(CountersE2E, PageFaultsCountEveryFreshPage) {
  constexpr int kPages = 5000;
  Counters counters(kSoftware);
  auto m = measure(counters, {workload("counters_work"), "0", "0", std::to_string(kPages), "1", "0"});
  ASSERT_EQ(m.reaped.status, 0);
  uint64_t faults = m.counters.at("page-faults").raw;
  long kernel = m.reaped.ru.ru_minflt + m.reaped.ru.ru_majflt - m.reaped.pre.faults;
  EXPECT_GE(faults, uint64_t(kPages));
  EXPECT_LE(faults, uint64_t(kernel));
}

TEST(CountersE2E, PinnedChildDoesNotMigrate) {
  Counters counters(kSoftware);
  auto m = measure(counters, {workload("counters_work"), "100", "20", "0", "1", "0"}, 0);
  ASSERT_EQ(m.reaped.status, 0);
  EXPECT_EQ(m.counters.at("cpu-migrations").raw, 0u);
}

TEST(CountersE2E, LibpfmSpellingsOfTheSameEventAgree) {
  Counters counters({"perf::TASK-CLOCK", "PERF_COUNT_SW_TASK_CLOCK", "task-clock:u"});
  auto m = measure(counters, {workload("counters_work"), "200", "0", "0", "1", "0"});
  ASSERT_EQ(m.reaped.status, 0);
  double a = m.counters.at("perf::TASK-CLOCK").value;
  EXPECT_NEAR(m.counters.at("PERF_COUNT_SW_TASK_CLOCK").value, a, 0.02 * a);
  // ":u" = user mode only: at most the total.
  EXPECT_LE(m.counters.at("task-clock:u").value, a * 1.001);
}

TEST(CountersE2E, RepeatedAttachStartsFromZero) {
  Counters counters({"task-clock"});
  auto first = measure(counters, {workload("counters_work"), "200", "0", "0", "1", "0"});
  auto second = measure(counters, {workload("counters_work"), "100", "0", "0", "1", "0"});
  double ns1 = cpu_ns(first.reaped.ru), ns2 = cpu_ns(second.reaped.ru);
  EXPECT_NEAR(first.counters.at("task-clock").value, ns1, 0.05 * ns1);
  EXPECT_NEAR(second.counters.at("task-clock").value, ns2, 0.05 * ns2);
  EXPECT_TRUE(counters.read_and_close().empty());  // closed after reading
}

TEST(CountersE2E, DefaultSetMeasuresWhatThisMachineHas) {
  Counters counters;
  auto m = measure(counters, {workload("counters_work"), "100", "0", "0", "1", "0"});
  auto unavailable = counters.unavailable();
  auto reason_for = [&](const std::string& probe) -> std::string {
    for (const auto& u : unavailable)
      if (u.probe == probe) return u.reason;
    return "";
  };
  // Software counters by default only next to hardware ones; without a PMU they are left out,
  // and said so, because the record has their equivalents and each costs every context switch.
  for (const auto& name : kSoftware) EXPECT_EQ(m.counters.count(name), counters.has_hardware_pmu() ? 1u : 0u) << name;
  if (!counters.has_hardware_pmu())
    EXPECT_THAT(reason_for("task-clock,context-switches,cpu-migrations,page-faults"),
                ::testing::HasSubstr("without a hardware PMU"));
  if (counters.has_hardware_pmu()) {
    ASSERT_TRUE(m.counters.count("instructions") && m.counters.count("cycles"));
    auto v = ipc(m.counters);
    ASSERT_TRUE(v.has_value());
    EXPECT_GT(*v, 0.05);
  } else {
    for (const char* hw : {"cycles", "instructions", "cache-misses", "branch-misses"}) {
      EXPECT_FALSE(m.counters.count(hw)) << hw;
      EXPECT_THAT(reason_for(hw), ::testing::HasSubstr("no hardware PMU")) << hw;
    }
  }
  // Every requested event is either measured or explained.
  for (const auto& name : Counters::default_events(""))
    if (name != "ref-cycles" && (counters.has_hardware_pmu() || !std::count(kSoftware.begin(), kSoftware.end(), name)))
      EXPECT_TRUE(m.counters.count(name) || !reason_for(name).empty()) << name;
  if (std::ifstream("/sys/bus/event_source/devices/msr/events/aperf")) {
    ASSERT_TRUE(m.counters.count(kEffectiveGhz));
    EXPECT_GT(m.counters.at(kEffectiveGhz).value, 0.1);
    EXPECT_LT(m.counters.at(kEffectiveGhz).value, 10.0);
  } else {
    EXPECT_THAT(reason_for(kEffectiveGhz), ::testing::HasSubstr("aperf"));
  }
}

// The msr PMU is what effective-ghz needs; where it has at least the TSC, counting it on the
// task exercises the sysfs path: TSC ticks per task-clock ns is the TSC rate.
TEST(CountersE2E, SysfsMsrTscCountsAtTheTscRate) {
  if (!std::ifstream("/sys/bus/event_source/devices/msr/events/tsc")) GTEST_SKIP() << "no msr/tsc on this kernel";
  Counters counters({"msr/tsc/", "task-clock"});
  auto m = measure(counters, {workload("counters_work"), "200", "0", "0", "1", "0"});
  double ghz = m.counters.at("msr/tsc/").value / m.counters.at("task-clock").value;
  EXPECT_GT(ghz, 0.5);
  EXPECT_LT(ghz, 6.0);
}

TEST(CountersE2E, UnknownEventIsAnErrorNamingIt) {
  try {
    Counters counters({"task-clock", "no-such-event"});
    FAIL() << "expected nw::Error";
  } catch (const nw::Error& e) {
    EXPECT_STREQ(e.what(), "unknown event 'no-such-event' (see `noisewatch events`)");
  }
  EXPECT_THROW(Counters({"nosuchpmu/foo/"}), nw::Error);
}

TEST(CountersE2E, AttachToAMissingProcessIsAnError) {
  Counters counters({"task-clock"});
  pid_t pid = fork();
  if (pid == 0) _exit(0);
  waitpid(pid, nullptr, 0);
  EXPECT_THROW(counters.attach(pid), nw::Error);
}

// `noisewatch events` end to end: the CLI lists what libpfm4 knows and marks what is usable.
std::string run_capture(const std::string& cmd, int& status) {
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  status = pclose(p);
  return out;
}

TEST(EventsCli, ListsUsableSoftwareEventsAndExplainsTheRest) {
  int status = 0;
  auto out = run_capture(workload("noisewatch") + " events clock 2>&1", status);
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_THAT(out, ::testing::ContainsRegex("usable +perf::TASK-CLOCK"));
  EXPECT_THAT(out, ::testing::Not(::testing::HasSubstr("CONTEXT-SWITCHES")));  // filtered out
  out = run_capture(workload("noisewatch") + " events 'perf::*CPU_CYCLES' 2>&1", status);
  EXPECT_THAT(out, ::testing::HasSubstr("PERF_COUNT_HW_CPU_CYCLES"));
  Counters probe({"task-clock"});
  if (!probe.has_hardware_pmu()) EXPECT_THAT(out, ::testing::HasSubstr("0 usable here: no hardware PMU"));
  out = run_capture(workload("noisewatch") + " events no-such-thing 2>&1", status);
  EXPECT_THAT(out, ::testing::HasSubstr("no event matches 'no-such-thing'"));
}

// Issue #6: an unknown event name on `run` is one line naming it, exit 125, before the
// benchmark runs.
TEST(EventsCli, RunWithAnUnknownEventIsOneLineAndExit125) {
  int status = 0;
  auto marker = std::string("/tmp/nw_counters_e2e_ran");
  std::remove(marker.c_str());
  auto out = run_capture(workload("noisewatch") + " run -r 1 -e task-clock,no-such-event -- touch " + marker + " 2>&1",
                         status);
  EXPECT_EQ(WEXITSTATUS(status), 125);
  EXPECT_EQ(out, "noisewatch: unknown event 'no-such-event' (see `noisewatch events`)\n");
  EXPECT_FALSE(std::ifstream(marker).good());  // the benchmark never ran
}

}  // namespace
}  // namespace nw::probes
