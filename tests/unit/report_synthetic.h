// SPDX-License-Identifier: Apache-2.0
// Synthetic run records with known noise contributions, for the report engine's tests.
#pragma once
#include <cstdint>
#include <functional>
#include <random>
#include <stdexcept>
#include <string>

#include "record/run_record.h"
#include "reports/report.h"

namespace nw::test {

// Adds noise entries (and may change other fields) to measured run i.
using Inject = std::function<void(int i, RunSample& run, std::mt19937_64& rng)>;

// `runs` measured repetitions (plus one warm-up) of a `base_ns` (1 s) benchmark on CPU 1 of a 2-CPU machine,
// with Gaussian base jitter of `base_sd_ns`. Wall time = base + everything injected that takes
// time while the benchmark wants to run (stolen time and blocking), like a real run.
inline RunRecord synthetic_record(int runs, double base_sd_ns, const Inject& inject, uint64_t seed = 1,
                                  double base_ns = 1e9) {
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
    double base = base_ns + jitter(rng);
    r.user_ns = uint64_t(base);
    if (i >= 0 && inject) inject(i, r, rng);
    uint64_t extra = 0;
    for (const auto& e : r.noise) extra += e.time_ns;  // stolen + blocking
    r.wall_ns += uint64_t(base) + extra;               // inject may pre-load wall_ns with unseen cost
    rec.samples.push_back(std::move(r));
  }
  rec.summary = summarize(rec);
  return rec;
}

// What `noisewatch --json` saves: the record with its analysis, serialised and read back (so the
// tests read the engine's results through the JSON contract).
inline RunRecord analyzed(const RunRecord& rec) {
  return run_record_from_json(report::run_document(rec, report::analyze(rec)));
}

// The analysed record's row for `source` (throws when there is none, failing the test).
inline const Attribution& row(const RunRecord& rec, const std::string& source) {
  for (const auto& a : rec.attribution)
    if (a.source == source) return a;
  throw std::runtime_error("no attribution row for " + source);
}

inline const Recommendation* find_rec(const RunRecord& rec, const std::string& id) {
  for (const auto& r : rec.recommendations)
    if (r.id == id) return &r;
  return nullptr;
}

inline NoiseEntry time_entry(const std::string& source, double ns, uint64_t count = 1) {
  return {source, count, uint64_t(ns), uint64_t(ns), nullptr};
}

// The fault case of issue #12 (an IRQ storm on the benchmark's CPU in alternate runs): 10 runs of
// a 30 ms benchmark; the slow runs have 2 more minor faults and 3 ms more of IRQ time. With
// `irq_seen` the probe recorded that IRQ time; without it only its effect on the wall time is in
// the record, which is what tempts a regression to charge ~1 ms to each extra fault.
// `fault_ns_each` > 0 gives every fault entry a measured time (newer probes), 0 only a count.
inline RunRecord alternate_fault_record(bool irq_seen, double fault_ns_each = 0) {
  return synthetic_record(
      10, 50e3,
      [&](int i, RunSample& r, std::mt19937_64& rng) {
        bool slow = i % 2 == 1;
        uint64_t faults = (slow ? 104 : 102) + std::uniform_int_distribution<uint64_t>(0, 1)(rng);
        r.minor_faults = faults;
        r.noise.push_back({"fault",
                           faults,
                           uint64_t(double(faults) * fault_ns_each),
                           fault_ns_each > 0 ? uint64_t(3 * fault_ns_each) : 0,
                           {{"minor", faults}, {"major", 0}}});
        r.noise.push_back(time_entry("irq:local_timer", 30e3, 30));
        if (slow && irq_seen) r.noise.push_back({"irq:nvme0q1", 3000, uint64_t(3e6), 5000, {{"irq", 40}}});
        if (slow && !irq_seen) r.wall_ns = uint64_t(3e6);
      },
      1, 30e6);
}

// A multi-threaded benchmark under the new source vocabulary: its own threads compete for its
// CPU (`contention:bench`, varying), it blocks on I/O (`blocking`), the CPU wakes from idle for it
// (`wakeup:idle`); each scaled by the given weights (ns per unit of a per-run pattern).
inline RunRecord workload_vocabulary_record(double contention_ns, double blocking_ns, double wakeup_ns) {
  return synthetic_record(30, 0.3e6, [=](int i, RunSample& r, std::mt19937_64&) {
    if (contention_ns > 0)
      r.noise.push_back({"contention:bench", 40, uint64_t((i % 3) * contention_ns), 200000, nullptr});
    if (blocking_ns > 0) {
      r.noise.push_back(time_entry("blocking", (i % 5) * blocking_ns, 10));
      r.blocking_ns = uint64_t((i % 5) * blocking_ns);
    }
    if (wakeup_ns > 0) r.noise.push_back(time_entry("wakeup:idle", (i % 4) * wakeup_ns, 20));
    r.noise.push_back(time_entry("irq:local_timer", 250e3, 250));
  });
}

}  // namespace nw::test
