// SPDX-License-Identifier: Apache-2.0
#include "runner/cpu_choice.h"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "common/errors.h"
#include "system/allowed_cpus.h"
#include "system/cpu_selection.h"
#include "system/cpulist.h"

namespace nw::runner {

DefaultCpus choose_cpu(const std::vector<int>& allowed, const sys::Interrupts& irqs) {
  if (allowed.empty()) return {{}, "no CPU is allowed"};
  if (allowed.size() == 1) return {{allowed[0]}, fmt::format("CPU {}, the only CPU noisewatch may use", allowed[0])};
  std::vector<int> candidates;
  for (int c : allowed)
    if (c != 0) candidates.push_back(c);
  auto device_irqs = [&](int cpu) {
    uint64_t n = 0;
    for (const auto& l : irqs.lines)
      if (l.device) n += irqs.count(l, cpu);
    return n;
  };
  int best = candidates.front();
  uint64_t best_n = std::numeric_limits<uint64_t>::max();
  for (int c : candidates) {
    uint64_t n = device_irqs(c);
    if (n < best_n) best = c, best_n = n;
  }
  std::string why = candidates.size() == 1
                        ? fmt::format("CPU {}: CPU 0 is avoided (housekeeping: timers, RCU, default IRQ target)", best)
                        : fmt::format("CPU {}: fewest device IRQs so far ({}) among CPUs {}, CPU 0 avoided", best,
                                      best_n, sys::format_cpulist(candidates));
  if (candidates.size() == 1 && best_n > 0) why += fmt::format("; note it has served {} device IRQs", best_n);
  return {{best}, why};
}

DefaultCpus cpus_for(const std::string& cpu_arg) {
  const auto available = sys::read_cpu_availability();
  DefaultCpus out;
  if (cpu_arg.empty()) {
    out = choose_cpu(available.allowed, sys::read_interrupts());
    if (out.cpus.empty()) throw Error("no CPU is available to run the benchmark on");
  } else {
    std::vector<int> wanted;
    try {
      wanted = sys::parse_cpulist(cpu_arg);
    } catch (const std::invalid_argument& e) {
      throw Error(fmt::format("--cpu: {}", e.what()));
    }
    out.cpus = sys::select_cpus(available, wanted).cpus;
    out.reason = fmt::format("CPU {} as asked (--cpu)", sys::format_cpulist(out.cpus));
  }
  // Where the benchmark could not go whatever was asked: said rather than silently left out.
  if (auto note = sys::unavailable_note(available.unavailable()); !note.empty()) out.reason += "; " + note;
  return out;
}

}  // namespace nw::runner
