// SPDX-License-Identifier: Apache-2.0
#include "sources/kernel_names.h"

#include <algorithm>
#include <array>

#include "noise.h"

namespace nw::sources {

namespace {

// In the order of the kernel's enum of softirq vectors (include/linux/interrupt.h).
constexpr std::array<std::string_view, 10> kSoftirqs = {"HI",       "TIMER",   "NET_TX", "NET_RX",  "BLOCK",
                                                        "IRQ_POLL", "TASKLET", "SCHED",  "HRTIMER", "RCU"};
static_assert(kSoftirqs.size() <= NW_SOFTIRQ_SLOTS);

// In the order of enum nw_vector (bpf/noise.h): the source name, the irq_vectors tracepoint
// (without _entry/_exit) and the /proc/interrupts line that counts it ("" for reboot, which has
// none: it is sent only to stop the machine). The first five fire all the time.
struct Vector {
  std::string_view name, tracepoint, label;
};
constexpr std::array<Vector, NW_VEC_COUNT> kVectorRows = {{
    {"local_timer", "local_timer", "LOC"},
    {"reschedule", "reschedule", "RES"},
    {"call_function", "call_function", "CAL"},
    {"call_function_single", "call_function_single", "CAL"},
    {"irq_work", "irq_work", "IWI"},
    {"thermal", "thermal_apic", "TRM"},
    {"threshold", "threshold_apic", "THR"},
    {"deferred_error", "deferred_error_apic", "DFR"},
    {"error", "error_apic", "ERR"},
    {"spurious", "spurious_apic", "SPU"},
    {"x86_platform_ipi", "x86_platform_ipi", "PLT"},
    {"reboot", "reboot", ""},
}};
constexpr uint32_t kFrequentVectors = 5;
constexpr std::array<std::string_view, NW_VEC_COUNT> kVectors = [] {
  std::array<std::string_view, NW_VEC_COUNT> names{};
  for (size_t i = 0; i < names.size(); ++i) names[i] = kVectorRows[i].name;
  return names;
}();

// Per-CPU threads carry their CPU after a '/' (kworker/1:2, ksoftirqd/1); workqueue rescuers and
// per-device threads take their queue's name (scsi_eh_0, ext4-rsv-conver, card0-crtc0).
constexpr std::array<std::string_view, 27> kKernelThreads = {
    "kworker/",   "ksoftirqd/",   "migration/",  "rcu_",      "rcuo",   "rcub/", "kthreadd",  "irq/",    "watchdog/",
    "cpuhp/",     "idle_inject/", "khugepaged",  "kcompactd", "kswapd", "jbd2/", "writeback", "kblockd", "kauditd",
    "oom_reaper", "ksmd",         "kintegrityd", "swapper/",  "scsi_",  "card",  "xfsaild/",  "ext4-",   "kdamond"};

}  // namespace

std::span<const std::string_view> softirq_names() { return kSoftirqs; }

std::span<const std::string_view> kernel_thread_prefixes() { return kKernelThreads; }

std::string_view softirq_name(uint32_t vec) { return vec < kSoftirqs.size() ? kSoftirqs[vec] : "UNKNOWN"; }

std::string_view vector_name(uint32_t id) { return id < kVectors.size() ? kVectors[id] : "vector"; }

std::span<const std::string_view> apic_vector_names() { return kVectors; }

std::span<const std::string_view> hardware_event_vector_names() {
  return std::span(kVectors).subspan(NW_VEC_THERMAL, NW_VEC_SPURIOUS - NW_VEC_THERMAL + 1);
}

std::optional<uint32_t> vector_of_tracepoint(std::string_view tracepoint) {
  for (uint32_t i = 0; i < kVectorRows.size(); ++i)
    if (tracepoint == kVectorRows[i].tracepoint) return i;
  return std::nullopt;
}

std::string_view vector_interrupts_label(uint32_t id) { return id < kVectorRows.size() ? kVectorRows[id].label : ""; }

bool vector_is_frequent(uint32_t id) { return id < kFrequentVectors; }

std::optional<int> irq_thread_irq(std::string_view comm) {
  constexpr std::string_view prefix = "irq/";
  if (!comm.starts_with(prefix)) return std::nullopt;
  int irq = 0;
  size_t i = prefix.size();
  for (; i < comm.size() && i < prefix.size() + 6 && comm[i] >= '0' && comm[i] <= '9'; ++i)
    irq = irq * 10 + (comm[i] - '0');
  // The number, then '-' and the action's name (cut short by the comm's length, perhaps to nothing).
  if (i == prefix.size() || (i < comm.size() && comm[i] != '-')) return std::nullopt;
  return irq;
}

}  // namespace nw::sources
