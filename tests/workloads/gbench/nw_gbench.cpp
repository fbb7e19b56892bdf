// SPDX-License-Identifier: Apache-2.0
// A Google Benchmark binary with no markers, for --windows gbench. Its own flags as any GBench
// binary's (--benchmark_repetitions, --benchmark_out, ...), and:
//  - BM_search: sums 10,000 numbers per iteration; no fixed iteration count, so the library
//    searches for one first (States of 1, 10, 100, ... iterations before the repetitions);
//  - BM_hog: ->Iterations(NW_GBENCH_ITERS)->Repetitions(6), CHUNKS (NW_GBENCH_CHUNKS) loops of
//    10,000 additions per iteration. With NW_WATCH_PID set (a stopped CPU hog on the benchmark's
//    CPU), the hog is continued for the odd repetitions and stopped again after them; with
//    NW_GBENCH_TRUTH, one line per repetition: "k inner_hog_ns outer_hog_ns", the hog's CPU time
//    from the first to the last iteration (inside what GBench times) and from just before the
//    timed loop to just after it (outside): what the probe charges the window lies between.
#include <signal.h>

#include <cstdio>
#include <cstdlib>

#include <benchmark/benchmark.h>

#include "../nw_watch.h"

namespace {

volatile unsigned long sink;

void add_chunks(long chunks) {
  for (long c = 0; c < chunks; ++c)
    for (int i = 0; i < 10000; ++i) sink = sink + unsigned(i);
}

void BM_search(benchmark::State& state) {
  for (auto _ : state) add_chunks(1);
}
BENCHMARK(BM_search);

long env_long(const char* name, long otherwise) {
  const char* v = std::getenv(name);
  return v ? std::atol(v) : otherwise;
}

void BM_hog(benchmark::State& state) {
  static int repetition = 0;
  const int k = repetition++;
  const long chunks = env_long("NW_GBENCH_CHUNKS", 40);
  const char* hog = std::getenv("NW_WATCH_PID");
  const bool noisy = hog && k % 2 == 1;
  if (noisy) kill(std::atoi(hog), SIGCONT);
  unsigned long long outer0 = nw_watched_runtime(), inner0 = 0, inner1 = 0;
  benchmark::IterationCount i = 0;
  for (auto _ : state) {
    if (i == 0) inner0 = nw_watched_runtime();
    add_chunks(chunks);
    if (++i == state.max_iterations) inner1 = nw_watched_runtime();
  }
  unsigned long long outer1 = nw_watched_runtime();
  if (noisy) {
    kill(std::atoi(hog), SIGSTOP);
    wait_stopped(hog);
  }
  if (const char* truth = std::getenv("NW_GBENCH_TRUTH"))
    if (FILE* f = std::fopen(truth, "a")) {
      std::fprintf(f, "%d %llu %llu\n", k, inner1 - inner0, outer1 - outer0);
      std::fclose(f);
    }
}
BENCHMARK(BM_hog)->Iterations(env_long("NW_GBENCH_ITERS", 50))->Repetitions(6);

}  // namespace

BENCHMARK_MAIN();
