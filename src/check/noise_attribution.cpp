// SPDX-License-Identifier: Apache-2.0
#include "check/noise_attribution.h"

#include <algorithm>

#include "probes/noise_probe.h"

namespace nw::check {

namespace {

// Each spinner's CPU is watched with the spinner as its measurer (never charged there) and stays
// closed, charging nothing, until the spinner opens its window. The spinners are not tracked:
// the tracked-task accounting (waiting, wake-ups) would charge them to each other and outside
// their windows.
class ProbeAttributor : public NoiseAttributor {
 public:
  void start(const std::map<int, pid_t>& spinner_tid_by_cpu, uint64_t threshold_ns) override {
    probes::ProbeOptions opts;
    opts.measurer_by_cpu = spinner_tid_by_cpu;
    opts.watch_min_ns = threshold_ns;
    probe_ = std::make_unique<probes::NoiseProbe>(opts);
  }

  void open(int cpu) noexcept override { probe_->set_watched(cpu, true); }
  void close(int cpu) noexcept override { probe_->set_watched(cpu, false); }

  std::map<int, std::vector<NoiseSource>> stop() override {
    std::map<int, std::vector<NoiseSource>> out;
    if (!probe_) return out;
    // The probe reports a source per task (several "preemption:cc1plus"); merge them by name.
    std::map<int, std::map<std::string, NoiseSource>> merged;
    for (const auto& e : probe_->collect(true)) {
      if (e.time_ns == 0) continue;  // count-only events took no time from the spinner
      auto& m = merged[e.cpu][e.source];
      m.source = e.source;
      m.count += e.count;
      m.time_ns += e.time_ns;
      m.max_ns = std::max(m.max_ns, e.max_ns);
    }
    for (auto& [cpu, sources] : merged)
      for (auto& [name, s] : sources) out[cpu].push_back(s);
    probe_.reset();
    return out;
  }

 private:
  std::unique_ptr<probes::NoiseProbe> probe_;
};

}  // namespace

std::unique_ptr<NoiseAttributor> make_probe_attributor(std::string* why) {
  (void)why;
  return std::make_unique<ProbeAttributor>();
}

}  // namespace nw::check
