// Names of noise sources: how a kernel-side key (kind, id, comm) becomes "category:name".
#pragma once
#include <cstdint>
#include <functional>
#include <string>

#include "noise.h"

namespace nw::probes {

const char* softirq_name(uint32_t vec);   // "TIMER", "NET_RX", ... as in the kernel's softirq_to_name
const char* vector_name(uint32_t id);     // enum nw_vector -> "local_timer", "reschedule", ...
// The comm bytes of a key, up to the first NUL.
std::string key_comm(const nw_noise_key& key);

}  // namespace nw::probes
