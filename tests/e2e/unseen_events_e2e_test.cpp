// SPDX-License-Identifier: Apache-2.0
// Scheduler events the probe cannot see. These VMs hide their init agent's threads from tracing:
// every switch to or from one, and every wake-up issued while one is current (even from an
// interrupt taken in it), never reach a tracing program. A benchmark's `sleep` whose timer fired
// while an agent thread ran was woken and switched in unseen; its exit left the benchmark-wide
// activity count one short, and the next 20 ms of the benchmark's own work were charged as
// blocking (a CI-only failure of ExecWindowsE2E.ShellLoopGivesOneWindowPerProcess, reproduced
// beside CpusetE2E, which wakes the agent). The testing knob NOISEWATCH_TEST_UNSEEN_COMM makes a
// task of ours such a task, so the case happens at will.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include "support/run_helpers.h"

namespace nw::e2e {
namespace {

// The reader (`nw_blockers take`: 100 bytes from a FIFO, 1 ms of work on each) run 4 times under
// noisewatch on CPU 1, fed a byte every 3 ms by a ticker the probe is made blind to
// (NOISEWATCH_TEST_UNSEEN_COMM), with `beside` (commands) running meanwhile: its record, or null
// after a failure reported here.
nlohmann::json run_the_reader_fed_unseen(const std::string& stem,
                                         const std::vector<std::vector<std::string>>& beside = {}) {
  const std::string dir = temp_path(stem);
  EXPECT_EQ(mkdir(dir.c_str(), 0700), 0);
  const std::string fifo = dir + "/tick", json = dir + "/run.json";
  EXPECT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  std::vector<pid_t> pids{spawn({bin("nw_blockers"), "tick", fifo, "3000", "1"}, "/dev/null", "/dev/null")};
  for (const auto& argv : beside) pids.push_back(spawn(argv, "/dev/null", "/dev/null"));
  setenv("NOISEWATCH_TEST_UNSEEN_COMM", "nw_ticker", 1);
  Proc p = run({noisewatch(), "--cpu", "1", "--runs", "4", "--warmup", "0", "-q", "--json", json, "--",
                bin("nw_blockers"), "take", fifo, "100", "1000"});
  unsetenv("NOISEWATCH_TEST_UNSEEN_COMM");
  for (pid_t t : pids) {
    kill(t, SIGKILL);
    waitpid(t, nullptr, 0);
  }
  EXPECT_EQ(p.status, 0) << p.err;
  nlohmann::json rec;
  if (p.status == 0) rec = load_json(json);
  for (const auto& f : {json, fifo}) unlink(f.c_str());
  rmdir(dir.c_str());
  return rec;
}

// A reader on CPU 1 woken 100 times by a timer-driven writer pinned there too, whose wake-ups and
// switches are unseen: each round the reader blocks (seen: the CPU goes idle), the writer wakes it
// and leaves the CPU to it (unseen), and the reader's next switch is the first the probe sees of
// it running again. Blocking must end there, not at the end of the run (or never), and must not
// reach into the reader's own CPU time.
TEST(UnseenEventsE2E, AWakeUpAndSwitchInUnseenEndTheBlockingWhereTheTaskRan) {
  // Every 3 ms a byte; the reader works 1 ms on each: ~2 ms of each round blocked.
  auto rec = run_the_reader_fed_unseen("unseen");
  ASSERT_EQ(rec["runs"].size(), 4u);
  for (const auto& r : rec["runs"]) {
    SCOPED_TRACE(r.dump());
    const uint64_t wall = r["wall_ns"], cpu = r["cpu_ns"], blocking = r["blocking_ns"];
    ASSERT_GT(wall, cpu);
    // Conserved: never blocked while it ran (0.5 % for the two clocks, task and wall).
    EXPECT_LE(blocking + cpu, wall + wall / 200);
    // And the waits are there: nearly all the time it did not run (was 0 when the reader's
    // unseen wake-up left it "blocked" for good).
    EXPECT_GE(double(blocking), 0.8 * double(wall - cpu));
    // The probe knows it was blind: ~one untraced switch-in per round.
    EXPECT_GE(r["probe_switches"].value("unseen", 0), 50);
  }
  // And says so.
  bool warned = false;
  for (const auto& w : rec["warnings"]) warned |= w.get<std::string>().find("went untraced") != std::string::npos;
  EXPECT_TRUE(warned) << rec["warnings"].dump();
}

// The same reader, and an unseen sleeper on its CPU waking every 300 us: it takes the CPU from the
// reader and gives it back many times in each of the reader's 1 ms of work, so when the probe next
// sees the reader, the reader was last picked long after it began to run. Blocking must end where
// it began to run (its runtime since the switch-out the probe saw says when), not where it was
// last picked: blocking and CPU time were 1.22x the wall time. And its CPU time is counted even
// when its very last switch goes unseen (cpu_ns was 0 then).
TEST(UnseenEventsE2E, AnUnseenTaskTakingTheCpuBackAndForthDoesNotStretchTheBlocking) {
  auto rec = run_the_reader_fed_unseen("unseen-nap", {{bin("nw_blockers"), "nap", "300", "1"}});
  ASSERT_EQ(rec["runs"].size(), 4u);
  for (const auto& r : rec["runs"]) {
    SCOPED_TRACE(r.dump());
    const uint64_t wall = r["wall_ns"], cpu = r["cpu_ns"], blocking = r["blocking_ns"];
    const uint64_t rusage = r.value("user_ns", uint64_t(0)) + r.value("sys_ns", uint64_t(0));
    EXPECT_LE(blocking + cpu, wall + wall / 200);
    // Its CPU time, as getrusage() has it (which also counts noisewatch's ~0.2 ms in the child
    // before its execve, and rounds to the microsecond); the part after its exit that a lost
    // last switch takes with it is less than a scheduler tick.
    EXPECT_GE(double(cpu), 0.9 * double(rusage));
    EXPECT_LE(cpu, rusage + 1000 * 100);
    // Blind often: waits it did not see end, switches it did not see happened.
    EXPECT_GE(r["probe_switches"].value("unseen", 0), 50);
  }
}

}  // namespace
}  // namespace nw::e2e
