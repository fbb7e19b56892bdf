// SPDX-License-Identifier: Apache-2.0
// A run's wall time ends when the benchmark's process ended, not when noisewatch got a CPU to
// notice it. Found in CI: in a CPU-quota group that holds noisewatch too, noisewatch was throttled
// right after the benchmark's exit and the run was 70 ms longer than the benchmark (a quota
// period), none of it charged to any source. Here noisewatch is kept off its CPU on purpose: it
// runs on CPU 0, where a SCHED_FIFO spinner starts just before the benchmark (on CPU 1) exits.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sched.h>
#include <sys/stat.h>

#include <thread>

#include "support/run_helpers.h"
#include "system/monotonic_clock.h"

namespace nw::e2e {
namespace {

double now_ms() { return double(sys::monotonic_ns()) / 1e6; }

// Waits for the benchmark's "go" on `ready`, takes CPU 0 at SCHED_FIFO, lets the benchmark exit
// through `release`, and keeps CPU 0 for `hold_ms`. Returns how long it held CPU 0 after the
// release (0: it could not take CPU 0, the premise failed).
double hold_cpu0_across_the_exit(const std::string& ready, const std::string& release, double hold_ms) {
  // Not blocking in open(): a noisewatch that fails before the benchmark starts ends the test.
  char buf[8];
  int r = open(ready.c_str(), O_RDONLY | O_NONBLOCK);
  pollfd pfd{.fd = r, .events = POLLIN, .revents = 0};
  const bool go = r >= 0 && poll(&pfd, 1, 10000) == 1 && read(r, buf, sizeof buf) > 0;
  if (r >= 0) close(r);
  if (!go) return 0;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(0, &set);
  sched_param fifo{.sched_priority = 1}, other{.sched_priority = 0};
  if (sched_setaffinity(0, sizeof set, &set) != 0 || sched_setscheduler(0, SCHED_FIFO, &fifo) != 0) return 0;
  int w = open(release.c_str(), O_WRONLY);
  const bool released = w >= 0 && write(w, "x\n", 2) == 2;
  if (w >= 0) close(w);
  const double t0 = now_ms();
  while (released && now_ms() - t0 < hold_ms) {
  }
  const double held = now_ms() - t0;
  sched_setscheduler(0, SCHED_OTHER, &other);
  return released ? held : 0;
}

TEST(WallEndE2E, TheRunEndsWhenTheBenchmarkExitedNotWhenNoisewatchNoticed) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root (SCHED_FIFO, eBPF)";
  if (std::thread::hardware_concurrency() < 2) GTEST_SKIP() << "needs two CPUs";
  const std::string ready = temp_path("ready"), release = temp_path("release"), json = temp_path("wall.json");
  ASSERT_EQ(mkfifo(ready.c_str(), 0600), 0);
  ASSERT_EQ(mkfifo(release.c_str(), 0600), 0);
  constexpr double kHoldMs = 250;
  double held = 0;
  std::thread holder([&] { held = hold_cpu0_across_the_exit(ready, release, kHoldMs); });
  const double t0 = now_ms();
  Proc p = run({"/usr/bin/taskset", "-c", "0", noisewatch(), "--cpu", "1", "--runs", "1", "--warmup", "0", "-q",
                "--json", json, "--", "/bin/sh", "-c", "echo go > " + ready + "; read x < " + release});
  const double elapsed = now_ms() - t0;
  holder.join();
  unlink(ready.c_str());
  unlink(release.c_str());
  ASSERT_EQ(p.status, 0) << p.err;
  ASSERT_GE(held, kHoldMs) << "the spinner could not hold CPU 0: the premise failed";
  ASSERT_GE(elapsed, kHoldMs) << "noisewatch was not kept off CPU 0 after the benchmark's exit: the premise failed";
  auto rec = load_json(json);
  unlink(json.c_str());
  ASSERT_EQ(rec["runs"].size(), 1u);
  const auto& run = rec["runs"][0];
  // The benchmark lives a few ms (a shell, two FIFOs); noisewatch noticed its exit 250 ms later.
  EXPECT_LT(run["wall_ns"].get<double>(), 0.4 * kHoldMs * 1e6) << run.dump();
  // What its CPU time says of it still fits in the shorter wall time.
  EXPECT_LE(run["cpu_ns"].get<double>(), run["wall_ns"].get<double>()) << run.dump();
}

}  // namespace
}  // namespace nw::e2e
