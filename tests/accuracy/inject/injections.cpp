// SPDX-License-Identifier: Apache-2.0
#include "tests/accuracy/inject/injections.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <thread>
#include <vector>

#include "tests/accuracy/inject/proc_util.h"

namespace nw::inject {

namespace {

using nlohmann::json;

class CpuHog : public Noise {
 public:
  explicit CpuHog(int cpu) {
    hog_ = fork();
    if (hog_ == 0) {
      prctl(PR_SET_NAME, "acc_hog", 0, 0, 0);
      prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
      if (!pin_self(cpu)) _exit(3);
      volatile unsigned long x = 0;
      for (;;) x = x + 1;
    }
  }
  void stop(json& truth) override {
    if (hog_ <= 0) return;
    truth["hog_pid"] = hog_;
    truth["hog_runtime_ns"] = schedstat_runtime(hog_);
    reap();
  }
  ~CpuHog() override { reap(); }

 private:
  void reap() {
    if (hog_ <= 0) return;
    kill(hog_, SIGKILL);
    waitpid(hog_, nullptr, 0);
    hog_ = -1;
  }
  pid_t hog_ = -1;
};

// Threads of the injector itself, stopped with a flag and joined.
class ThreadedNoise : public Noise {
 public:
  ~ThreadedNoise() override { join(); }

 protected:
  void join() {
    done_ = true;
    for (auto& t : threads_)
      if (t.joinable()) t.join();
    threads_.clear();
  }
  std::atomic<bool> done_{false};
  std::vector<std::thread> threads_;
};

timespec add_us(timespec t, int us) {
  t.tv_nsec += long(us) * 1000;
  while (t.tv_nsec >= 1000000000L) {
    t.tv_nsec -= 1000000000L;
    ++t.tv_sec;
  }
  return t;
}

bool later(const timespec& a, const timespec& b) {
  return a.tv_sec > b.tv_sec || (a.tv_sec == b.tv_sec && a.tv_nsec > b.tv_nsec);
}

class TimerStorm : public ThreadedNoise {
 public:
  TimerStorm(int cpu, int period_us) {
    threads_.emplace_back([this, cpu, period_us] {
      pinned_ = pin_self(cpu);
      prctl(PR_SET_TIMERSLACK, 1, 0, 0, 0);
      timespec next;
      clock_gettime(CLOCK_MONOTONIC, &next);
      while (!done_.load(std::memory_order_relaxed)) {
        next = add_us(next, period_us);
        timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (later(now, next)) next = now;  // fell behind (preempted): no burst to catch up
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, nullptr);
        wakeups_.fetch_add(1, std::memory_order_relaxed);
      }
      timespec cpu_time;
      clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu_time);
      runtime_ns_ = uint64_t(cpu_time.tv_sec) * 1000000000ull + uint64_t(cpu_time.tv_nsec);
      // The kernel's count of the thread leaving its CPU: a wake-up whose timer fires before the
      // thread got off the CPU continues the same slice, so slices, not wake-ups, are what a
      // probe can count.
      rusage ru;
      if (getrusage(RUSAGE_THREAD, &ru) == 0) switches_ = uint64_t(ru.ru_nvcsw) + uint64_t(ru.ru_nivcsw);
    });
    pthread_setname_np(threads_.back().native_handle(), "acc_timer");
  }
  void stop(json& truth) override {
    if (threads_.empty()) return;
    join();
    truth["timer_wakeups"] = wakeups_.load();
    truth["timer_runtime_ns"] = runtime_ns_;
    truth["timer_switches"] = switches_;
    truth["timer_pinned"] = pinned_.load();
  }

 private:
  std::atomic<uint64_t> wakeups_{0};
  std::atomic<bool> pinned_{true};
  uint64_t runtime_ns_ = 0, switches_ = 0;  // written by the thread before it ends, read after the join
};

class Mover : public ThreadedNoise {
 public:
  Mover(pid_t pid, int target, int other, int moves, int move_ms) : mig0_(nr_migrations(pid)) {
    threads_.emplace_back([=, this] {
      for (int m = 0; m < moves && !done_; ++m) {
        std::this_thread::sleep_for(std::chrono::milliseconds(move_ms));
        if (done_) break;
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(m % 2 == 0 ? other : target, &set);  // target -> other -> target ...: every move changes CPU
        if (sched_setaffinity(pid, sizeof set, &set) == 0) ++moves_done_;
        else ++moves_failed_;
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
        seen_cpus_.push_back(last_cpu(pid));
      }
      mig1_ = nr_migrations(pid);  // read while the benchmark still runs
    });
  }
  void stop(json& truth) override {
    if (threads_.empty()) return;
    join();
    truth["moves"] = moves_done_;
    truth["moves_failed"] = moves_failed_;
    truth["cpus_after_moves"] = seen_cpus_;
    if (mig0_ && mig1_) truth["kernel_nr_migrations_delta"] = *mig1_ - *mig0_;
  }

 private:
  int moves_done_ = 0, moves_failed_ = 0;
  std::optional<uint64_t> mig0_, mig1_;
  std::vector<int> seen_cpus_;
};

class IoStorm : public ThreadedNoise {
 public:
  IoStorm(int fd, int io_cpu, int nthreads) {
    for (int i = 0; i < nthreads; ++i)
      threads_.emplace_back([this, fd, io_cpu, i] {
        pin_self(io_cpu);
        void* buf = nullptr;
        if (posix_memalign(&buf, 4096, 4096) != 0) return;
        std::memset(buf, 0xa5, 4096);
        const off_t blocks = 1024;
        off_t b = off_t(i) * 97;
        while (!done_.load(std::memory_order_relaxed)) {
          if (pwrite(fd, buf, 4096, (b % blocks) * 4096) == 4096) writes_.fetch_add(1, std::memory_order_relaxed);
          else errors_.fetch_add(1, std::memory_order_relaxed);
          b += 7;
        }
        free(buf);
      });
  }
  void stop(json& truth) override {
    if (threads_.empty()) return;
    join();
    truth["io_writes"] = writes_.load();
    truth["io_errors"] = errors_.load();
  }

 private:
  std::atomic<uint64_t> writes_{0}, errors_{0};
};

}  // namespace

std::unique_ptr<Noise> start_cpu_hog(int cpu) { return std::make_unique<CpuHog>(cpu); }
std::unique_ptr<Noise> start_timer_storm(int cpu, int period_us) {
  return std::make_unique<TimerStorm>(cpu, period_us);
}
std::unique_ptr<Noise> start_mover(pid_t pid, int target, int other, int moves, int move_ms) {
  return std::make_unique<Mover>(pid, target, other, moves, move_ms);
}
std::unique_ptr<Noise> start_io_storm(int fd, int io_cpu, int threads) {
  return std::make_unique<IoStorm>(fd, io_cpu, threads);
}

}  // namespace nw::inject
