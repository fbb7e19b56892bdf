// SPDX-License-Identifier: Apache-2.0
#include "check/cpu_noise.h"

#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <latch>
#include <memory>
#include <thread>

#include <fmt/format.h>

#include "common/errors.h"
#include "system/monotonic_clock.h"

namespace nw::check {

namespace {

void sleep_until(uint64_t t_ns) {
  timespec ts{time_t(t_ns / 1'000'000'000ull), long(t_ns % 1'000'000'000ull)};
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR) {
  }
}

constexpr uint64_t kCancelled = UINT64_MAX;

struct Spinner {
  int cpu = -1;
  std::atomic<pid_t> tid{0};
  std::atomic<int> pin_errno{0};
  std::atomic<int> sched_errno{0};
  CpuNoise result;
};

// What the spinners and the thread that starts them share.
struct Start {
  explicit Start(size_t n) : done(std::ptrdiff_t(n)) {}
  std::atomic<int> ready{0};
  std::atomic<uint64_t> at{0};  // when to start; 0 until known, kCancelled to give up
  std::latch done;              // every spinner has closed its window (or given up)
};

// Everything that is not our clock read is noise: record the gaps above the threshold.
void spin(Spinner& s, Start& go, uint64_t duration_ns, const NoiseOptions& opts) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(s.cpu, &set);
  int rc = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
  if (rc == 0 && opts.policy != SCHED_OTHER) {
    sched_param sp{};
    sp.sched_priority = opts.priority;
    rc = pthread_setschedparam(pthread_self(), opts.policy, &sp);
    if (rc != 0) s.sched_errno = rc;
  }
  s.pin_errno = rc;
  s.tid = pid_t(syscall(SYS_gettid));
  go.ready.fetch_add(1);
  go.ready.notify_all();
  // Sleep, not spin, until the start: the caller needs a CPU meanwhile to load the probe, and
  // with every CPU measured (and real-time spinners) it would not get one.
  go.at.wait(0);
  const uint64_t start = go.at.load(std::memory_order_acquire);
  if (rc != 0 || start == kCancelled) {
    go.done.count_down();
    return;
  }
  sleep_until(start);
  const uint64_t threshold_ns = opts.threshold_ns;
  uint64_t prev = sys::monotonic_ns(), gaps = 0, total = 0, max_gap = 0;
  const uint64_t first = prev, end = first + duration_ns;
  auto account = [&](uint64_t t) {
    uint64_t d = t - prev;
    if (d > threshold_ns) {
      ++gaps;
      total += d;
      max_gap = std::max(max_gap, d);
    }
    prev = t;
  };
  // The window of the attribution: opened after the first read, closed before the last, so
  // everything it charges lies between two reads.
  if (opts.attributor) opts.attributor->open(s.cpu);
  for (;;) {
    uint64_t t = sys::monotonic_ns();
    if (t >= end) break;
    account(t);
  }
  if (opts.attributor) opts.attributor->close(s.cpu);
  account(sys::monotonic_ns());
  go.done.count_down();
  s.result.cpu = s.cpu;
  s.result.gaps = gaps;
  s.result.gap_ns = total;
  s.result.max_gap_ns = max_gap;
  s.result.measured_ns = prev - first;
  s.result.noise_ppm = s.result.measured_ns ? double(total) * 1e6 / double(s.result.measured_ns) : 0;
}

// While it lives, the calling thread runs only on allowed CPUs outside `measured`, if there are
// any: it must not take time from a spinner (it sleeps through the measurement anyway).
class StayOff {
 public:
  explicit StayOff(const std::vector<int>& measured) {
    if (sched_getaffinity(0, sizeof(saved_), &saved_) != 0) return;
    cpu_set_t rest = saved_;
    for (int c : measured)
      if (c >= 0 && c < CPU_SETSIZE) CPU_CLR(c, &rest);
    moved_ = CPU_COUNT(&rest) > 0 && sched_setaffinity(0, sizeof(rest), &rest) == 0;
  }
  ~StayOff() {
    if (moved_) sched_setaffinity(0, sizeof(saved_), &saved_);
  }
  StayOff(const StayOff&) = delete;
  StayOff& operator=(const StayOff&) = delete;

 private:
  cpu_set_t saved_{};
  bool moved_ = false;
};

}  // namespace

std::vector<CpuNoise> measure_cpu_noise(const std::vector<int>& cpus, double seconds, const NoiseOptions& opts) {
  if (cpus.empty() || seconds <= 0) return {};
  StayOff off(cpus);
  std::vector<std::unique_ptr<Spinner>> spinners;
  for (int c : cpus) {
    spinners.push_back(std::make_unique<Spinner>());
    spinners.back()->cpu = c;
  }
  Start go(spinners.size());
  const uint64_t duration_ns = uint64_t(seconds * 1e9);
  std::vector<std::thread> threads;
  for (auto& s : spinners) threads.emplace_back(spin, std::ref(*s), std::ref(go), duration_ns, std::cref(opts));
  for (int n; (n = go.ready.load()) < int(spinners.size());) go.ready.wait(n);
  auto cancel = [&] {
    go.at.store(kCancelled, std::memory_order_release);
    go.at.notify_all();
    for (auto& t : threads) t.join();
  };
  for (auto& s : spinners)
    if (s->pin_errno != 0) {
      cancel();
      if (s->sched_errno != 0)
        throw Error(
            fmt::format("cannot set the real-time priority of the probe threads ({}); run as root or drop --priority",
                        std::strerror(s->sched_errno)));
      throw Error(fmt::format("cannot run on CPU {} ({}); pick CPUs this process may use (see taskset -p $$)", s->cpu,
                              std::strerror(s->pin_errno)));
    }
  std::map<int, pid_t> tids;
  for (auto& s : spinners) tids[s->cpu] = s->tid;
  if (opts.attributor) {
    try {
      opts.attributor->start(tids, opts.threshold_ns);
    } catch (...) {
      cancel();
      throw;
    }
  }
  // The delay lets this thread fall asleep before any window opens.
  go.at.store(sys::monotonic_ns() + 20'000'000, std::memory_order_release);
  go.at.notify_all();
  go.done.wait();
  for (auto& t : threads) t.join();
  std::map<int, std::vector<NoiseSource>> events;
  if (opts.attributor) events = opts.attributor->stop();
  std::vector<CpuNoise> out;
  for (auto& s : spinners) {
    CpuNoise r = s->result;
    if (opts.attributor) attribute_gaps(r, events[r.cpu], opts.top_sources);
    out.push_back(std::move(r));
  }
  return out;
}

void parse_priority(const std::string& text, NoiseOptions& opts) {
  if (text == "other") {
    opts.policy = SCHED_OTHER;
    opts.priority = 0;
    return;
  }
  auto colon = text.find(':');
  std::string kind = text.substr(0, colon);
  int policy = kind == "fifo" ? SCHED_FIFO : kind == "rr" ? SCHED_RR : -1;
  int prio = -1;
  if (colon != std::string::npos) {
    try {
      size_t used = 0;
      prio = std::stoi(text.substr(colon + 1), &used);
      if (used != text.size() - colon - 1) prio = -1;
    } catch (const std::exception&) {
    }
  }
  if (policy < 0 || prio < sched_get_priority_min(policy) || prio > sched_get_priority_max(policy))
    throw Error(fmt::format("--priority '{}' is not valid; give other, fifo:N or rr:N with N in 1..99", text));
  opts.policy = policy;
  opts.priority = prio;
}

void attribute_gaps(CpuNoise& measured, std::vector<NoiseSource> os_events, size_t keep) {
  uint64_t explained = 0;
  for (const auto& e : os_events) explained += e.time_ns;
  measured.attributed_ns = explained;
  std::sort(os_events.begin(), os_events.end(),
            [](const NoiseSource& a, const NoiseSource& b) { return a.time_ns > b.time_ns; });
  if (os_events.size() > keep) os_events.resize(keep);
  if (measured.gap_ns > explained) {
    NoiseSource hw;
    hw.source = "hardware/hypervisor";
    hw.time_ns = measured.gap_ns - explained;
    hw.count = 0;  // gaps without an OS event cannot be counted apart
    auto pos =
        std::find_if(os_events.begin(), os_events.end(), [&](const NoiseSource& e) { return e.time_ns < hw.time_ns; });
    os_events.insert(pos, hw);
  }
  measured.top_sources = std::move(os_events);
}

}  // namespace nw::check
