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

// Per-CPU threads carry their CPU after a '/' (kworker/1:2, ksoftirqd/1); workqueue rescuers and
// per-device threads take their queue's name (scsi_eh_0, ext4-rsv-conver, card0-crtc0).
constexpr std::array<std::string_view, 27> kKernelThreads = {
    "kworker/",  "ksoftirqd/", "migration/", "rcu_",      "rcuo",       "rcub/",       "kthreadd",
    "irq/",      "watchdog/",  "cpuhp/",     "idle_inject/", "khugepaged", "kcompactd", "kswapd",
    "jbd2/",     "writeback",  "kblockd",    "kauditd",   "oom_reaper", "ksmd",        "kintegrityd",
    "swapper/",  "scsi_",      "card",       "xfsaild/",  "ext4-",      "kdamond"};

}  // namespace

std::span<const std::string_view> softirq_names() { return kSoftirqs; }

std::span<const std::string_view> kernel_thread_prefixes() { return kKernelThreads; }

std::string_view softirq_name(uint32_t vec) { return vec < kSoftirqs.size() ? kSoftirqs[vec] : "UNKNOWN"; }

std::string_view vector_name(uint32_t id) { return id < kVectors.size() ? kVectors[id] : "vector"; }

std::span<const std::string_view> apic_vector_names() { return kVectors; }

}  // namespace nw::sources
