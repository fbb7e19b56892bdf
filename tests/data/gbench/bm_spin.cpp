#include <benchmark/benchmark.h>
static void BM_spin(benchmark::State& s) { for (auto _ : s) { volatile int x = 0; for (int i = 0; i < 1000; ++i) x += i; } }
BENCHMARK(BM_spin)->Arg(1)->Arg(2);
BENCHMARK_MAIN();
