// SPDX-License-Identifier: Apache-2.0
// A Google Benchmark binary whose benchmarks stop the library's timer, for --windows gbench's
// paused windows (tests/e2e/gbench_pause_e2e_test.cpp). Its own flags as any GBench binary's, and:
//  - BM_set_insert/N/M: as Google Benchmark's own BM_SetInsert (test/benchmark_test.cc), each
//    iteration pauses the timer, builds a std::set of N numbers, resumes it and inserts M more:
//    most of the repetition is the paused set-up, which the library does not time;
//  - BM_set_insert_threads/N/M: the same on ->Threads(2), each thread pausing for its own set-up;
//  - BM_real_time: ->UseRealTime(), plain work: the window is the library's time as always;
//  - BM_manual_time: ->UseManualTime(), reports a fixed 50 us per iteration of at least 150 us.
#include <time.h>

#include <cstdint>
#include <set>

#include <benchmark/benchmark.h>

namespace {

// A fixed sequence of numbers (the benchmark's own, not <random>'s: the same work every run).
struct Numbers {
  uint64_t x = 88172645463325252ull;
  int next() {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return int(x & 0x7fffffff);
  }
};

std::set<int> some_set(Numbers& n, int64_t size) {
  std::set<int> s;
  for (int64_t i = 0; i < size; ++i) s.insert(n.next());
  return s;
}

void BM_set_insert(benchmark::State& state) {
  Numbers n;
  for (auto _ : state) {
    state.PauseTiming();
    std::set<int> data = some_set(n, state.range(0));
    state.ResumeTiming();
    for (int64_t j = 0; j < state.range(1); ++j) data.insert(n.next());
    benchmark::DoNotOptimize(data);
  }
}
BENCHMARK(BM_set_insert)->Args({16384, 1024})->Iterations(200)->Repetitions(3);
BENCHMARK(BM_set_insert)
    ->Name("BM_set_insert_threads")
    ->Args({8192, 1024})
    ->Iterations(150)
    ->Repetitions(2)
    ->Threads(2);

volatile unsigned long sink;

void spin(long n) {
  for (long i = 0; i < n; ++i) sink = sink + unsigned(i);
}

void BM_real_time(benchmark::State& state) {
  for (auto _ : state) spin(100000);
}
BENCHMARK(BM_real_time)->UseRealTime()->Iterations(300)->Repetitions(2);

// Spins for at least `us` microseconds of this thread's CPU time, whatever the CPU's speed.
void spin_for(long us) {
  timespec start{}, now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &start);
  do {
    spin(1000);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  } while ((now.tv_sec - start.tv_sec) * 1000000000L + (now.tv_nsec - start.tv_nsec) < us * 1000L);
}

void BM_manual_time(benchmark::State& state) {
  for (auto _ : state) {
    spin_for(150);
    state.SetIterationTime(50e-6);
  }
}
BENCHMARK(BM_manual_time)->UseManualTime()->Iterations(300)->Repetitions(2);

}  // namespace

BENCHMARK_MAIN();
