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
#include <thread>

#include <fmt/format.h>

#include "cli/errors.h"
#include "system/cpulist.h"

namespace nw::check {

namespace {

uint64_t now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1'000'000'000ull + uint64_t(ts.tv_nsec);
}

struct Spinner {
  int cpu = -1;
  std::atomic<pid_t> tid{0};
  std::atomic<int> pin_errno{0};
  std::atomic<int> sched_errno{0};
  CpuNoise result;
};

// Everything that is not our clock read is noise: record the gaps above the threshold.
void spin(Spinner& s, const std::atomic<uint64_t>& start_at, uint64_t duration_ns, const NoiseOptions& opts,
          std::atomic<int>& ready) {
  const uint64_t threshold_ns = opts.threshold_ns;
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
  ready.fetch_add(1);
  if (rc != 0) return;
  uint64_t start;
  while ((start = start_at.load(std::memory_order_acquire)) == 0) sched_yield();
  if (start == UINT64_MAX) return;  // cancelled
  while (now_ns() < start) {
  }
  uint64_t end = start + duration_ns;
  uint64_t prev = now_ns(), gaps = 0, total = 0, max_gap = 0;
  const uint64_t first = prev;
  for (;;) {
    uint64_t t = now_ns();
    uint64_t d = t - prev;
    if (d > threshold_ns) {
      ++gaps;
      total += d;
      max_gap = std::max(max_gap, d);
    }
    prev = t;
    if (t >= end) break;
  }
  s.result.cpu = s.cpu;
  s.result.gaps = gaps;
  s.result.max_gap_ns = max_gap;
  s.result.measured_ns = prev - first;
  s.result.noise_ppm = s.result.measured_ns ? double(total) * 1e6 / double(s.result.measured_ns) : 0;
}

}  // namespace

std::vector<CpuNoise> measure_cpu_noise(const std::vector<int>& cpus, double seconds_total, const NoiseOptions& opts) {
  if (cpus.empty() || seconds_total <= 0) return {};
  std::vector<std::unique_ptr<Spinner>> spinners;
  for (int c : cpus) {
    spinners.push_back(std::make_unique<Spinner>());
    spinners.back()->cpu = c;
  }
  std::atomic<uint64_t> start_at{0};
  std::atomic<int> ready{0};
  const uint64_t duration_ns = uint64_t(seconds_total * 1e9);
  std::vector<std::thread> threads;
  for (auto& s : spinners)
    threads.emplace_back(spin, std::ref(*s), std::cref(start_at), duration_ns, std::cref(opts), std::ref(ready));
  while (ready.load() < int(spinners.size())) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  auto cancel = [&] {
    start_at.store(UINT64_MAX, std::memory_order_release);
    for (auto& t : threads) t.join();
  };
  for (auto& s : spinners)
    if (s->pin_errno != 0) {
      cancel();
      if (s->sched_errno != 0)
        throw Error(fmt::format("cannot set the real-time priority of the probe threads ({}); run as root or drop --priority",
                                std::strerror(s->sched_errno)));
      throw Error(fmt::format("cannot run on CPU {} ({}); pick CPUs this process may use (see taskset -p $$)", s->cpu,
                              std::strerror(s->pin_errno)));
    }
  std::map<int, pid_t> tids;
  for (auto& s : spinners) tids[s->cpu] = s->tid;
  if (opts.attributor) {
    try {
      opts.attributor->start(tids);
    } catch (...) {
      cancel();
      throw;
    }
  }
  // A short delay lets every spinner reach its loop before the clock starts.
  start_at.store(now_ns() + 20'000'000, std::memory_order_release);
  for (auto& t : threads) t.join();
  std::map<int, std::vector<NoiseSource>> events;
  if (opts.attributor) events = opts.attributor->stop();
  std::vector<CpuNoise> out;
  for (auto& s : spinners) {
    CpuNoise r = s->result;
    if (opts.attributor) r.top_sources = attribute_gaps(r, events[r.cpu], opts.top_sources);
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

std::vector<NoiseSource> attribute_gaps(const CpuNoise& measured, std::vector<NoiseSource> os_events, size_t keep) {
  uint64_t gap_total = uint64_t(measured.noise_ppm * double(measured.measured_ns) / 1e6 + 0.5);
  uint64_t explained = 0;
  for (const auto& e : os_events) explained += e.time_ns;
  std::sort(os_events.begin(), os_events.end(),
            [](const NoiseSource& a, const NoiseSource& b) { return a.time_ns > b.time_ns; });
  if (os_events.size() > keep) os_events.resize(keep);
  if (gap_total > explained) {
    NoiseSource hw;
    hw.source = "hardware/hypervisor";
    hw.time_ns = gap_total - explained;
    hw.count = 0;  // gaps without an OS event cannot be counted apart
    auto pos = std::find_if(os_events.begin(), os_events.end(),
                            [&](const NoiseSource& e) { return e.time_ns < hw.time_ns; });
    os_events.insert(pos, hw);
  }
  return os_events;
}

std::vector<int> housekeeping_cpus(const std::vector<int>& online, const std::vector<int>& isolated) {
  std::vector<int> hk;
  if (!isolated.empty()) {
    for (int c : online)
      if (std::find(isolated.begin(), isolated.end(), c) == isolated.end()) hk.push_back(c);
  } else if (!online.empty()) {
    hk.push_back(online.front());
  }
  return hk;
}

std::vector<CpuNoise> rank_cpus(std::vector<CpuNoise> measured) {
  std::sort(measured.begin(), measured.end(), [](const CpuNoise& a, const CpuNoise& b) {
    if (a.noise_ppm != b.noise_ppm) return a.noise_ppm < b.noise_ppm;
    if (a.max_gap_ns != b.max_gap_ns) return a.max_gap_ns < b.max_gap_ns;
    return a.cpu < b.cpu;
  });
  return measured;
}

std::optional<CpuChoice> recommend_cpu(const std::vector<CpuNoise>& measured, const std::vector<int>& housekeeping) {
  if (measured.empty()) return std::nullopt;
  auto ranked = rank_cpus(measured);
  auto is_hk = [&](int c) { return std::find(housekeeping.begin(), housekeeping.end(), c) != housekeeping.end(); };
  const CpuNoise* pick = nullptr;
  for (const auto& r : ranked)
    if (!is_hk(r.cpu)) {
      pick = &r;
      break;
    }
  bool only_hk = pick == nullptr;
  if (only_hk) pick = &ranked.front();
  std::string why = fmt::format("CPU {}: {:.0f} ppm noise, longest gap {:.1f} us", pick->cpu, pick->noise_ppm,
                                double(pick->max_gap_ns) / 1000.0);
  if (ranked.size() == 1)
    why += ", the only CPU measured";
  else if (only_hk)
    why += fmt::format(", quietest of {} measured (all are housekeeping CPUs)", ranked.size());
  else if (pick == &ranked.front())
    why += fmt::format(", quietest of {} measured", ranked.size());
  else
    why += fmt::format(", quietest non-housekeeping CPU of {} measured (housekeeping: {})", ranked.size(),
                       sys::format_cpulist(housekeeping));
  return CpuChoice{pick->cpu, why};
}

}  // namespace nw::check
