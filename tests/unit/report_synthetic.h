// Synthetic run records with known noise contributions, for the report engine's tests.
#pragma once
#include <cstdint>
#include <functional>
#include <random>
#include <string>

#include "record/run_record.h"

namespace nw::test {

// Adds noise entries (and may change other fields) to measured run i.
using Inject = std::function<void(int i, RunSample& run, std::mt19937_64& rng)>;

// `runs` measured repetitions (plus one warm-up) of a 1 s benchmark on CPU 1 of a 2-CPU machine,
// with Gaussian base jitter of `base_sd_ns`. Wall time = base + everything injected that takes
// time while the benchmark wants to run (stolen time and blocking), like a real run.
inline RunRecord synthetic_record(int runs, double base_sd_ns, const Inject& inject, uint64_t seed = 1) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> jitter(0.0, base_sd_ns);
  RunRecord rec;
  rec.version = "test";
  rec.command = {"./bench"};
  rec.cpus = {1};
  rec.host = {"synthetic", "6.18", "Test CPU", false, 2};
  for (int i = -1; i < runs; ++i) {
    RunSample r;
    r.index = i + 1;
    r.warmup = i < 0;
    double base = 1e9 + jitter(rng);
    r.user_ns = uint64_t(base);
    if (i >= 0 && inject) inject(i, r, rng);
    uint64_t extra = 0;
    for (const auto& e : r.noise) extra += e.time_ns;  // stolen + blocking
    r.wall_ns += uint64_t(base) + extra;                // inject may pre-load wall_ns with unseen cost
    rec.runs.push_back(std::move(r));
  }
  rec.summary = summarize(rec);
  return rec;
}

inline NoiseEntry time_entry(const std::string& source, double ns, uint64_t count = 1) {
  return {source, count, uint64_t(ns), uint64_t(ns), nullptr};
}

}  // namespace nw::test
