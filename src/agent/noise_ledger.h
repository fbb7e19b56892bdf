// SPDX-License-Identifier: Apache-2.0
// Cumulative noise per CPU and source, the state behind the agent's Prometheus counters.
//
// The probe hands out what happened since its last collect(); Prometheus counters must only ever
// go up, and the number of label sets must stay bounded however many tasks come and go. So each
// CPU admits at most `top_n` named sources per category, and a source once admitted keeps its
// own series for the life of the agent (dropping it later would make its time jump into "other"
// or vanish). Sources seen after the slots are taken are folded into {category, source="other"},
// so the sum per category stays exact. When several new sources arrive in one window with fewer
// free slots, the ones with the most time win.
//
// The cap is per category so that short-lived tasks (category preemption, named by comm, an
// unbounded set) cannot crowd out the IRQs and softirqs, whose sets are small and fixed.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace nw::agent {

inline constexpr std::string_view kOtherSource = "other";

// One source on one CPU over one collection window (a probe NoiseEvent without the detail).
struct NoiseSample {
  int cpu = 0;
  std::string source;  // "category:name" as the probe names it, e.g. "irq:virtio1-req.0"
  uint64_t count = 0, time_ns = 0;
};

// One exported series: cumulative since the agent started.
struct NoiseSeries {
  int cpu = 0;
  std::string category, name;  // name is "other" for the folded rest of a category
  uint64_t events = 0, time_ns = 0;
};

// "irq:virtio1-req.0" -> {"irq", "virtio1-req.0"}; a name without category ("steal") is both.
std::pair<std::string, std::string> split_source(std::string_view source);

class NoiseLedger {
 public:
  explicit NoiseLedger(size_t top_n);

  void add(const std::vector<NoiseSample>& window);
  // Sorted by CPU, category, then name with "other" last in its category.
  std::vector<NoiseSeries> series() const;
  // How many distinct sources have been folded on `cpu` (capped at kFoldedTracked): a hint that
  // --top is too small for what the CPU sees.
  size_t folded_sources(int cpu) const;
  std::vector<int> cpus() const;

  static constexpr size_t kFoldedTracked = 1024;

 private:
  struct Counts {
    uint64_t events = 0, time_ns = 0;
  };
  struct Cpu {
    std::map<std::pair<std::string, std::string>, Counts> named;  // (category, name), admitted
    std::map<std::string, size_t> slots_used;                     // category -> admitted names
    std::map<std::string, Counts> other;                          // category -> folded rest
    std::set<std::string> folded;                                 // distinct folded sources
  };
  size_t top_n_;
  std::map<int, Cpu> cpus_;
};

}  // namespace nw::agent
