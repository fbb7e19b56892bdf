#include "sources/kernel_names.h"

#include <algorithm>
#include <array>

#include "noise.h"

namespace nw::sources {

namespace {

// In the order of the kernel's enum of softirq vectors (include/linux/interrupt.h).
constexpr std::array<std::string_view, 10> kSoftirqs = {"HI",      "TIMER",   "NET_TX", "NET_RX",  "BLOCK",
                                                        "IRQ_POLL", "TASKLET", "SCHED",  "HRTIMER", "RCU"};
static_assert(kSoftirqs.size() <= NW_SOFTIRQ_SLOTS);

// In the order of enum nw_vector (bpf/noise.h).
constexpr std::array<std::string_view, NW_VEC_COUNT> kVectors = {
    "local_timer", "reschedule", "call_function", "call_function_single", "irq_work",         "thermal",
    "threshold",   "deferred_error", "error",     "spurious",             "x86_platform_ipi", "reboot"};

}  // namespace

std::string_view softirq_name(uint32_t vec) { return vec < kSoftirqs.size() ? kSoftirqs[vec] : "UNKNOWN"; }

std::string_view vector_name(uint32_t id) { return id < kVectors.size() ? kVectors[id] : "vector"; }

bool is_apic_vector(std::string_view irq_name) {
  return std::find(kVectors.begin(), kVectors.end(), irq_name) != kVectors.end();
}

}  // namespace nw::sources
