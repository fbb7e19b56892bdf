#include "probes/source_names.h"

#include <cstring>

namespace nw::probes {

const char* softirq_name(uint32_t vec) {
  static const char* names[] = {"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK",
                                "IRQ_POLL", "TASKLET", "SCHED", "HRTIMER", "RCU"};
  return vec < sizeof(names) / sizeof(names[0]) ? names[vec] : "UNKNOWN";
}

const char* vector_name(uint32_t id) {
  static const char* names[NW_VEC_COUNT] = {
      "local_timer", "reschedule", "call_function", "call_function_single", "irq_work", "thermal",
      "threshold",   "deferred_error", "error",     "spurious",   "x86_platform_ipi", "reboot"};
  return id < NW_VEC_COUNT ? names[id] : "vector";
}

std::string key_comm(const nw_noise_key& key) {
  return std::string(key.comm, strnlen(key.comm, sizeof(key.comm)));
}

}  // namespace nw::probes
