// SPDX-License-Identifier: Apache-2.0
#include "probes/rare_vectors.h"

#include <fmt/format.h>

#include "noise.h"
#include "sources/kernel_names.h"
#include "system/cpulist.h"

namespace nw::probes {

namespace {

const sys::InterruptLine* line_of(const sys::Interrupts& t, uint32_t vector) {
  std::string_view label = sources::vector_interrupts_label(vector);
  if (label.empty()) return nullptr;
  for (const auto& l : t.lines)
    if (!l.device && l.id == label) return &l;
  return nullptr;
}

// The line's count over `cpus` (all its columns when empty). ERR and MIS have one column, for
// the whole machine.
uint64_t count_on(const sys::Interrupts& t, const sys::InterruptLine* l, const std::vector<int>& cpus) {
  if (!l) return 0;
  uint64_t n = 0;
  if (cpus.empty() || l->per_cpu.size() == 1) {
    for (uint64_t c : l->per_cpu) n += c;
    return n;
  }
  for (int cpu : cpus) n += t.count(*l, cpu);
  return n;
}

}  // namespace

std::vector<uint32_t> never_fired_vectors(const sys::Interrupts& at_start) {
  std::vector<uint32_t> out;
  if (at_start.lines.empty()) return out;  // unreadable: trace everything
  for (uint32_t v = 0; v < NW_VEC_COUNT; ++v) {
    if (sources::vector_is_frequent(v)) continue;
    if (count_on(at_start, line_of(at_start, v), {}) == 0) out.push_back(v);
  }
  return out;
}

std::vector<std::string> untraced_vectors_fired(const std::vector<uint32_t>& untraced, const sys::Interrupts& before,
                                                const sys::Interrupts& after, const std::vector<int>& cpus) {
  std::vector<std::string> out;
  for (uint32_t v : untraced) {
    uint64_t b = count_on(before, line_of(before, v), cpus), a = count_on(after, line_of(after, v), cpus);
    if (a <= b) continue;
    out.push_back(
        fmt::format("irq:{} fired {} time{} {}during the session without being traced (it had never fired "
                    "since boot, so noisewatch did not load its programs): its time is in `unexplained`; "
                    "run again to have it traced",
                    sources::vector_name(v), a - b, a - b == 1 ? "" : "s",
                    cpus.empty() ? "" : fmt::format("on CPU {} ", sys::format_cpulist(cpus))));
  }
  return out;
}

}  // namespace nw::probes
