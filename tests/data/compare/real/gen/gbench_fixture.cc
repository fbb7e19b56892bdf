// The benchmark program whose Google Benchmark JSON output is in tests/data/compare/real/gbench_*.
// Not part of the build: it needs Debian's libbenchmark-dev. Regenerate (see ../README.md) with
//   g++ -O2 -std=c++17 gbench_fixture.cc -lbenchmark -lpthread -o /tmp/gbench_fixture
//   /tmp/gbench_fixture --benchmark_repetitions=10 --benchmark_min_time=0.05 --benchmark_out=base.json
//   NW_VARIANT=new /tmp/gbench_fixture ... --benchmark_out=new.json
// NEW differs from BASE on purpose: BM_Sort does 30 % more work, BM_Lookup 25 % less, and
// BM_SpinThenSleep computes less but sleeps (wall time up, CPU time down). BM_Hash is unchanged.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <thread>
#include <vector>

namespace {

bool is_new() {
  const char* v = std::getenv("NW_VARIANT");
  return v && std::strcmp(v, "new") == 0;
}

uint64_t mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  return x;
}

void spin_for(std::chrono::microseconds d) {
  auto until = std::chrono::steady_clock::now() + d;
  uint64_t x = 1;
  while (std::chrono::steady_clock::now() < until) benchmark::DoNotOptimize(x = mix(x));
}

void BM_Hash(benchmark::State& state) {
  std::vector<uint64_t> v(size_t(state.range(0)), 7);
  for (auto _ : state) {
    uint64_t h = 0;
    for (uint64_t x : v) h = mix(h + x);
    benchmark::DoNotOptimize(h);
  }
}
BENCHMARK(BM_Hash)->Arg(64)->Arg(4096);

void BM_Sort(benchmark::State& state) {
  size_t n = size_t(state.range(0)) * (is_new() ? 13 : 10) / 10;
  std::mt19937_64 rng(1);
  std::vector<uint64_t> v(n);
  for (auto _ : state) {
    state.PauseTiming();
    for (auto& x : v) x = rng();
    state.ResumeTiming();
    std::sort(v.begin(), v.end());
    benchmark::DoNotOptimize(v.data());
  }
}
BENCHMARK(BM_Sort)->Arg(4096);

// Counters that come out non-finite, as Google Benchmark writes them: NaN, Infinity, -Infinity.
void BM_Lookup(benchmark::State& state) {
  std::vector<uint64_t> table(1 << 12);
  for (size_t i = 0; i < table.size(); ++i) table[i] = mix(i);
  size_t probes = is_new() ? 750 : 1000;
  double hits = 0, misses = 0;
  for (auto _ : state) {
    uint64_t sum = 0;
    for (size_t i = 0; i < probes; ++i) sum += table[mix(i) & (table.size() - 1)];
    benchmark::DoNotOptimize(sum);
  }
  state.counters["hit_ratio"] = hits / misses;  // 0/0
  state.counters["misses_per_hit"] = 1.0 / hits;
  state.counters["log_miss_rate"] = -std::numeric_limits<double>::infinity();
}
BENCHMARK(BM_Lookup);

// NEW computes 30 % less and sleeps instead: more wall time, less CPU time.
void BM_SpinThenSleep(benchmark::State& state) {
  for (auto _ : state) {
    if (is_new()) {
      spin_for(std::chrono::microseconds(1400));
      std::this_thread::sleep_for(std::chrono::microseconds(1000));
    } else {
      spin_for(std::chrono::microseconds(2000));
    }
  }
}
BENCHMARK(BM_SpinThenSleep)->Unit(benchmark::kMillisecond);

void BM_NeedsGpu(benchmark::State& state) {
  for (auto _ : state) {
    state.SkipWithError("no GPU on this machine");
    break;
  }
}
BENCHMARK(BM_NeedsGpu);

}  // namespace

BENCHMARK_MAIN();
